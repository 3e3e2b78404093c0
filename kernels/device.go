//go:build cuda

package kernels

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/aidw/aidw/kernels/cuda"
)

//go:embed aidw.ptx
var embeddedPTX string

// Open opens device ordinal with the kernels loaded: the embedded PTX, or the file named by
// AIDW_PTX. It fails when no device answers or the driver cannot compile the PTX.
func Open(ordinal int) (*cuda.Device, error) {
	src, origin := embeddedPTX, "the embedded PTX"
	if path := os.Getenv("AIDW_PTX"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading AIDW_PTX: %w", err)
		}
		src, origin = string(b), path
	}
	return cuda.Open(ordinal, src, origin)
}
