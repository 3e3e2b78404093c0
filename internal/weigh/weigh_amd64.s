#include "textflag.h"

// func sumAVX512(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernel, acc *[16]float64)
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
	VMOVUPD 0(R8), Z6           // invC[0:8]
	VMOVUPD 64(R8), Z7          // invC[8:16]
	VMOVUPD 128(R8), Z16        // log2C[0:8]
	VMOVUPD 192(R8), Z17        // log2C[8:16]
	VMOVUPD 256(R8), Z18        // exp2[0:8]
	VMOVUPD 320(R8), Z19        // exp2[8:16]
	VBROADCASTSD 512(R8), Z20   // 1
	VBROADCASTSD 520(R8), Z21   // rounding shift
	VBROADCASTSD 528(R8), Z22   // minT
	VBROADCASTSD 536(R8), Z23   // 16
	VBROADCASTSD 544(R8), Z24   // 1/16
	VXORPD Z4, Z4, Z4           // sum of w
	VXORPD Z5, Z5, Z5           // sum of w*z
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VSUBPD (SI)(AX*8), Z0, Z8
	VSUBPD (DI)(AX*8), Z1, Z9
	VMULPD Z8, Z8, Z8
	VFMADD231PD Z9, Z9, Z8      // d2
	VGETEXPPD Z8, Z10           // e
	VGETMANTPD $0, Z8, Z11      // m in [1,2)
	VPSRLQ $48, Z11, Z12        // j in the low 4 bits (VPERMI2PD ignores the rest)
	VMOVDQA64 Z12, Z13
	VPERMI2PD Z7, Z6, Z12       // invC[j]
	VPERMI2PD Z17, Z16, Z13     // log2C[j]
	VFMSUB213PD Z20, Z12, Z11   // r = m*invC[j] - 1
	VBROADCASTSD 384(R8), Z14   // P(r) by Horner's rule
	VFMADD213PD.BCST 392(R8), Z11, Z14
	VFMADD213PD.BCST 400(R8), Z11, Z14
	VFMADD213PD.BCST 408(R8), Z11, Z14
	VFMADD213PD.BCST 416(R8), Z11, Z14
	VFMADD213PD.BCST 424(R8), Z11, Z14
	VFMADD213PD.BCST 432(R8), Z11, Z14
	VFMADD213PD.BCST 440(R8), Z11, Z14
	VFMADD213PD.BCST 448(R8), Z11, Z14
	VADDPD Z10, Z13, Z13
	VFMADD231PD Z14, Z11, Z13   // log2(d2)
	VFMADD213PD Z3, Z2, Z13     // t = c*log2(d2) + c0
	VMAXPD Z22, Z13, Z13
	VMULPD Z23, Z13, Z13        // z = 16t
	VADDPD Z21, Z13, Z14        // round(z) in the low bits
	VSUBPD Z21, Z14, Z15        // round(z)
	VSUBPD Z15, Z13, Z13        // g
	VBROADCASTSD 456(R8), Z9    // Q(g) by Horner's rule
	VFMADD213PD.BCST 464(R8), Z13, Z9
	VFMADD213PD.BCST 472(R8), Z13, Z9
	VFMADD213PD.BCST 480(R8), Z13, Z9
	VFMADD213PD.BCST 488(R8), Z13, Z9
	VFMADD213PD.BCST 496(R8), Z13, Z9
	VFMADD213PD.BCST 504(R8), Z13, Z9
	VPERMI2PD Z19, Z18, Z14     // exp2[j'], j' = round(z) mod 16
	VMULPD Z14, Z9, Z9
	VMULPD Z24, Z15, Z15        // round(z)/16, whose floor is q
	VSCALEFPD Z15, Z9, Z9       // w
	VADDPD Z9, Z4, Z4
	VFMADD231PD (DX)(AX*8), Z9, Z5
	ADDQ $8, AX
	JMP loop

done:
	MOVQ acc+72(FP), R9
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
	VBROADCASTSD hitD2+64(FP), Z3
	MOVQ k+72(FP), R8
	VMOVUPD 0(R8), Z6           // invC[0:8]
	VMOVUPD 64(R8), Z7          // invC[8:16]
	VMOVUPD 128(R8), Z16        // log2C[0:8]
	VMOVUPD 192(R8), Z17        // log2C[8:16]
	VMOVUPD 256(R8), Z18        // exp2[0:8]
	VMOVUPD 320(R8), Z19        // exp2[8:16]
	VBROADCASTSD 512(R8), Z20   // 1
	VBROADCASTSD 520(R8), Z21   // rounding shift
	VBROADCASTSD 528(R8), Z22   // minT
	VBROADCASTSD 536(R8), Z23   // 16
	VBROADCASTSD 544(R8), Z24   // 1/16
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
	VCMPPD $13, Z3, Z8, K1      // lanes with d2 >= hitD2: the others are exact hits, left out
	VGETEXPPD Z8, Z10           // e
	VGETMANTPD $0, Z8, Z11      // m in [1,2)
	VPSRLQ $48, Z11, Z12        // j in the low 4 bits (VPERMI2PD ignores the rest)
	VMOVDQA64 Z12, Z13
	VPERMI2PD Z7, Z6, Z12       // invC[j]
	VPERMI2PD Z17, Z16, Z13     // log2C[j]
	VFMSUB213PD Z20, Z12, Z11   // r = m*invC[j] - 1
	VBROADCASTSD 384(R8), Z14   // P(r) by Horner's rule
	VFMADD213PD.BCST 392(R8), Z11, Z14
	VFMADD213PD.BCST 400(R8), Z11, Z14
	VFMADD213PD.BCST 408(R8), Z11, Z14
	VFMADD213PD.BCST 416(R8), Z11, Z14
	VFMADD213PD.BCST 424(R8), Z11, Z14
	VFMADD213PD.BCST 432(R8), Z11, Z14
	VFMADD213PD.BCST 440(R8), Z11, Z14
	VFMADD213PD.BCST 448(R8), Z11, Z14
	VADDPD Z10, Z13, Z13
	VFMADD231PD Z14, Z11, Z13   // log2(d2)
	VMULPD Z2, Z13, Z13         // t = c*log2(d2)
	VMAXPD Z22, Z13, Z13
	VMULPD Z23, Z13, Z13        // z = 16t
	VADDPD Z21, Z13, Z14        // round(z) in the low bits
	VSUBPD Z21, Z14, Z15        // round(z)
	VSUBPD Z15, Z13, Z13        // g
	VBROADCASTSD 456(R8), Z9    // Q(g) by Horner's rule
	VFMADD213PD.BCST 464(R8), Z13, Z9
	VFMADD213PD.BCST 472(R8), Z13, Z9
	VFMADD213PD.BCST 480(R8), Z13, Z9
	VFMADD213PD.BCST 488(R8), Z13, Z9
	VFMADD213PD.BCST 496(R8), Z13, Z9
	VFMADD213PD.BCST 504(R8), Z13, Z9
	VPERMI2PD Z19, Z18, Z14     // exp2[j'], j' = round(z) mod 16
	VMULPD Z14, Z9, Z9
	VMULPD Z24, Z15, Z15        // round(z)/16, whose floor is q
	VSCALEFPD Z15, Z9, Z9       // w
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
