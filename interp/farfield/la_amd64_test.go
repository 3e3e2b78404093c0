package farfield

import "testing"

// TestLinearAlgebraKernelsAVX2 is TestLinearAlgebraKernels on the AVX2 loops, so that they are
// tested on a CPU with AVX-512 too.
func TestLinearAlgebraKernelsAVX2(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA")
	}
	defer func(old bool) { haveAVX512 = old }(haveAVX512)
	haveAVX512 = false
	TestLinearAlgebraKernels(t)
}
