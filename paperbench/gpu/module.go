//go:build cuda

package gpu

import (
	_ "embed"

	"github.com/aidw/aidw/kernels/cuda"
)

// paperPTX is the papers' kernels, a module of their own beside the engine's (paper.cu;
// scripts/gen-ptx.sh writes it): PTX only, which the driver compiles for the GPU at the first
// load on a host and caches.
//
//go:embed paper.ptx
var paperPTX string

// Load loads the papers' kernels onto d, a device the engine opened (kernels.Open), whose own
// kernels the even-grid version and the two-pass bounding box run.
func Load(d *cuda.Device) error { return d.Load(paperPTX, "the papers' embedded PTX") }
