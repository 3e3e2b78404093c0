#include "textflag.h"
#include "knn_amd64.h"

// The AVX2 kernels are knn_amd64.s's, 4 samples at a time: the same D2 (dx = x*sx - qx,
// dy = y*sy - qy, dx*dx + dy*dy, each operation rounded) and the same insertion (a candidate c
// turns lane i into c where lane i > c and into lane i-1 where lane i-1 > c, by D2 alone unless
// a lane's D2 equals c's, then by (D2, ID)). The 16 lanes take four ymm registers each of D2
// and ID, so, with 16 registers, the insertion moves them one register at a time, from the last.
//
// Registers:
//   Y0-Y3   the lanes' D2, lanes 0-3, 4-7, 8-11, 12-15      Y4-Y7   their IDs (int64)
//   Y8      the candidate's D2, broadcast           Y9      its ID
//   Y10-Y13 a register's lanes turned up one (VPERMQ), then moved up one (lane -1 below
//           every D2), D2 and ID, the two pairs taking turns
//   Y14, Y15 masks and scratch
//   SI, DI  x, y    R8  ids    R10  the query    R11  the lanes    R12, R13  the ranges left
//   AX      the first sample of the block    R9  the end of its range

// knnBelow4's lane 0 is a D2 below every D2: lane -1 of the insertion.
DATA knnBelow4<>+0(SB)/8, $(-1.0)
DATA knnBelow4<>+8(SB)/8, $(-1.0)
DATA knnBelow4<>+16(SB)/8, $(-1.0)
DATA knnBelow4<>+24(SB)/8, $(-1.0)
GLOBL knnBelow4<>(SB), RODATA|NOPTR, $32

// knnTail32<> and knnTail64<> are the masks of the first 1-3 lanes of a range's last block, as
// dwords and as qwords, at 16 and 32 bytes a count.
DATA knnTail32<>+16(SB)/4, $-1
DATA knnTail32<>+32(SB)/4, $-1
DATA knnTail32<>+36(SB)/4, $-1
DATA knnTail32<>+48(SB)/4, $-1
DATA knnTail32<>+52(SB)/4, $-1
DATA knnTail32<>+56(SB)/4, $-1
GLOBL knnTail32<>(SB), RODATA|NOPTR, $64
DATA knnTail64<>+32(SB)/8, $-1
DATA knnTail64<>+64(SB)/8, $-1
DATA knnTail64<>+72(SB)/8, $-1
DATA knnTail64<>+96(SB)/8, $-1
DATA knnTail64<>+104(SB)/8, $-1
DATA knnTail64<>+112(SB)/8, $-1
GLOBL knnTail64<>(SB), RODATA|NOPTR, $128

// LOADLANES2 loads the arguments and the lanes.
#define LOADLANES2 \
	MOVQ ranges+24(FP), R12; \
	MOVQ n+32(FP), R13; \
	MOVQ q+40(FP), R10; \
	MOVQ l+48(FP), R11; \
	VMOVUPD 0(R11), Y0; \
	VMOVUPD 32(R11), Y1; \
	VMOVUPD 64(R11), Y2; \
	VMOVUPD 96(R11), Y3; \
	VMOVDQU 128(R11), Y4; \
	VMOVDQU 160(R11), Y5; \
	VMOVDQU 192(R11), Y6; \
	VMOVDQU 224(R11), Y7

// STORED2 writes the lanes' D2 back, where the next block reads the k-th.
#define STORED2 \
	VMOVUPD Y0, 0(R11); \
	VMOVUPD Y1, 32(R11); \
	VMOVUPD Y2, 64(R11); \
	VMOVUPD Y3, 96(R11)

// STORELANES2 writes the lanes back.
#define STORELANES2 \
	STORED2; \
	VMOVDQU Y4, 128(R11); \
	VMOVDQU Y5, 160(R11); \
	VMOVDQU Y6, 192(R11); \
	VMOVDQU Y7, 224(R11); \
	VZEROUPPER

// BLOCK2 sets CX to the block's lane count (1-4) and DX to their bits, jumping to range when
// the range is done and to tail when fewer than 4 lanes are left.
#define BLOCK2(range, tail) \
	MOVQ R9, CX; \
	SUBQ AX, CX; \
	JLE range; \
	MOVL $15, DX; \
	CMPQ CX, $4; \
	JB tail

// D2Y sets Y10 to the squared distances of the samples at (Y10, Y11).
#define D2Y \
	VBROADCASTSD 16(R10), Y14; \
	VMULPD Y14, Y10, Y10; \
	VBROADCASTSD 0(R10), Y14; \
	VSUBPD Y14, Y10, Y10; \
	VBROADCASTSD 24(R10), Y14; \
	VMULPD Y14, Y11, Y11; \
	VBROADCASTSD 8(R10), Y14; \
	VSUBPD Y14, Y11, Y11; \
	VMULPD Y10, Y10, Y10; \
	VMULPD Y11, Y11, Y11; \
	VADDPD Y11, Y10, Y10

// GTD sets m to the lanes whose D2 d exceeds the candidate's.
#define GTD(d, id, m) \
	VCMPPD $14, Y8, d, m

// GTLEX sets m to the lanes (d, id) greater than the candidate by (D2, ID); Y15 is scratch.
#define GTLEX(d, id, m) \
	VCMPPD $0, Y8, d, m; \
	VPCMPGTQ Y9, id, Y15; \
	VANDPD Y15, m, m; \
	VCMPPD $14, Y8, d, Y15; \
	VORPD Y15, m, m

