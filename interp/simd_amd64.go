package interp

import "golang.org/x/sys/cpu"

// haveAVX512 says whether the AVX-512 loops (invdist_amd64.s, aidw_amd64.s) can run: the CPU
// has AVX-512F and the OS saves its registers. Read once; the CPU does not change.
var haveAVX512 = cpu.X86.HasAVX512F

// haveAVX2FMA says whether the AVX2 loops (invdist_avx2_amd64.s) can run: the CPU has AVX2
// and FMA3 and the OS saves the ymm registers. They run only where haveAVX512 is false.
var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
