#include "textflag.h"

// func idw2Row4AVX2(xs, ys, zs *float64, n int, c *idw2RowConsts, acc *[32]float64)
//
// idw2RowAVX512 for CPUs with AVX2 and FMA but no AVX-512: 4 samples per instruction, and
// 4 nodes (c.nx[0:4], all at height c.y) per call, since 16 ymm registers hold the sums of 4
// nodes but not of 8. Per 4 samples: e = (yi-y)^2 + s2, once for the 4 nodes; d = (xi-x)^2 + e
// by one FMA; nodes go in pairs (0,1), (2,3) sharing one division: r = 1/(d*d'), 1/d = d'*r,
// 1/d' = d*r, as in idw2RowGo and idw2RowAVX512. n is a multiple of 4. The
// per-lane sums of z/d of node k, at acc[4k:4k+4], and of 1/d, at acc[16+4k:16+4k+4], start
// from acc and go back there. No
// exact-hit test: a node within 1e-13 of a sample gets a sum of weights of 1e13 or more (or
// NaN or Inf), which the caller checks.
TEXT ·idw2Row4AVX2(SB), NOSPLIT, $0-48
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), BX
	VMOVUPD 192(BX), Y14 // 1.0
	MOVQ acc+40(FP), R8
	VMOVUPD 0(R8), Y4
	VMOVUPD 32(R8), Y5
	VMOVUPD 64(R8), Y6
	VMOVUPD 96(R8), Y7
	VMOVUPD 128(R8), Y8
	VMOVUPD 160(R8), Y9
	VMOVUPD 192(R8), Y10
	VMOVUPD 224(R8), Y11
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VMOVUPD (SI)(AX*8), Y0  // xi
	VMOVUPD (DI)(AX*8), Y1
	VSUBPD 128(BX), Y1, Y1  // yi - y
	VMULPD Y1, Y1, Y1
	VADDPD 160(BX), Y1, Y1  // e = (yi-y)^2 + s2
	VMOVUPD (DX)(AX*8), Y2  // zi
	VSUBPD 0(BX), Y0, Y3    // xi - x0
	VFMADD213PD Y1, Y3, Y3  // d0
	VSUBPD 32(BX), Y0, Y12  // xi - x1
	VFMADD213PD Y1, Y12, Y12 // d1
	VMULPD Y3, Y12, Y13     // d0*d1
	VDIVPD Y13, Y14, Y13    // r
	VMULPD Y13, Y3, Y3      // 1/d1 = d0*r
	VMULPD Y13, Y12, Y12    // 1/d0 = d1*r
	VADDPD Y12, Y8, Y8
	VFMADD231PD Y2, Y12, Y4
	VADDPD Y3, Y9, Y9
	VFMADD231PD Y2, Y3, Y5
	VSUBPD 64(BX), Y0, Y3   // xi - x2
	VFMADD213PD Y1, Y3, Y3
	VSUBPD 96(BX), Y0, Y12  // xi - x3
	VFMADD213PD Y1, Y12, Y12
	VMULPD Y3, Y12, Y13
	VDIVPD Y13, Y14, Y13
	VMULPD Y13, Y3, Y3
	VMULPD Y13, Y12, Y12
	VADDPD Y12, Y10, Y10
	VFMADD231PD Y2, Y12, Y6
	VADDPD Y3, Y11, Y11
	VFMADD231PD Y2, Y3, Y7
	ADDQ $4, AX
	JMP loop

done:
	MOVQ acc+40(FP), BX
	VMOVUPD Y4, 0(BX)
	VMOVUPD Y5, 32(BX)
	VMOVUPD Y6, 64(BX)
	VMOVUPD Y7, 96(BX)
	VMOVUPD Y8, 128(BX)
	VMOVUPD Y9, 160(BX)
	VMOVUPD Y10, 192(BX)
	VMOVUPD Y11, 224(BX)
	VZEROUPPER
	RET

DATA idw2avx2consts<>+0(SB)/8, $1.0e-13
DATA idw2avx2consts<>+8(SB)/8, $1.0
GLOBL idw2avx2consts<>(SB), RODATA|NOPTR, $16

// func idw2AVX2(xs, ys, zs *float64, n int, x, y float64, acc *[16]float64) int
//
// idw2AVX512 for CPUs with AVX2 and FMA but no AVX-512: per 4 samples d = (x-xi)^2 + (y-yi)^2
// (the same operations as idw2AllGo, so the same exact-hit test), w = 1/d by VDIVPD (AVX2 has
// no double-precision reciprocal estimate; a float32 VRCPPS estimate and Newton steps came out
// slower than the division in the row kernel), num += zi*w, den += w. Two blocks of 4 per
// iteration, each with its own sums, which start from acc (num, den of the first block, then
// of the second) and go back there, except on a hit; n is a multiple of 8. It returns the start of the first block of 8
// samples holding one with d < 1e-13, or -1.
TEXT ·idw2AVX2(SB), NOSPLIT, $0-64
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD x+32(FP), Y0
	VBROADCASTSD y+40(FP), Y1
	VBROADCASTSD idw2avx2consts<>+0(SB), Y2
	VBROADCASTSD idw2avx2consts<>+8(SB), Y3
	MOVQ acc+48(FP), BX
	VMOVUPD 0(BX), Y4  // num, first block
	VMOVUPD 32(BX), Y5 // den, first block
	VMOVUPD 64(BX), Y6 // num, second block
	VMOVUPD 96(BX), Y7 // den, second block
	XORQ AX, AX

oneloop:
	CMPQ AX, CX
	JGE onedone
	VSUBPD (SI)(AX*8), Y0, Y8
	VSUBPD 32(SI)(AX*8), Y0, Y9
	VSUBPD (DI)(AX*8), Y1, Y10
	VSUBPD 32(DI)(AX*8), Y1, Y11
	VMULPD Y8, Y8, Y8
	VMULPD Y9, Y9, Y9
	VMULPD Y10, Y10, Y10
	VMULPD Y11, Y11, Y11
	VADDPD Y10, Y8, Y8 // d, first block
	VADDPD Y11, Y9, Y9 // d, second block
	VCMPPD $0x11, Y2, Y8, Y10 // d < 1e-13
	VCMPPD $0x11, Y2, Y9, Y11
	VORPD Y10, Y11, Y10
	VMOVMSKPD Y10, R8
	TESTQ R8, R8
	JNE onehit
	VDIVPD Y8, Y3, Y8 // w = 1/d
	VDIVPD Y9, Y3, Y9
	VADDPD Y8, Y5, Y5
	VADDPD Y9, Y7, Y7
	VFMADD231PD (DX)(AX*8), Y8, Y4
	VFMADD231PD 32(DX)(AX*8), Y9, Y6
	ADDQ $8, AX
	JMP oneloop

onedone:
	VMOVUPD Y4, 0(BX)
	VMOVUPD Y5, 32(BX)
	VMOVUPD Y6, 64(BX)
	VMOVUPD Y7, 96(BX)
	MOVQ $-1, ret+56(FP)
	VZEROUPPER
	RET

onehit:
	MOVQ AX, ret+56(FP)
	VZEROUPPER
	RET
