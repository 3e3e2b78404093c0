//go:build cuda

package kernels

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/aidw/aidw/kernels/cuda"
)

// The kernels as the driver loads them: machine code for sm_80, sm_90 and sm_100 (a fatbin,
// loaded as is on GPUs of those major versions), and the PTX, compiled by the driver at first
// start on any other GPU (scripts/gen-ptx.sh writes both).
var (
	//go:embed aidw.fatbin
	embeddedFatbin string
	//go:embed aidw.ptx
	embeddedPTX string
)

// Open opens device ordinal with the kernels loaded: the embedded fatbin where it holds the
// device's machine code, else the embedded PTX; or the module file (PTX, cubin or fatbin)
// named by AIDW_PTX. It fails when no device answers or the driver cannot load the code.
func Open(ordinal int) (*cuda.Device, error) {
	if path := os.Getenv("AIDW_PTX"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading AIDW_PTX: %w", err)
		}
		return cuda.Open(ordinal, string(b), path)
	}
	if d, err := cuda.Open(ordinal, embeddedFatbin, "the embedded fatbin"); err == nil {
		return d, nil
	}
	return cuda.Open(ordinal, embeddedPTX, "the embedded PTX")
}
