#include "textflag.h"

// windowKernel's offsets (window_amd64.go).
#define K_XS 0
#define K_A 8
#define K_B 16
#define K_CNT 24
#define K_MAXSTART 32
#define K_HALF 40
#define K_Y 48
#define K_R1S 56
#define K_X0 64
#define K_INV 72
#define K_SQ 80
#define K_R2S 88
#define K_R12S 96
#define K_INF 104
#define K_NINF 112
#define K_ABS 120
#define K_STAT 128

// MASK sets M to gdal's test for the 4 nodes at off(R8)(BX*8): |dx| <= sq and
// (r2s*dx)*dx + ty <= r12s, dx = sx - x, each operation rounded as windowRange rounds it.
#define MASK(off, M) \
	VSUBPD off(R8)(BX*8), Y6, Y12; \
	VANDPD Y3, Y12, Y13; \
	VCMPPD $2, Y0, Y13, M; \
	VMULPD Y1, Y12, Y13; \
	VMULPD Y12, Y13, Y13; \
	VADDPD Y7, Y13, Y13; \
	VCMPPD $2, Y2, Y13, Y14; \
	VANDPD Y14, M, M

// COUNT adds 1 to the counts of the 4 nodes at off(R11)(BX*8) whose lane of M is set.
#define COUNT(off, M) \
	VMOVDQU off(R11)(BX*8), Y12; \
	VPSUBQ M, Y12, Y12; \
	VMOVDQU Y12, off(R11)(BX*8)

// SUM adds Y7 (the value) to the sums at off(R9)(BX*8) where M is set, +0 elsewhere.
#define SUM(off, M) \
	VANDPD M, Y7, Y12; \
	VADDPD off(R9)(BX*8), Y12, Y12; \
	VMOVUPD Y12, off(R9)(BX*8)

// LOWER takes Y7 into the minima at off(R9)(BX*8) where M is set (+Inf elsewhere).
#define LOWER(off, M) \
	VBLENDVPD M, Y7, Y4, Y12; \
	VMINPD off(R9)(BX*8), Y12, Y12; \
	VMOVUPD Y12, off(R9)(BX*8)

// RAISE takes Y7 into the maxima at off(R10)(BX*8) where M is set (-Inf elsewhere).
#define RAISE(off, M) \
	VBLENDVPD M, Y7, Y5, Y12; \
	VMAXPD off(R10)(BX*8), Y12, Y12; \
	VMOVUPD Y12, off(R10)(BX*8)

// DIST adds sqrt(dx*dx + dy*dy) (dy*dy in Y7) to the sums at off(R9)(BX*8) where M is set.
#define DIST(off, M) \
	VSUBPD off(R8)(BX*8), Y6, Y12; \
	VMULPD Y12, Y12, Y12; \
	VADDPD Y7, Y12, Y12; \
	VSQRTPD Y12, Y12; \
	VANDPD M, Y12, Y12; \
	VADDPD off(R9)(BX*8), Y12, Y12; \
	VMOVUPD Y12, off(R9)(BX*8)

// func windowAVX2(k *windowKernel, px, py, pz *float64, j, n int) int
//
// Adds samples j, j+1, ... of px, py, pz (values; unused for count and average_distance) to
// the run's nodes as windowRange does, each to the 16 nodes from its guessed place less
// k.half, and returns the first sample it cannot take that way (n when none): one whose
// nodes may reach beyond those 16, which the caller then adds itself. Registers: R13 k, SI px,
// DI py, DX pz, AX j, CX n, R8 xs, R9 a, R10 b, R11 counts, R12 the last start, BX the start.
TEXT ·windowAVX2(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), R13
	MOVQ px+8(FP), SI
	MOVQ py+16(FP), DI
	MOVQ pz+24(FP), DX
	MOVQ j+32(FP), AX
	MOVQ n+40(FP), CX
	MOVQ K_XS(R13), R8
	MOVQ K_A(R13), R9
	MOVQ K_B(R13), R10
	MOVQ K_CNT(R13), R11
	MOVQ K_MAXSTART(R13), R12
	VBROADCASTSD K_SQ(R13), Y0
	VBROADCASTSD K_R2S(R13), Y1
	VBROADCASTSD K_R12S(R13), Y2
	VBROADCASTSD K_ABS(R13), Y3
	VBROADCASTSD K_INF(R13), Y4
	VBROADCASTSD K_NINF(R13), Y5
	JMP test

