#include "textflag.h"

DATA idw2consts<>+0(SB)/8, $1.0e-13
DATA idw2consts<>+8(SB)/8, $1.0
GLOBL idw2consts<>(SB), RODATA|NOPTR, $16

// func idw2AVX512(xs, ys, zs *float64, n int, x, y float64, acc *[32]float64) int
//
// Per 8 samples: d = (x-xi)^2 + (y-yi)^2; r0 = rcp14(d); e = 1 - d*r0; w = r0 + r0*(e + e*e);
// num += zi*w; den += w. Two blocks of 8 per iteration, each with its own sums, which start
// from acc (num, den of the first block, then of the second) and go back there: a stream
// carries them from one run of samples to the next. On a hit acc is left as it was.
TEXT ·idw2AVX512(SB), NOSPLIT, $0-64
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD x+32(FP), Z0
	VBROADCASTSD y+40(FP), Z1
	VBROADCASTSD idw2consts<>+0(SB), Z2
	VBROADCASTSD idw2consts<>+8(SB), Z3
	MOVQ acc+48(FP), BX
	VMOVUPD 0(BX), Z4   // num, first block
	VMOVUPD 64(BX), Z5  // den, first block
	VMOVUPD 128(BX), Z6 // num, second block
	VMOVUPD 192(BX), Z7 // den, second block
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VSUBPD (SI)(AX*8), Z0, Z8
	VSUBPD 64(SI)(AX*8), Z0, Z9
	VSUBPD (DI)(AX*8), Z1, Z10
	VSUBPD 64(DI)(AX*8), Z1, Z11
	VMULPD Z8, Z8, Z8
	VMULPD Z9, Z9, Z9
	VMULPD Z10, Z10, Z10
	VMULPD Z11, Z11, Z11
	VADDPD Z10, Z8, Z8 // d, first block
	VADDPD Z11, Z9, Z9 // d, second block
	VCMPPD $0x11, Z2, Z8, K1
	VCMPPD $0x11, Z2, Z9, K2
	KORTESTW K1, K2
	JNE hit
	VRCP14PD Z8, Z12
	VRCP14PD Z9, Z13
	VMOVAPD Z12, Z14
	VMOVAPD Z13, Z15
	VFNMADD213PD Z3, Z8, Z14   // e = 1 - d*r0
	VFNMADD213PD Z3, Z9, Z15
	VFMADD213PD Z14, Z14, Z14  // e + e*e
	VFMADD213PD Z15, Z15, Z15
	VFMADD213PD Z12, Z12, Z14  // w = r0 + r0*(e + e*e)
	VFMADD213PD Z13, Z13, Z15
	VADDPD Z14, Z5, Z5
	VADDPD Z15, Z7, Z7
	VFMADD231PD (DX)(AX*8), Z14, Z4
	VFMADD231PD 64(DX)(AX*8), Z15, Z6
	ADDQ $16, AX
	JMP loop

done:
	VMOVUPD Z4, 0(BX)
	VMOVUPD Z5, 64(BX)
	VMOVUPD Z6, 128(BX)
	VMOVUPD Z7, 192(BX)
	MOVQ $-1, ret+56(FP)
	VZEROUPPER
	RET

hit:
	MOVQ AX, ret+56(FP)
	VZEROUPPER
	RET

// func idw2RowAVX512(xs, ys, zs *float64, n int, nx *[8]float64, y, s2 float64, acc *[128]float64)
//
// The same sums for 8 nodes of one row at once (x = nx[k], all at height y), with d the
// squared distance plus s2 (gdal's smoothing squared), n a multiple of 8: each sample is loaded
// once and (y-yi)^2 + s2 computed once for the 8; d = (x-xi)^2 + that by one FMA. Nodes go in pairs sharing one division: r = 1/(d*d'), 1/d = d'*r, 1/d' = d*r
// (within 2 ulps), which keeps the divider and the FMA pipes both busy and is exact enough.
// The per-lane sums of z/d of node k, at acc[8k:8k+8], and of 1/d, at acc[64+8k:64+8k+8],
// start from acc and go back there. There is no exact-hit test: a node within 1e-13 of a sample gets a sum
// of weights of 1e13 or more (or NaN or Inf), which the caller checks.
TEXT ·idw2RowAVX512(SB), NOSPLIT, $0-64
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ nx+32(FP), BX
	VBROADCASTSD y+40(FP), Z0
	VBROADCASTSD idw2consts<>+8(SB), Z1
	VBROADCASTSD 0(BX), Z24
	VBROADCASTSD 8(BX), Z25
	VBROADCASTSD 16(BX), Z26
	VBROADCASTSD 24(BX), Z27
	VBROADCASTSD 32(BX), Z28
	VBROADCASTSD 40(BX), Z29
	VBROADCASTSD 48(BX), Z30
	VBROADCASTSD 56(BX), Z31
	MOVQ acc+56(FP), BX
	VMOVUPD 0(BX), Z8
	VMOVUPD 64(BX), Z9
	VMOVUPD 128(BX), Z10
	VMOVUPD 192(BX), Z11
	VMOVUPD 256(BX), Z12
	VMOVUPD 320(BX), Z13
	VMOVUPD 384(BX), Z14
	VMOVUPD 448(BX), Z15
	VMOVUPD 512(BX), Z16
	VMOVUPD 576(BX), Z17
	VMOVUPD 640(BX), Z18
	VMOVUPD 704(BX), Z19
	VMOVUPD 768(BX), Z20
	VMOVUPD 832(BX), Z21
	VMOVUPD 896(BX), Z22
	VMOVUPD 960(BX), Z23
	XORQ AX, AX

