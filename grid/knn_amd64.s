#include "textflag.h"

// Registers of both kernels:
//   Z0, Z1  the lanes' D2, lanes 0-7 and 8-15     Z2, Z3  their IDs (int64)
//   Z4, Z5  qx, qy     Z6, Z7  sx, sy             Z8  the k-th lane's D2, broadcast
//   Z9      k-1 in every lane: the index that picks the k-th lane out of Z0:Z1
//   SI, DI  x, y    R8  ids    R9  n    AX  the first sample of the block    K7  its lanes

// LOADQUERY loads the query and the lanes.
#define LOADQUERY \
	MOVQ q+32(FP), R10; \
	MOVQ l+40(FP), R11; \
	VBROADCASTSD 0(R10), Z4; \
	VBROADCASTSD 8(R10), Z5; \
	VBROADCASTSD 16(R10), Z6; \
	VBROADCASTSD 24(R10), Z7; \
	VPBROADCASTQ 32(R10), Z9; \
	VMOVUPD 0(R11), Z0; \
	VMOVUPD 64(R11), Z1; \
	VMOVDQU64 128(R11), Z2; \
	VMOVDQU64 192(R11), Z3; \
	VMOVDQA64 Z9, Z8; \
	VPERMI2PD Z1, Z0, Z8; \
	XORQ AX, AX

// BLOCKMASK sets K7 to the lanes of the block at AX: 8, or the n-AX left. It jumps to done
// when none are left.
#define BLOCKMASK(done) \
	MOVQ R9, CX; \
	SUBQ AX, CX; \
	JLE done; \
	MOVL $0xff, BX; \
	CMPQ CX, $8; \
	JAE 4(PC); \
	MOVL $1, BX; \
	SHLL CX, BX; \
	DECL BX; \
	KMOVW BX, K7

// OFFER inserts the block's samples with d2 (Z10) <= the k-th D2 into the lanes, then jumps
// to next. Each candidate (d, id) goes where the lanes greater than it begin, by (D2, ID):
// those lanes move up one, the last falling out, by two masked moves. A candidate no less
// than the k-th lane changes only the lanes beyond k, which are never read.
#define OFFER(next, each) \
	VCMPPD $2, Z8, Z10, K7, K1; \
	KORTESTW K1, K1; \
	JZ next; \
	VMOVDQU32 (R8)(AX*4), K7, Z12; \
	VPMOVSXDQ Y12, Z12; \
	VCOMPRESSPD Z10, K1, Z13; \
	VPCOMPRESSQ Z12, K1, Z14; \
	KMOVW K1, DX; \
	POPCNTL DX, DX; \
each: \
	VBROADCASTSD X13, Z21; \
	VPBROADCASTQ X14, Z22; \
	VCMPPD $14, Z21, Z0, K2; \
	VCMPPD $0, Z21, Z0, K3; \
	VPCMPGTQ Z22, Z2, K3, K3; \
	KORW K3, K2, K2; \
	VCMPPD $14, Z21, Z1, K4; \
	VCMPPD $0, Z21, Z1, K5; \
	VPCMPGTQ Z22, Z3, K5, K5; \
	KORW K5, K4, K4; \
	KUNPCKBW K2, K4, K5; \
	KMOVW K5, BX; \
	MOVL BX, CX; \
	NEGL CX; \
	ANDL BX, CX; \
	VALIGNQ $7, Z0, Z0, Z17; \
	VALIGNQ $7, Z0, Z1, Z18; \
	VALIGNQ $7, Z2, Z2, Z19; \
	VALIGNQ $7, Z2, Z3, Z20; \
	VMOVAPD Z17, K2, Z0; \
	VMOVAPD Z18, K4, Z1; \
	VMOVDQA64 Z19, K2, Z2; \
	VMOVDQA64 Z20, K4, Z3; \
	KMOVW CX, K6; \
	VMOVAPD Z21, K6, Z0; \
	VMOVDQA64 Z22, K6, Z2; \
	KSHIFTRW $8, K6, K6; \
	VMOVAPD Z21, K6, Z1; \
	VMOVDQA64 Z22, K6, Z3; \
	VALIGNQ $1, Z13, Z13, Z13; \
	VALIGNQ $1, Z14, Z14, Z14; \
	DECL DX; \
	JNZ each; \
	VMOVDQA64 Z9, Z8; \
	VPERMI2PD Z1, Z0, Z8

// D2 sets Z10 to the squared distances of the samples at (Z10, Z11): dx = x*sx - qx,
// dy = y*sy - qy, dx*dx + dy*dy, each operation rounded.
#define D2 \
	VMULPD Z6, Z10, Z10; \
	VSUBPD Z4, Z10, Z10; \
	VMULPD Z7, Z11, Z11; \
	VSUBPD Z5, Z11, Z11; \
	VMULPD Z10, Z10, Z10; \
	VMULPD Z11, Z11, Z11; \
	VADDPD Z11, Z10, Z10

// STORELANES writes the lanes back.
#define STORELANES \
	VMOVUPD Z0, 0(R11); \
	VMOVUPD Z1, 64(R11); \
	VMOVDQU64 Z2, 128(R11); \
	VMOVDQU64 Z3, 192(R11); \
	VZEROUPPER

// func knnScan32AVX512(x, y, ids *int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan32AVX512(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), R9
	LOADQUERY

block32:
	BLOCKMASK(done32)
	VMOVDQU32 (SI)(AX*4), K7, Z10
	VMOVDQU32 (DI)(AX*4), K7, Z11
	VCVTDQ2PD Y10, Z10
	VCVTDQ2PD Y11, Z11
	D2
	OFFER(next32, each32)

next32:
	ADDQ $8, AX
	JMP block32

done32:
	STORELANES
	RET

// func knnScan64AVX512(x, y *float64, ids *int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan64AVX512(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), R9
	LOADQUERY

block64:
	BLOCKMASK(done64)
	VMOVUPD (SI)(AX*8), K7, Z10
	VMOVUPD (DI)(AX*8), K7, Z11
	D2
	OFFER(next64, each64)

next64:
	ADDQ $8, AX
	JMP block64

done64:
	STORELANES
	RET
