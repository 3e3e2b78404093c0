#include "textflag.h"

// func idw2Row4AVX2(xs, ys, zs *float64, n int, c *idw2RowConsts, acc *[32]float64)
//
// idw2RowAVX512 for CPUs with AVX2 and FMA but no AVX-512: 4 samples per instruction, and
// 4 nodes (c.nx[0:4], all at height c.y) per call, since 16 ymm registers hold the sums of 4
// nodes but not of 8. Per 4 samples: e = (yi-y)^2 + s2, once for the 4 nodes; d = (xi-x)^2 + e
// by one FMA; nodes go in pairs (0,1), (2,3) sharing one division: r = 1/(d*d'), 1/d = d'*r,
// 1/d' = d*r, as in idw2RowGo and idw2RowAVX512. n is a multiple of 4. acc receives the
// per-lane sums of z/d of node k at acc[4k:4k+4] and of 1/d at acc[16+4k:16+4k+4]. No
// exact-hit test: a node within 1e-13 of a sample gets a sum of weights of 1e13 or more (or
// NaN or Inf), which the caller checks.
TEXT ·idw2Row4AVX2(SB), NOSPLIT, $0-48
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), BX
	VMOVUPD 192(BX), Y14 // 1.0
	VXORPD Y4, Y4, Y4   // num, node 0
	VXORPD Y5, Y5, Y5   // num, node 1
	VXORPD Y6, Y6, Y6   // num, node 2
	VXORPD Y7, Y7, Y7   // num, node 3
	VXORPD Y8, Y8, Y8   // den, node 0
	VXORPD Y9, Y9, Y9   // den, node 1
	VXORPD Y10, Y10, Y10 // den, node 2
	VXORPD Y11, Y11, Y11 // den, node 3
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
