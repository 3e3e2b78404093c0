#include "textflag.h"
#include "knn_amd64.h"

// knnBelow is a D2 below every D2: lane -1 of the insertion.
DATA knnBelow<>+0(SB)/8, $(-1.0)
GLOBL knnBelow<>(SB), RODATA|NOPTR, $8

// Registers of both kernels:
//   Z0, Z1  the lanes' D2, lanes 0-7 and 8-15     Z2, Z3  their IDs (int64)
//   Z4, Z5  qx, qy     Z6, Z7  sx, sy             Z8  the k-th lane's D2, broadcast
//   Z9      k-1 in every lane: the index that picks the k-th lane out of Z0:Z1
//   Z23     -1: the D2 of lane -1, below every lane
//   SI, DI  x, y    R8  ids    R12, R13  the ranges left and their count
//   AX      the first sample of the block    R9  the end of its range    K7  its lanes

// LOADQUERY loads the query and the lanes.
#define LOADQUERY \
	MOVQ ranges+24(FP), R12; \
	MOVQ n+32(FP), R13; \
	MOVQ q+40(FP), R10; \
	MOVQ l+48(FP), R11; \
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
	VBROADCASTSD knnBelow<>(SB), Z23

// BLOCKMASK sets K7 to the lanes of the block at AX: 8, or the R9-AX left. It jumps to
// range when none are left.
#define BLOCKMASK(range) \
	MOVQ R9, CX; \
	SUBQ AX, CX; \
	JLE range; \
	MOVL $0xff, BX; \
	CMPQ CX, $8; \
	JAE 4(PC); \
	MOVL $1, BX; \
	SHLL CX, BX; \
	DECL BX; \
	KMOVW BX, K7

// LEXGT sets k to the lanes where (d, id) > (Z21, Z22), ordered by D2 and then ID; K6 and K7
// are scratch (K7, the block's lanes, is read before the candidates are).
#define LEXGT(d, id, k) \
	VCMPPD $14, Z21, d, k; \
	VCMPPD $0, Z21, d, K6; \
	VPCMPGTQ Z22, id, K7; \
	KANDW K7, K6, K6; \
	KORW K6, k, k

// OFFER inserts the block's samples with d2 (Z10) <= the k-th D2 into the lanes, then jumps
// to next. A candidate c goes in as in a sorting network: lane i becomes c where lane i > c
// and lane i-1 where lane i-1 > c too (lane -1 is below every candidate), by (D2, ID), so the
// lanes from c's place on move up one and the last falls out; one no less than the k-th lane
// changes only the lanes beyond k, which are never read. The two masks come from the lanes
// before the move, so they do not wait for each other; where no lane's D2 equals c's, as
// nearly always, D2 alone orders them.
#define OFFER(next, each, tie, move) \
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
	VALIGNQ $7, Z23, Z0, Z17; \
	VALIGNQ $7, Z0, Z1, Z18; \
	VALIGNQ $7, Z2, Z2, Z19; \
	VALIGNQ $7, Z2, Z3, Z20; \
	VCMPPD $0, Z21, Z0, K2; \
	VCMPPD $0, Z21, Z1, K3; \
	KORTESTW K2, K3; \
	JNZ tie; \
	VCMPPD $14, Z21, Z0, K2; \
	VCMPPD $14, Z21, Z1, K3; \
	VCMPPD $14, Z21, Z17, K4; \
	VCMPPD $14, Z21, Z18, K5; \
	JMP move; \
tie: \
	LEXGT(Z0, Z2, K2); \
	LEXGT(Z1, Z3, K3); \
	LEXGT(Z17, Z19, K4); \
	LEXGT(Z18, Z20, K5); \
move: \
	VMOVAPD Z21, K2, Z0; \
	VMOVDQA64 Z22, K2, Z2; \
	VMOVAPD Z21, K3, Z1; \
	VMOVDQA64 Z22, K3, Z3; \
	VMOVAPD Z17, K4, Z0; \
	VMOVDQA64 Z19, K4, Z2; \
	VMOVAPD Z18, K5, Z1; \
	VMOVDQA64 Z20, K5, Z3; \
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

// func knnScan32AVX512(x, y, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan32AVX512(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	LOADQUERY

range32:
	NEXTRANGE(done32)

block32:
	BLOCKMASK(range32)
	VMOVDQU32 (SI)(AX*4), K7, Z10
	VMOVDQU32 (DI)(AX*4), K7, Z11
	VCVTDQ2PD Y10, Z10
	VCVTDQ2PD Y11, Z11
	D2
	OFFER(next32, each32, tie32, move32)

next32:
	ADDQ $8, AX
	JMP block32

done32:
	STORELANES
	RET

// func knnScan64AVX512(x, y *float64, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan64AVX512(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	LOADQUERY

range64:
	NEXTRANGE(done64)

block64:
	BLOCKMASK(range64)
	VMOVUPD (SI)(AX*8), K7, Z10
	VMOVUPD (DI)(AX*8), K7, Z11
	D2
	OFFER(next64, each64, tie64, move64)

next64:
	ADDQ $8, AX
	JMP block64

done64:
	STORELANES
	RET
