package kernels

import (
	"testing"

	"github.com/aidw/aidw/kernels/cuda"
)

// TestPTXMatchesSources checks that aidw.ptx and aidw.fatbin were generated from the CUDA
// sources as they are now: ptx.sum (written by scripts/gen-ptx.sh) must list aidw.cu and every
// file it includes, the PTX and the fatbin, with their current SHA-256.
func TestPTXMatchesSources(t *testing.T) {
	for _, err := range cuda.CheckSums(".", "ptx.sum", []string{"aidw.cu"}, "aidw.ptx", "aidw.fatbin") {
		t.Error(err)
	}
}
