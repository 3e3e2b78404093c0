//go:build cuda

package gpu

import (
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/kernels/cuda"
)

// Typed launchers of paper.cuh's kernels (device thread only): each passes its parameters in
// the kernel's order as the 8-byte values a launch passes.

// idw runs IDW kernel name (idwKernel) of method m on the n samples s and the m nodes nd.
func idw(d *cuda.Device, name string, m Method, s *points, n int, nd *points, nodes int, power float64) error {
	shape := cuda.Over(nodes, paperBlock)
	if m == CDP {
		shape = cuda.Shape{GX: nodes, GY: 1, Threads: cdpBlock}
	}
	return d.Launch(name, shape, cuda.Ptr(s.b[0]), cuda.Ptr(s.b[1]), cuda.Ptr(s.b[2]), cuda.Int(n),
		cuda.Ptr(nd.b[0]), cuda.Ptr(nd.b[1]), cuda.Ptr(nd.b[2]), cuda.Int(nodes), cuda.F64(power))
}

// aidw runs AIDW kernel name (aidwKernel) with problem prob on the n samples s0..s2 and the
// nodes n0..n2; alpha holds the nodes' powers for the even-grid kernels (null otherwise).
func aidw(d *cuda.Device, name string, prob, s0, s1, s2 cuda.Buffer, n int, n0, n1, n2 cuda.Buffer, nodes int,
	alpha cuda.Buffer) error {
	return d.Launch(name, cuda.Over(nodes, paperBlock), cuda.Ptr(prob), cuda.Ptr(s0), cuda.Ptr(s1), cuda.Ptr(s2),
		cuda.Int(n), cuda.Ptr(n0), cuda.Ptr(n1), cuda.Ptr(n2), cuda.Int(nodes), cuda.Ptr(alpha))
}

// gridAlpha runs aidw_grid_alpha: each node's power from the engine's kNN on the grid.
func gridAlpha(d *cuda.Device, prob, nx, ny cuda.Buffer, nodes int, alpha cuda.Buffer) error {
	return d.Launch("aidw_grid_alpha", cuda.Over(nodes, alphaBlock), cuda.Ptr(prob), cuda.Ptr(nx), cuda.Ptr(ny),
		cuda.Int(nodes), cuda.Ptr(alpha))
}

// bboxAtomic runs bbox_atomic on nb blocks.
func bboxAtomic(d *cuda.Device, nb int, x, y cuda.Buffer, n int, keys cuda.Buffer) error {
	return d.Launch("bbox_atomic", cuda.Shape{GX: nb, GY: 1, Threads: kernels.BBoxBlock}, cuda.Ptr(x), cuda.Ptr(y),
		cuda.Int(n), cuda.Ptr(keys))
}

// bboxRetire runs bbox_retire on nb blocks.
func bboxRetire(d *cuda.Device, nb int, x, y cuda.Buffer, n int, part, counter cuda.Buffer, out cuda.DevicePtr) error {
	return d.Launch("bbox_retire", cuda.Shape{GX: nb, GY: 1, Threads: kernels.BBoxBlock}, cuda.Ptr(x), cuda.Ptr(y),
		cuda.Int(n), cuda.Ptr(part), cuda.Ptr(counter), cuda.Addr(out))
}