// PUT sets the lanes of (bd, bid) in mask m to (sd, sid).
#define PUT(m, sd, sid, bd, bid) \
	VBLENDVPD m, sd, bd, bd; \
	VBLENDVPD m, sid, bid, bid

// MOVE inserts the candidate into the register (bd, bid), given (sd, sid): its lanes turned up
// one, whose lane 0 it sets to the last lane of the register before.
#define MOVE(GT, bd, bid, sd, sid) \
	GT(bd, bid, Y14); \
	PUT(Y14, Y8, Y9, bd, bid); \
	GT(sd, sid, Y14); \
	PUT(Y14, sd, sid, bd, bid)

// STEP is MOVE for a register after the first, (pd, pid) the register before it, which it
// turns up one into (nd, nid) for the next STEP.
#define STEP(GT, bd, bid, sd, sid, pd, pid, nd, nid) \
	VPERMQ $0x93, pd, nd; \
	VPERMQ $0x93, pid, nid; \
	VBLENDPD $1, nd, sd, sd; \
	VBLENDPD $1, nid, sid, sid; \
	MOVE(GT, bd, bid, sd, sid)

// INSERT inserts the candidate into the lanes, from the last register to the first, each
// moved by the lanes it had before.
#define INSERT(GT) \
	VPERMQ $0x93, Y3, Y10; \
	VPERMQ $0x93, Y7, Y11; \
	STEP(GT, Y3, Y7, Y10, Y11, Y2, Y6, Y12, Y13); \
	STEP(GT, Y2, Y6, Y12, Y13, Y1, Y5, Y10, Y11); \
	STEP(GT, Y1, Y5, Y10, Y11, Y0, Y4, Y12, Y13); \
	VBLENDPD $1, knnBelow4<>(SB), Y12, Y12; \
	MOVE(GT, Y0, Y4, Y12, Y13)

// OFFER2 inserts the block's samples (d2 in Y10, lanes in DX) with d2 <= the k-th D2 into the
// lanes, then jumps to next.
#define OFFER2(next, each, tie, done) \
	MOVQ 32(R10), BX; \
	VBROADCASTSD (R11)(BX*8), Y14; \
	VCMPPD $2, Y14, Y10, Y14; \
	VMOVMSKPD Y14, BX; \
	ANDL BX, DX; \
	JZ next; \
	VMOVUPD Y10, 40(R10); \
each: \
	BSFL DX, CX; \
	VBROADCASTSD 40(R10)(CX*8), Y8; \
	ADDQ AX, CX; \
	MOVLQSX (R8)(CX*4), CX; \
	MOVQ CX, X9; \
	VPBROADCASTQ X9, Y9; \
	VCMPPD $0, Y8, Y0, Y14; \
	VCMPPD $0, Y8, Y1, Y15; \
	VORPD Y15, Y14, Y14; \
	VCMPPD $0, Y8, Y2, Y15; \
	VORPD Y15, Y14, Y14; \
	VCMPPD $0, Y8, Y3, Y15; \
	VORPD Y15, Y14, Y14; \
	VMOVMSKPD Y14, CX; \
	TESTL CX, CX; \
	JNZ tie; \
	INSERT(GTD); \
	JMP done; \
tie: \
	INSERT(GTLEX); \
done: \
	LEAL -1(DX), CX; \
	ANDL CX, DX; \
	JNZ each; \
	STORED2

// func knnScan32AVX2(x, y, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan32AVX2(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	LOADLANES2

range32:
	NEXTRANGE(done32)

block32:
	BLOCK2(range32, tail32)
	VCVTDQ2PD (SI)(AX*4), Y10
	VCVTDQ2PD (DI)(AX*4), Y11
	JMP loaded32

tail32:
	MOVQ CX, BX
	SHLQ $4, BX
	LEAQ knnTail32<>(SB), DX
	VMOVDQU (DX)(BX*1), X14
	VPMASKMOVD (SI)(AX*4), X14, X10
	VPMASKMOVD (DI)(AX*4), X14, X11
	VCVTDQ2PD X10, Y10
	VCVTDQ2PD X11, Y11
	MOVL $1, DX
	SHLL CX, DX
	DECL DX

loaded32:
	D2Y
	OFFER2(next32, each32, tie32, put32)

next32:
	ADDQ $4, AX
	JMP block32

done32:
	STORELANES2
	RET

// func knnScan64AVX2(x, y *float64, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)
TEXT ·knnScan64AVX2(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ ids+16(FP), R8
	LOADLANES2

range64:
	NEXTRANGE(done64)

block64:
	BLOCK2(range64, tail64)
	VMOVUPD (SI)(AX*8), Y10
	VMOVUPD (DI)(AX*8), Y11
	JMP loaded64

tail64:
	MOVQ CX, BX
	SHLQ $5, BX
	LEAQ knnTail64<>(SB), DX
	VMOVDQU (DX)(BX*1), Y14
	VMASKMOVPD (SI)(AX*8), Y14, Y10
	VMASKMOVPD (DI)(AX*8), Y14, Y11
	MOVL $1, DX
	SHLL CX, DX
	DECL DX

loaded64:
	D2Y
	OFFER2(next64, each64, tie64, put64)

next64:
	ADDQ $4, AX
	JMP block64

done64:
	STORELANES2
	RET
