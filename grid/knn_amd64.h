// The kernels' common macro. Registers: R12, R13 the ranges left and their count; AX the first
// sample of the block, R9 the end of its range.

// NEXTRANGE sets AX and R9 to the next range's first sample and end; it jumps to done when
// none is left.
#define NEXTRANGE(done) \
	TESTQ R13, R13; \
	JZ done; \
	MOVLQSX 0(R12), AX; \
	MOVLQSX 4(R12), R9; \
	ADDQ $8, R12; \
	DECQ R13
