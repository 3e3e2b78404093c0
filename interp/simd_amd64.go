package interp

import "golang.org/x/sys/cpu"

// haveAVX512 says whether the AVX-512 loops (invdist_amd64.s, aidw_amd64.s) can run: the CPU
// has AVX-512F and the OS saves its registers. Read once; the CPU does not change.
var haveAVX512 = cpu.X86.HasAVX512F
