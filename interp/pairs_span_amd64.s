#include "textflag.h"

// MASKS_KERNEL loads the pairMaskKernel at R8: the nodes' x and y in Z10 and Z11, the half
// side, r2², r1², r1²r2² and the absolute value's mask broadcast in Z12 to Z16.
#define MASKS_KERNEL \
	VMOVUPD 0(R8), Z10; \
	VMOVUPD 64(R8), Z11; \
	VBROADCASTSD 128(R8), Z12; \
	VBROADCASTSD 136(R8), Z13; \
	VBROADCASTSD 144(R8), Z14; \
	VBROADCASTSD 152(R8), Z15; \
	VPBROADCASTQ 160(R8), Z16

// MASKS_TEST tests the sample broadcast in Z1 (x) and Z2 (y) against the kernel's nodes as
// squarePairs tests it: K1 gets the nodes whose square holds it, K3 those whose ellipse holds
// it as well (Z1 to Z6 and K2 are overwritten).
#define MASKS_TEST \
	VSUBPD Z10, Z1, Z1; \
	VSUBPD Z11, Z2, Z2; \
	VPANDQ Z16, Z1, Z3; \
	VPANDQ Z16, Z2, Z4; \
	VCMPPD $2, Z12, Z3, K1; \
	VCMPPD $2, Z12, Z4, K2; \
	KANDW K1, K2, K1; \
	VMULPD Z1, Z14, Z5; \
	VMULPD Z1, Z5, Z5; \
	VMULPD Z2, Z13, Z6; \
	VMULPD Z2, Z6, Z6; \
	VADDPD Z6, Z5, Z5; \
	VCMPPD $2, Z15, Z5, K3; \
	KANDW K1, K3, K3

// The lanes' samples are rows of 8 float64 (64 bytes): row a holds each lane's a-th sample.
// For each row a and each later row b, every lane whose list is longer than b (its count in
// counts) adds the distance between its a-th and b-th samples to its sum.

// func pairSumsAVX512(x, y *float64, counts *[8]int, n int, sums *[8]float64)
TEXT ·pairSumsAVX512(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ counts+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ sums+32(FP), R9
	VMOVDQU64 (R8), Z5
	VPXORQ Z0, Z0, Z0
	XORQ AX, AX

avx512row:
	LEAQ 1(AX), BX
	CMPQ BX, CX
	JGE avx512done
	MOVQ AX, DX
	SHLQ $6, DX
	VMOVUPD (SI)(DX*1), Z1
	VMOVUPD (DI)(DX*1), Z2

avx512pair:
	MOVQ BX, DX
	SHLQ $6, DX
	VMOVUPD (SI)(DX*1), Z3
	VMOVUPD (DI)(DX*1), Z4
	VSUBPD Z1, Z3, Z3
	VSUBPD Z2, Z4, Z4
	VMULPD Z3, Z3, Z3
	VMULPD Z4, Z4, Z4
	VADDPD Z4, Z3, Z3
	VSQRTPD Z3, Z3
	VPBROADCASTQ BX, Z6
	VPCMPQ $6, Z6, Z5, K1
	VADDPD Z3, Z0, K1, Z0
	INCQ BX
	CMPQ BX, CX
	JL avx512pair
	INCQ AX
	JMP avx512row

avx512done:
	VMOVUPD Z0, (R9)
	VZEROUPPER
	RET

// func pairSumsAVX2(x, y *float64, counts *[8]int, n int, sums *[8]float64)
// A lane past its count adds +0 (its distance and-ed with a zero mask), which leaves its sum,
// a sum of square roots from +0, as it is.
TEXT ·pairSumsAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ counts+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ sums+32(FP), R9
	VMOVDQU (R8), Y14
	VMOVDQU 32(R8), Y15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ AX, AX

avx2row:
	LEAQ 1(AX), BX
	CMPQ BX, CX
	JGE avx2done
	MOVQ AX, DX
	SHLQ $6, DX
	VMOVUPD (SI)(DX*1), Y2
	VMOVUPD 32(SI)(DX*1), Y3
	VMOVUPD (DI)(DX*1), Y4
	VMOVUPD 32(DI)(DX*1), Y5

avx2pair:
	MOVQ BX, DX
	SHLQ $6, DX
	VMOVUPD (SI)(DX*1), Y6
	VSUBPD Y2, Y6, Y6
	VMOVUPD (DI)(DX*1), Y7
	VSUBPD Y4, Y7, Y7
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	VADDPD Y7, Y6, Y6
	VSQRTPD Y6, Y6
	VMOVUPD 32(SI)(DX*1), Y8
	VSUBPD Y3, Y8, Y8
	VMOVUPD 32(DI)(DX*1), Y9
	VSUBPD Y5, Y9, Y9
	VMULPD Y8, Y8, Y8
	VMULPD Y9, Y9, Y9
	VADDPD Y9, Y8, Y8
	VSQRTPD Y8, Y8
	MOVQ BX, X10
	VPBROADCASTQ X10, Y10
	VPCMPGTQ Y10, Y14, Y11
	VPCMPGTQ Y10, Y15, Y12
	VANDPD Y11, Y6, Y6
	VANDPD Y12, Y8, Y8
	VADDPD Y6, Y0, Y0
	VADDPD Y8, Y1, Y1
	INCQ BX
	CMPQ BX, CX
	JL avx2pair
	INCQ AX
	JMP avx2row

avx2done:
	VMOVUPD Y0, (R9)
	VMOVUPD Y1, 32(R9)
	VZEROUPPER
	RET

// func pairMasksAVX512(px, py *float64, n int, k *pairMaskKernel, sq, in *uint16)
// For each sample j: sq[j] has the bits of the nodes whose square holds it, in[j] those whose
// ellipse holds it as well, tested as pairSpan.candidates tests them.
TEXT ·pairMasksAVX512(SB), NOSPLIT, $0-48
	MOVQ px+0(FP), SI
	MOVQ py+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), R8
	MOVQ sq+32(FP), R9
	MOVQ in+40(FP), R10
	MASKS_KERNEL
	XORQ AX, AX
	TESTQ CX, CX
	JLE masksdone