next:
	INCQ AX
test:
	CMPQ AX, CX
	JGE done
	VMOVSD (DI)(AX*8), X9
	VSUBSD K_Y(R13), X9, X9        // dy
	VANDPD X3, X9, X10
	VUCOMISD X10, X0               // |dy| <= sq, else no node
	JB next
	VMOVSD K_R1S(R13), X11
	VMULSD X9, X11, X11
	VMULSD X9, X11, X11            // ty = (r1s*dy)*dy
	VUCOMISD X11, X2               // ty <= r12s, else no node
	JB next
	VMOVSD (SI)(AX*8), X6          // sx
	VSUBSD K_X0(R13), X6, X12
	VMULSD K_INV(R13), X12, X12
	VCVTTSD2SIQ X12, BX
	SUBQ K_HALF(R13), BX           // the start, clamped to [0, maxStart]
	XORQ R14, R14
	TESTQ BX, BX
	CMOVQLT R14, BX
	CMPQ BX, R12
	CMOVQGT R12, BX
	// The first node right of the sample and the one before it must lie in the window (or
	// the window at the run's end): the nodes that pass are one run holding one of them.
	TESTQ BX, BX
	JEQ leftok
	VUCOMISD (R8)(BX*8), X6        // x[start] <= sx
	JB bail
leftok:
	CMPQ BX, R12
	JEQ rightok
	VUCOMISD 120(R8)(BX*8), X6     // sx < x[start+15]
	JAE bail
rightok:
	VBROADCASTSD X6, Y6
	VBROADCASTSD X11, Y7
	MASK(0, Y8)
	MASK(32, Y9)
	MASK(64, Y10)
	MASK(96, Y11)
	// The window's end nodes must fail (unless at the run's end): then so do all beyond.
	TESTQ BX, BX
	JEQ firstok
	VMOVMSKPD Y8, R14
	TESTQ $1, R14
	JNE bail
firstok:
	CMPQ BX, R12
	JEQ lastok
	VMOVMSKPD Y11, R14
	TESTQ $8, R14
	JNE bail
lastok:
	COUNT(0, Y8)
	COUNT(32, Y9)
	COUNT(64, Y10)
	COUNT(96, Y11)
	MOVQ K_STAT(R13), R14
	CMPQ R14, $5
	JEQ distance
	CMPQ R14, $1
	JEQ next                       // count
	VBROADCASTSD (DX)(AX*8), Y7    // the value
	CMPQ R14, $0
	JEQ average
	CMPQ R14, $3
	JEQ maximum
	LOWER(0, Y8)
	LOWER(32, Y9)
	LOWER(64, Y10)
	LOWER(96, Y11)
	CMPQ R14, $4
	JNE next                       // minimum; range goes on
maximum:
	RAISE(0, Y8)
	RAISE(32, Y9)
	RAISE(64, Y10)
	RAISE(96, Y11)
	JMP next
average:
	SUM(0, Y8)
	SUM(32, Y9)
	SUM(64, Y10)
	SUM(96, Y11)
	JMP next
distance:
	VMOVSD (DI)(AX*8), X12
	VSUBSD K_Y(R13), X12, X12      // dy again
	VMULSD X12, X12, X12
	VBROADCASTSD X12, Y7           // dy*dy
	DIST(0, Y8)
	DIST(32, Y9)
	DIST(64, Y10)
	DIST(96, Y11)
	JMP next

bail:
done:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
