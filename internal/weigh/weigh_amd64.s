#include "textflag.h"

// KERNEL8 loads the tables and constants of the kernel at R8 into the registers WEIGHT8
// reads them from.
#define KERNEL8 \
	VMOVUPD 0(R8), Z6 /* invC[0:8] */ \
	VMOVUPD 64(R8), Z7 /* invC[8:16] */ \
	VMOVUPD 128(R8), Z16 /* log2C[0:8] */ \
	VMOVUPD 192(R8), Z17 /* log2C[8:16] */ \
	VMOVUPD 256(R8), Z18 /* exp2[0:8] */ \
	VMOVUPD 320(R8), Z19 /* exp2[8:16] */ \
	VBROADCASTSD 512(R8), Z20 /* 1 */ \
	VBROADCASTSD 520(R8), Z21 /* rounding shift */ \
	VBROADCASTSD 528(R8), Z22 /* minT */ \
	VBROADCASTSD 536(R8), Z23 /* 16 */ \
	VBROADCASTSD 544(R8), Z24 /* 1/16 */

// WEIGHT8 is the weight of 8 samples at squared distances Z8 from the node, into Z9:
// w = 2^max(c log2(d2) + c0, minT), c in Z2 and c0 in Z3, the tables and constants of the
// kernel held as KERNEL8 loads them; Z10-Z15 are its scratch.
#define WEIGHT8 \
	VGETEXPPD Z8, Z10 /* e */ \
	VGETMANTPD $0, Z8, Z11 /* m in [1,2) */ \
	VPSRLQ $48, Z11, Z12 /* j in the low 4 bits (VPERMI2PD ignores the rest) */ \
	VMOVDQA64 Z12, Z13 \
	VPERMI2PD Z7, Z6, Z12 /* invC[j] */ \
	VPERMI2PD Z17, Z16, Z13 /* log2C[j] */ \
	VFMSUB213PD Z20, Z12, Z11 /* r = m*invC[j] - 1 */ \
	VBROADCASTSD 384(R8), Z14 /* P(r) by Horner's rule */ \
	VFMADD213PD.BCST 392(R8), Z11, Z14 \
	VFMADD213PD.BCST 400(R8), Z11, Z14 \
	VFMADD213PD.BCST 408(R8), Z11, Z14 \
	VFMADD213PD.BCST 416(R8), Z11, Z14 \
	VFMADD213PD.BCST 424(R8), Z11, Z14 \
	VFMADD213PD.BCST 432(R8), Z11, Z14 \
	VFMADD213PD.BCST 440(R8), Z11, Z14 \
	VFMADD213PD.BCST 448(R8), Z11, Z14 \
	VADDPD Z10, Z13, Z13 \
	VFMADD231PD Z14, Z11, Z13 /* log2(d2) */ \
	VFMADD213PD Z3, Z2, Z13 /* t = c*log2(d2) + c0 */ \
	VMAXPD Z22, Z13, Z13 \
	VMULPD Z23, Z13, Z13 /* z = 16t */ \
	VADDPD Z21, Z13, Z14 /* round(z) in the low bits */ \
	VSUBPD Z21, Z14, Z15 /* round(z) */ \
	VSUBPD Z15, Z13, Z13 /* g */ \
	VBROADCASTSD 456(R8), Z9 /* Q(g) by Horner's rule */ \
	VFMADD213PD.BCST 464(R8), Z13, Z9 \
	VFMADD213PD.BCST 472(R8), Z13, Z9 \
	VFMADD213PD.BCST 480(R8), Z13, Z9 \
	VFMADD213PD.BCST 488(R8), Z13, Z9 \
	VFMADD213PD.BCST 496(R8), Z13, Z9 \
	VFMADD213PD.BCST 504(R8), Z13, Z9 \
	VPERMI2PD Z19, Z18, Z14 /* exp2[j'], j' = round(z) mod 16 */ \
	VMULPD Z14, Z9, Z9 \
	VMULPD Z24, Z15, Z15 /* round(z)/16, whose floor is q */ \
	VSCALEFPD Z15, Z9, Z9 /* w */