masksloop:
	VBROADCASTSD (SI)(AX*8), Z1
	VBROADCASTSD (DI)(AX*8), Z2
	MASKS_TEST
	KMOVW K1, BX
	MOVW BX, (R9)(AX*2)
	KMOVW K3, BX
	MOVW BX, (R10)(AX*2)
	INCQ AX
	CMPQ AX, CX
	JL masksloop

masksdone:
	VZEROUPPER
	RET

// func lanesFillAVX512(keys *uint64, m int, x, y *float64, in *uint16, lx, ly *float64, next *[8]int64)
// pairSpan.lanes's loop with pairBuf.early: for each candidate in keys' order, every lane of
// its in bits takes it at its next place (next[k], a place in lx and ly), moving on by 8.
TEXT ·lanesFillAVX512(SB), NOSPLIT, $0-64
	MOVQ keys+0(FP), SI
	MOVQ m+8(FP), CX
	MOVQ x+16(FP), R8
	MOVQ y+24(FP), R9
	MOVQ in+32(FP), R11
	MOVQ lx+40(FP), R13
	MOVQ ly+48(FP), R14
	MOVQ next+56(FP), DX
	VMOVDQU64 (DX), Z0
	MOVQ $8, DX
	VPBROADCASTQ DX, Z2
	XORQ AX, AX
	TESTQ CX, CX
	JLE filldone

fillloop:
	MOVL (SI)(AX*8), DX
	KMOVW (R11)(DX*2), K2
	VBROADCASTSD (R8)(DX*8), Z6
	VBROADCASTSD (R9)(DX*8), Z7
	KMOVW K2, K3
	VSCATTERQPD Z6, K3, (R13)(Z0*8)
	KMOVW K2, K4
	VSCATTERQPD Z7, K4, (R14)(Z0*8)
	VPADDQ Z2, Z0, K2, Z0
	INCQ AX
	CMPQ AX, CX
	JL fillloop

filldone:
	MOVQ next+56(FP), DX
	VMOVDQU64 Z0, (DX)
	VZEROUPPER
	RET

// func pairMasksAVX2(px, py *float64, n int, k *pairMaskKernel, sq, in *uint16)
// pairMasksAVX512 in two halves of four nodes.
TEXT ·pairMasksAVX2(SB), NOSPLIT, $0-48
	MOVQ px+0(FP), SI
	MOVQ py+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), R8
	MOVQ sq+32(FP), R9
	MOVQ in+40(FP), R10
	VMOVUPD 0(R8), Y10
	VMOVUPD 32(R8), Y11
	VMOVUPD 64(R8), Y12
	VMOVUPD 96(R8), Y13
	VBROADCASTSD 128(R8), Y14
	VBROADCASTSD 160(R8), Y15
	XORQ AX, AX
	TESTQ CX, CX
	JLE avx2masksdone

