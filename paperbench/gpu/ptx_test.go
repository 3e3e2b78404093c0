package gpu

import (
	"testing"

	"github.com/aidw/aidw/kernels/cuda"
)

// TestPTXMatchesSources checks that paper.ptx was generated from the CUDA sources as they are
// now: ptx.sum (written by scripts/gen-ptx.sh) must list paper.cu and every file it includes
// (the engine's headers among them) and the PTX, with their current SHA-256.
func TestPTXMatchesSources(t *testing.T) {
	for _, err := range cuda.CheckSums(".", "ptx.sum", []string{"paper.cu"}, "paper.ptx") {
		t.Error(err)
	}
}