// func sumAVX512(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernel, acc *[24]float64)
//
// Per 8 samples: d2 = (x-xi)^2 + (y-yi)^2; log2(d2) = e + log2C[j] + r*P(r) with e and m from
// VGETEXPPD and VGETMANTPD, j the top 4 bits of m's mantissa, r = m*invC[j] - 1;
// t = max(c*log2(d2) + c0, minT); z = 16t = 16q + j' + g (q, j' integers, |g| <= 1/2);
// w = 2^q * exp2[j'] * Q(g); sums w and w*zi. The offsets into k follow kernel's layout.
TEXT ·sumAVX512(SB), NOSPLIT, $0-80
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD x+32(FP), Z0
	VBROADCASTSD y+40(FP), Z1
	VBROADCASTSD c+48(FP), Z2
	VBROADCASTSD c0+56(FP), Z3
	MOVQ k+64(FP), R8
	KERNEL8
	MOVQ acc+72(FP), R9
	VMOVUPD 0(R9), Z4           // sum of w, from the lanes carried in
	VMOVUPD 64(R9), Z5          // sum of w*z
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VSUBPD (SI)(AX*8), Z0, Z8
	VSUBPD (DI)(AX*8), Z1, Z9
	VMULPD Z8, Z8, Z8
	VFMADD231PD Z9, Z9, Z8      // d2
	WEIGHT8
	VADDPD Z9, Z4, Z4
	VFMADD231PD (DX)(AX*8), Z9, Z5
	ADDQ $8, AX
	JMP loop

done:
	VMOVUPD Z4, 0(R9)
	VMOVUPD Z5, 64(R9)
	VZEROUPPER
	RET

// func pairsAVX512(xs, ys, as, bs *float64, n int, x, y, c, hitD2 float64, k *kernel, acc *[24]float64)
//
// sumAVX512's loop with c0 = 0 and two sums, of w*a and w*b, from which the lanes of d2 <
// hitD2 are masked out; it also keeps each lane's least d2.
TEXT ·pairsAVX512(SB), NOSPLIT, $0-88
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ as+16(FP), DX
	MOVQ bs+24(FP), BX
	MOVQ n+32(FP), CX
	VBROADCASTSD x+40(FP), Z0
	VBROADCASTSD y+48(FP), Z1
	VBROADCASTSD c+56(FP), Z2
	VBROADCASTSD hitD2+64(FP), Z26
	VXORPD Z3, Z3, Z3           // c0 = 0
	MOVQ k+72(FP), R8
	KERNEL8
	VBROADCASTSD 552(R8), Z25   // least d2 so far: +inf
	VXORPD Z4, Z4, Z4           // sum of w*a
	VXORPD Z5, Z5, Z5           // sum of w*b
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VSUBPD (SI)(AX*8), Z0, Z8
	VSUBPD (DI)(AX*8), Z1, Z9
	VMULPD Z8, Z8, Z8
	VFMADD231PD Z9, Z9, Z8      // d2
	VMINPD Z8, Z25, Z25
	VCMPPD $13, Z26, Z8, K1     // lanes with d2 >= hitD2: the others are exact hits, left out
	WEIGHT8
	VFMADD231PD (DX)(AX*8), Z9, K1, Z4
	VFMADD231PD (BX)(AX*8), Z9, K1, Z5
	ADDQ $8, AX
	JMP loop

done:
	MOVQ acc+80(FP), R9
	VMOVUPD Z4, 0(R9)
	VMOVUPD Z5, 64(R9)
	VMOVUPD Z25, 128(R9)
	VZEROUPPER
	RET