rowloop:
	CMPQ AX, CX
	JGE rowdone
	VMOVUPD (SI)(AX*8), Z2     // xi
	VMOVUPD (DI)(AX*8), Z3
	VSUBPD Z0, Z3, Z3
	VMULPD Z3, Z3, Z3          // (yi-y)^2
	VADDPD.BCST s2+48(FP), Z3, Z3 // + s2
	VMOVUPD (DX)(AX*8), Z4     // zi
	VSUBPD Z24, Z2, Z5
	VFMADD213PD Z3, Z5, Z5
	VSUBPD Z25, Z2, Z6
	VFMADD213PD Z3, Z6, Z6
	VMULPD Z5, Z6, Z7          // d*d'
	VDIVPD Z7, Z1, Z7          // r
	VMULPD Z7, Z5, Z5          // 1/d' = d*r
	VMULPD Z7, Z6, Z6          // 1/d = d'*r
	VADDPD Z6, Z16, Z16
	VFMADD231PD Z4, Z6, Z8
	VADDPD Z5, Z17, Z17
	VFMADD231PD Z4, Z5, Z9
	VSUBPD Z26, Z2, Z5
	VFMADD213PD Z3, Z5, Z5
	VSUBPD Z27, Z2, Z6
	VFMADD213PD Z3, Z6, Z6
	VMULPD Z5, Z6, Z7
	VDIVPD Z7, Z1, Z7
	VMULPD Z7, Z5, Z5
	VMULPD Z7, Z6, Z6
	VADDPD Z6, Z18, Z18
	VFMADD231PD Z4, Z6, Z10
	VADDPD Z5, Z19, Z19
	VFMADD231PD Z4, Z5, Z11
	VSUBPD Z28, Z2, Z5
	VFMADD213PD Z3, Z5, Z5
	VSUBPD Z29, Z2, Z6
	VFMADD213PD Z3, Z6, Z6
	VMULPD Z5, Z6, Z7
	VDIVPD Z7, Z1, Z7
	VMULPD Z7, Z5, Z5
	VMULPD Z7, Z6, Z6
	VADDPD Z6, Z20, Z20
	VFMADD231PD Z4, Z6, Z12
	VADDPD Z5, Z21, Z21
	VFMADD231PD Z4, Z5, Z13
	VSUBPD Z30, Z2, Z5
	VFMADD213PD Z3, Z5, Z5
	VSUBPD Z31, Z2, Z6
	VFMADD213PD Z3, Z6, Z6
	VMULPD Z5, Z6, Z7
	VDIVPD Z7, Z1, Z7
	VMULPD Z7, Z5, Z5
	VMULPD Z7, Z6, Z6
	VADDPD Z6, Z22, Z22
	VFMADD231PD Z4, Z6, Z14
	VADDPD Z5, Z23, Z23
	VFMADD231PD Z4, Z5, Z15
	ADDQ $8, AX
	JMP rowloop

rowdone:
	MOVQ acc+56(FP), BX
	VMOVUPD Z8, 0(BX)
	VMOVUPD Z9, 64(BX)
	VMOVUPD Z10, 128(BX)
	VMOVUPD Z11, 192(BX)
	VMOVUPD Z12, 256(BX)
	VMOVUPD Z13, 320(BX)
	VMOVUPD Z14, 384(BX)
	VMOVUPD Z15, 448(BX)
	VMOVUPD Z16, 512(BX)
	VMOVUPD Z17, 576(BX)
	VMOVUPD Z18, 640(BX)
	VMOVUPD Z19, 704(BX)
	VMOVUPD Z20, 768(BX)
	VMOVUPD Z21, 832(BX)
	VMOVUPD Z22, 896(BX)
	VMOVUPD Z23, 960(BX)
	VZEROUPPER
	RET