avx2masksloop:
	VBROADCASTSD (SI)(AX*8), Y0
	VBROADCASTSD (DI)(AX*8), Y1
	VSUBPD Y10, Y0, Y2
	VSUBPD Y12, Y1, Y3
	VSUBPD Y11, Y0, Y4
	VSUBPD Y13, Y1, Y5
	VANDPD Y15, Y2, Y6
	VANDPD Y15, Y3, Y7
	VCMPPD $2, Y14, Y6, Y6
	VCMPPD $2, Y14, Y7, Y7
	VANDPD Y7, Y6, Y6
	VANDPD Y15, Y4, Y7
	VANDPD Y15, Y5, Y8
	VCMPPD $2, Y14, Y7, Y7
	VCMPPD $2, Y14, Y8, Y8
	VANDPD Y8, Y7, Y7
	VBROADCASTSD 144(R8), Y8
	VBROADCASTSD 136(R8), Y9
	VMULPD Y2, Y8, Y0
	VMULPD Y2, Y0, Y0
	VMULPD Y3, Y9, Y1
	VMULPD Y3, Y1, Y1
	VADDPD Y1, Y0, Y0
	VMULPD Y4, Y8, Y2
	VMULPD Y4, Y2, Y2
	VMULPD Y5, Y9, Y3
	VMULPD Y5, Y3, Y3
	VADDPD Y3, Y2, Y2
	VBROADCASTSD 152(R8), Y8
	VCMPPD $2, Y8, Y0, Y0
	VCMPPD $2, Y8, Y2, Y2
	VANDPD Y6, Y0, Y0
	VANDPD Y7, Y2, Y2
	VMOVMSKPD Y6, BX
	VMOVMSKPD Y7, DX
	SHLL $4, DX
	ORL DX, BX
	MOVW BX, (R9)(AX*2)
	VMOVMSKPD Y0, BX
	VMOVMSKPD Y2, DX
	SHLL $4, DX
	ORL DX, BX
	MOVW BX, (R10)(AX*2)
	INCQ AX
	CMPQ AX, CX
	JL avx2masksloop

avx2masksdone:
	VZEROUPPER
	RET

// func pairTakeAVX512(px, py *float64, n int, k *pairMaskKernel, ids, rank *int32, at int, keys *uint64, x, y *float64, in *uint16, last, counts *[8]int64) int
// pairMasksAVX512 and pairBuf.take in one loop (pairBuf.early): each sample j of a cell row
// gets its bits as pairMasksAVX512 tests them; it is written, with its ID<<32 | place, its
// place and its in bits, at the next place from at, which moves on only past a sample in a
// node's ellipse; every lane whose square holds it keeps in last the greatest of rank<<1 |
// (1 if its ellipse holds it too), and every lane whose ellipse holds it counts it. It returns
// the place past the last sample kept.
TEXT ·pairTakeAVX512(SB), NOSPLIT, $0-112
	MOVQ px+0(FP), SI
	MOVQ py+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ k+24(FP), R8
	MASKS_KERNEL
	MOVQ $1, DX
	VPBROADCASTQ DX, Z17
	MOVQ last+88(FP), DX
	VMOVDQU64 (DX), Z18
	MOVQ counts+96(FP), DX
	VMOVDQU64 (DX), Z19
	MOVQ ids+32(FP), R9
	MOVQ rank+40(FP), R10
	MOVQ at+48(FP), BX
	MOVQ keys+56(FP), R11
	MOVQ x+64(FP), R12
	MOVQ y+72(FP), R13
	MOVQ in+80(FP), R15
	XORQ AX, AX
	TESTQ CX, CX
	JLE takedone

takeloop:
	VBROADCASTSD (SI)(AX*8), Z1
	VBROADCASTSD (DI)(AX*8), Z2
	VMOVSD X1, (R12)(BX*8)
	VMOVSD X2, (R13)(BX*8)
	MASKS_TEST
	KMOVW K3, DX
	MOVW DX, (R15)(BX*2)
	MOVLQSX (R10)(AX*4), DX
	SHLQ $1, DX
	VPBROADCASTQ DX, Z7
	VPORQ Z17, Z7, K3, Z7
	VPMAXSQ Z7, Z18, K1, Z18
	VPADDQ Z17, Z19, K3, Z19
	MOVLQZX (R9)(AX*4), DX
	SHLQ $32, DX
	ORQ BX, DX
	MOVQ DX, (R11)(BX*8)
	KORTESTW K3, K3
	SETNE DX
	MOVBQZX DX, DX
	ADDQ DX, BX
	INCQ AX
	CMPQ AX, CX
	JL takeloop

takedone:
	MOVQ last+88(FP), DX
	VMOVDQU64 Z18, (DX)
	MOVQ counts+96(FP), DX
	VMOVDQU64 Z19, (DX)
	MOVQ BX, ret+104(FP)
	VZEROUPPER
	RET