// func sumAVX2(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernelAVX2, acc *[24]float64)
//
// sumAVX512's loop with AVX2 and FMA, which have neither VGETEXPPD, VGETMANTPD, VPERMI2PD nor
// VSCALEFPD, so no tables. Per 4 samples: d2 as before; e and m in [sqrt(1/2), sqrt 2) from
// d2's bits by integer adds and masks (see kernelAVX2); log2(d2) = e + s*Q(s^2), s =
// (m-1)/(m+1); t = max(c*log2(d2) + c0, minT) = round(t) + g, |g| <= 1/2; w = 2^round(t) *
// P(g), the power of 2 added to P(g)'s exponent bits (t <= 1000, as for fastmath.Exp2).
// Two groups of 4 samples (Y6-Y9, Y10-Y13) go through each iteration, their instructions
// interleaved, so that each group's long chain of dependent steps overlaps the other's (1.68
// ns a sample against 1.89 with one group). n is a multiple of 8. The offsets into k follow
// kernelAVX2's layout.
TEXT ·sumAVX2(SB), NOSPLIT, $0-80
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ zs+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD x+32(FP), Y0
	VBROADCASTSD y+40(FP), Y1
	VBROADCASTSD c+48(FP), Y2
	VBROADCASTSD c0+56(FP), Y3
	MOVQ k+64(FP), R8
	MOVQ acc+72(FP), R9
	VMOVUPD 0(R9), Y4                // sum of w, from the lanes carried in
	VMOVUPD 32(R9), Y5               // sum of w*z
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VSUBPD (SI)(AX*8), Y0, Y6
	VSUBPD 32(SI)(AX*8), Y0, Y10
	VSUBPD (DI)(AX*8), Y1, Y7
	VSUBPD 32(DI)(AX*8), Y1, Y11
	VMULPD Y6, Y6, Y6
	VMULPD Y10, Y10, Y10
	VFMADD231PD Y7, Y7, Y6           // d2
	VFMADD231PD Y11, Y11, Y10
	VPADDQ 0(R8), Y6, Y6             // d2's bits + offset
	VPADDQ 0(R8), Y10, Y10
	VPSRLQ $52, Y6, Y7               // e + 1023
	VPSRLQ $52, Y10, Y11
	VPOR 96(R8), Y7, Y7
	VPOR 96(R8), Y11, Y11
	VSUBPD 128(R8), Y7, Y7           // e
	VSUBPD 128(R8), Y11, Y11
	VPAND 32(R8), Y6, Y6
	VPAND 32(R8), Y10, Y10
	VPADDQ 64(R8), Y6, Y6            // m in [sqrt(1/2), sqrt 2)
	VPADDQ 64(R8), Y10, Y10
	VSUBPD 160(R8), Y6, Y8           // m - 1, exact
	VSUBPD 160(R8), Y10, Y12
	VADDPD 160(R8), Y6, Y6           // m + 1
	VADDPD 160(R8), Y10, Y10
	VDIVPD Y6, Y8, Y8                // s
	VDIVPD Y10, Y12, Y12
	VMULPD Y8, Y8, Y6                // s^2
	VMULPD Y12, Y12, Y10
	VMOVUPD 192(R8), Y9              // Q(s^2) by Horner's rule
	VMOVUPD 192(R8), Y13
	VFMADD213PD 224(R8), Y6, Y9
	VFMADD213PD 224(R8), Y10, Y13
	VFMADD213PD 256(R8), Y6, Y9
	VFMADD213PD 256(R8), Y10, Y13
	VFMADD213PD 288(R8), Y6, Y9
	VFMADD213PD 288(R8), Y10, Y13
	VFMADD213PD 320(R8), Y6, Y9
	VFMADD213PD 320(R8), Y10, Y13
	VFMADD213PD 352(R8), Y6, Y9
	VFMADD213PD 352(R8), Y10, Y13
	VFMADD213PD 384(R8), Y6, Y9
	VFMADD213PD 384(R8), Y10, Y13
	VFMADD231PD Y9, Y8, Y7           // log2(d2) = e + s*Q(s^2)
	VFMADD231PD Y13, Y12, Y11
	VFMADD213PD Y3, Y2, Y7           // t = c*log2(d2) + c0
	VFMADD213PD Y3, Y2, Y11
	VMAXPD 448(R8), Y7, Y7
	VMAXPD 448(R8), Y11, Y11
	VADDPD 416(R8), Y7, Y8           // round(t) in the low bits
	VADDPD 416(R8), Y11, Y12
	VSUBPD 416(R8), Y8, Y9           // round(t)
	VSUBPD 416(R8), Y12, Y13
	VSUBPD Y9, Y7, Y7                // g
	VSUBPD Y13, Y11, Y11
	VMOVUPD 480(R8), Y6              // P(g) by Horner's rule
	VMOVUPD 480(R8), Y10
	VFMADD213PD 512(R8), Y7, Y6
	VFMADD213PD 512(R8), Y11, Y10
	VFMADD213PD 544(R8), Y7, Y6
	VFMADD213PD 544(R8), Y11, Y10
	VFMADD213PD 576(R8), Y7, Y6
	VFMADD213PD 576(R8), Y11, Y10
	VFMADD213PD 608(R8), Y7, Y6
	VFMADD213PD 608(R8), Y11, Y10
	VFMADD213PD 640(R8), Y7, Y6
	VFMADD213PD 640(R8), Y11, Y10
	VFMADD213PD 672(R8), Y7, Y6
	VFMADD213PD 672(R8), Y11, Y10
	VFMADD213PD 704(R8), Y7, Y6
	VFMADD213PD 704(R8), Y11, Y10
	VFMADD213PD 736(R8), Y7, Y6
	VFMADD213PD 736(R8), Y11, Y10
	VFMADD213PD 768(R8), Y7, Y6
	VFMADD213PD 768(R8), Y11, Y10
	VFMADD213PD 800(R8), Y7, Y6
	VFMADD213PD 800(R8), Y11, Y10
	VPSLLQ $52, Y8, Y8               // round(t) in the exponent field, the shift's bits gone
	VPSLLQ $52, Y12, Y12
	VPADDQ Y8, Y6, Y6                // w = 2^round(t) * P(g)
	VPADDQ Y12, Y10, Y10
	VADDPD Y6, Y4, Y4
	VADDPD Y10, Y4, Y4
	VFMADD231PD (DX)(AX*8), Y6, Y5
	VFMADD231PD 32(DX)(AX*8), Y10, Y5
	ADDQ $8, AX
	JMP loop

