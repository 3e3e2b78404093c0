#include "textflag.h"

// HOLDS sets k to the samples (x in Z0, y in Z1) that the quad (minX, minY, maxX, maxY
// broadcast) holds, as quadRect.contains tests them.
#define HOLDS(minX, minY, maxX, maxY, k) \
	VCMPPD $13, minX, Z0, k; \
	VCMPPD $13, minY, Z1, k, k; \
	VCMPPD $2, maxX, Z0, k, k; \
	VCMPPD $2, maxY, Z1, k, k

// func quartersAVX512(x, y *float64, n int, quads *[4]quadRect, quarter *uint8, counts *[4][8]int64)
// quarterOf for 8 samples at a time (n a multiple of 8): quarter[k] is the first of the quads
// that holds sample k (4: none), and counts[j] counts in its 8 lanes the samples of quarter j.
TEXT ·quartersAVX512(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ quads+24(FP), R8
	MOVQ quarter+32(FP), R9
	MOVQ counts+40(FP), R10
	// each quad's minX, minY, maxX, maxY
	VBROADCASTSD 0(R8), Z16
	VBROADCASTSD 8(R8), Z17
	VBROADCASTSD 16(R8), Z18
	VBROADCASTSD 24(R8), Z19
	VBROADCASTSD 32(R8), Z20
	VBROADCASTSD 40(R8), Z21
	VBROADCASTSD 48(R8), Z22
	VBROADCASTSD 56(R8), Z23
	VBROADCASTSD 64(R8), Z24
	VBROADCASTSD 72(R8), Z25
	VBROADCASTSD 80(R8), Z26
	VBROADCASTSD 88(R8), Z27
	VBROADCASTSD 96(R8), Z28
	VBROADCASTSD 104(R8), Z29
	VBROADCASTSD 112(R8), Z30
	VBROADCASTSD 120(R8), Z31
	// the quarters' numbers 0 to 4
	VPXORQ Z7, Z7, Z7
	MOVQ $1, AX
	VPBROADCASTQ AX, Z9
	MOVQ $2, AX
	VPBROADCASTQ AX, Z10
	MOVQ $3, AX
	VPBROADCASTQ AX, Z11
	MOVQ $4, AX
	VPBROADCASTQ AX, Z12
	VMOVDQU64 0(R10), Z2
	VMOVDQU64 64(R10), Z3
	VMOVDQU64 128(R10), Z4
	VMOVDQU64 192(R10), Z5
	XORQ AX, AX
	TESTQ CX, CX
	JLE quartersdone

quartersloop:
	VMOVUPD (SI)(AX*8), Z0
	VMOVUPD (DI)(AX*8), Z1
	// K1 to K4: the quads that hold each sample, tested as quadRect.contains tests them
	HOLDS(Z16, Z17, Z18, Z19, K1)
	HOLDS(Z20, Z21, Z22, Z23, K2)
	HOLDS(Z24, Z25, Z26, Z27, K3)
	HOLDS(Z28, Z29, Z30, Z31, K4)
	// the first: 4, overwritten from the last quad to the first
	VMOVDQA64 Z12, Z6
	VMOVDQA64 Z11, K4, Z6
	VMOVDQA64 Z10, K3, Z6
	VMOVDQA64 Z9, K2, Z6
	VMOVDQA64 Z7, K1, Z6
	VPMOVQB Z6, X13
	MOVQ X13, (R9)(AX*1)
	VPCMPEQQ Z7, Z6, K5
	VPADDQ Z9, Z2, K5, Z2
	VPCMPEQQ Z9, Z6, K5
	VPADDQ Z9, Z3, K5, Z3
	VPCMPEQQ Z10, Z6, K5
	VPADDQ Z9, Z4, K5, Z4
	VPCMPEQQ Z11, Z6, K5
	VPADDQ Z9, Z5, K5, Z5
	ADDQ $8, AX
	CMPQ AX, CX
	JL quartersloop

quartersdone:
	VMOVDQU64 Z2, 0(R10)
	VMOVDQU64 Z3, 64(R10)
	VMOVDQU64 Z4, 128(R10)
	VMOVDQU64 Z5, 192(R10)
	VZEROUPPER
	RET