done:
	VMOVUPD Y4, 0(R9)
	VMOVUPD Y5, 32(R9)
	VZEROUPPER
	RET

// func pairsAVX2(xs, ys, as, bs *float64, n int, x, y, c, hitD2 float64, k *kernelAVX2, acc *[24]float64)
//
// sumAVX2's loop with c0 = 0 and two sums, of w*a and w*b, from which the lanes of d2 <
// hitD2 are masked out (their w, whatever it came to, and'ed with the comparison's zeros);
// it also keeps each lane's least d2. Two groups of 4 samples need 5 registers each (Y3-Y7,
// Y8-Y12), so x, y, c and hitD2 are read from the frame, in all 4 lanes.
TEXT ·pairsAVX2(SB), NOSPLIT, $128-88
	MOVQ xs+0(FP), SI
	MOVQ ys+8(FP), DI
	MOVQ as+16(FP), DX
	MOVQ bs+24(FP), BX
	MOVQ n+32(FP), CX
	VBROADCASTSD x+40(FP), Y0
	VMOVUPD Y0, 0(SP)
	VBROADCASTSD y+48(FP), Y0
	VMOVUPD Y0, 32(SP)
	VBROADCASTSD c+56(FP), Y0
	VMOVUPD Y0, 64(SP)
	VBROADCASTSD hitD2+64(FP), Y0
	VMOVUPD Y0, 96(SP)
	MOVQ k+72(FP), R8
	VXORPD Y0, Y0, Y0                // sum of w*a
	VXORPD Y1, Y1, Y1                // sum of w*b
	VMOVUPD 832(R8), Y2              // least d2 so far: +inf
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VMOVUPD (SI)(AX*8), Y3
	VMOVUPD 32(SI)(AX*8), Y8
	VSUBPD 0(SP), Y3, Y3
	VSUBPD 0(SP), Y8, Y8
	VMOVUPD (DI)(AX*8), Y4
	VMOVUPD 32(DI)(AX*8), Y9
	VSUBPD 32(SP), Y4, Y4
	VSUBPD 32(SP), Y9, Y9
	VMULPD Y3, Y3, Y3
	VMULPD Y8, Y8, Y8
	VFMADD231PD Y4, Y4, Y3           // d2
	VFMADD231PD Y9, Y9, Y8
	VMINPD Y3, Y2, Y2
	VMINPD Y8, Y2, Y2
	VCMPPD $13, 96(SP), Y3, Y7       // all ones where d2 >= hitD2: the others are exact hits
	VCMPPD $13, 96(SP), Y8, Y12
	VPADDQ 0(R8), Y3, Y3             // d2's bits + offset
	VPADDQ 0(R8), Y8, Y8
	VPSRLQ $52, Y3, Y4               // e + 1023
	VPSRLQ $52, Y8, Y9
	VPOR 96(R8), Y4, Y4
	VPOR 96(R8), Y9, Y9
	VSUBPD 128(R8), Y4, Y4           // e
	VSUBPD 128(R8), Y9, Y9
	VPAND 32(R8), Y3, Y3
	VPAND 32(R8), Y8, Y8
	VPADDQ 64(R8), Y3, Y3            // m in [sqrt(1/2), sqrt 2)
	VPADDQ 64(R8), Y8, Y8
	VSUBPD 160(R8), Y3, Y5           // m - 1, exact
	VSUBPD 160(R8), Y8, Y10
	VADDPD 160(R8), Y3, Y3           // m + 1
	VADDPD 160(R8), Y8, Y8
	VDIVPD Y3, Y5, Y5                // s
	VDIVPD Y8, Y10, Y10
	VMULPD Y5, Y5, Y3                // s^2
	VMULPD Y10, Y10, Y8
	VMOVUPD 192(R8), Y6              // Q(s^2) by Horner's rule
	VMOVUPD 192(R8), Y11
	VFMADD213PD 224(R8), Y3, Y6
	VFMADD213PD 224(R8), Y8, Y11
	VFMADD213PD 256(R8), Y3, Y6
	VFMADD213PD 256(R8), Y8, Y11
	VFMADD213PD 288(R8), Y3, Y6
	VFMADD213PD 288(R8), Y8, Y11
	VFMADD213PD 320(R8), Y3, Y6
	VFMADD213PD 320(R8), Y8, Y11
	VFMADD213PD 352(R8), Y3, Y6
	VFMADD213PD 352(R8), Y8, Y11
	VFMADD213PD 384(R8), Y3, Y6
	VFMADD213PD 384(R8), Y8, Y11
	VFMADD231PD Y6, Y5, Y4           // log2(d2) = e + s*Q(s^2)
	VFMADD231PD Y11, Y10, Y9
	VMULPD 64(SP), Y4, Y4            // t = c*log2(d2)
	VMULPD 64(SP), Y9, Y9
	VMAXPD 448(R8), Y4, Y4
	VMAXPD 448(R8), Y9, Y9
	VADDPD 416(R8), Y4, Y5           // round(t) in the low bits
	VADDPD 416(R8), Y9, Y10
	VSUBPD 416(R8), Y5, Y6           // round(t)
	VSUBPD 416(R8), Y10, Y11
	VSUBPD Y6, Y4, Y4                // g
	VSUBPD Y11, Y9, Y9
	VMOVUPD 480(R8), Y3              // P(g) by Horner's rule
	VMOVUPD 480(R8), Y8
	VFMADD213PD 512(R8), Y4, Y3
	VFMADD213PD 512(R8), Y9, Y8
	VFMADD213PD 544(R8), Y4, Y3
	VFMADD213PD 544(R8), Y9, Y8
	VFMADD213PD 576(R8), Y4, Y3
	VFMADD213PD 576(R8), Y9, Y8
	VFMADD213PD 608(R8), Y4, Y3
	VFMADD213PD 608(R8), Y9, Y8
	VFMADD213PD 640(R8), Y4, Y3
	VFMADD213PD 640(R8), Y9, Y8
	VFMADD213PD 672(R8), Y4, Y3
	VFMADD213PD 672(R8), Y9, Y8
	VFMADD213PD 704(R8), Y4, Y3
	VFMADD213PD 704(R8), Y9, Y8
	VFMADD213PD 736(R8), Y4, Y3
	VFMADD213PD 736(R8), Y9, Y8
	VFMADD213PD 768(R8), Y4, Y3
	VFMADD213PD 768(R8), Y9, Y8
	VFMADD213PD 800(R8), Y4, Y3
	VFMADD213PD 800(R8), Y9, Y8
	VPSLLQ $52, Y5, Y5               // round(t) in the exponent field, the shift's bits gone
	VPSLLQ $52, Y10, Y10
	VPADDQ Y5, Y3, Y3                // w = 2^round(t) * P(g)
	VPADDQ Y10, Y8, Y8
	VANDPD Y7, Y3, Y3
	VANDPD Y12, Y8, Y8
	VFMADD231PD (DX)(AX*8), Y3, Y0
	VFMADD231PD 32(DX)(AX*8), Y8, Y0
	VFMADD231PD (BX)(AX*8), Y3, Y1
	VFMADD231PD 32(BX)(AX*8), Y8, Y1
	ADDQ $8, AX
	JMP loop

done:
	MOVQ acc+80(FP), R9
	VMOVUPD Y0, 0(R9)
	VMOVUPD Y1, 32(R9)
	VMOVUPD Y2, 64(R9)
	VZEROUPPER
	RET
