//go:build cuda

package kernels

import (
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
)

// What the papers' GPU experiments (paperbench/gpu) use of the engine's kernels: the two-pass
// bounding box, the problem the per-node kernels read, and the grid build. Device thread only.

// BBoxBlocks is how many blocks the two-pass bounding box of n samples uses: at most 4 per SM.
func BBoxBlocks(d *cuda.Device, n int) int { return max(1, min(cuda.Blocks(n, bboxBlock), 4*d.SMs())) }

// BBoxTwoPass is the grid build's bounding box of the n samples x, y: per-block boxes in part,
// then one block reduces them into part's four float64s from 4*BBoxBlocks(d, n) on.
func BBoxTwoPass(d *cuda.Device, x, y cuda.Buffer, n int, part cuda.Buffer) error {
	nb := BBoxBlocks(d, n)
	if err := bboxPartial(d, nb, x, y, n, part); err != nil {
		return err
	}
	return bboxFinal(d, part, nb, cuda.At[float64](part, 4*nb))
}

// UploadParams uploads the kernels' problem (struct Problem of knn.cuh) of the device
// parameters for n samples, without an index: what kernels that take the samples as arrays
// read (the papers' brute-force AIDW).
func UploadParams(d interp.DeviceParams, n int) (cuda.Buffer, error) {
	return cuda.UploadNew([]problem{weightingFrom(d, n).prob})
}

// Grid is samples indexed on the even grid on the device, with the problem that the per-node
// kernels read (struct Problem of knn.cuh).
type Grid struct {
	b    *builder
	prob cuda.Buffer
}

// BuildGrid builds the even grid of the n samples x, y, z already on the device (relative to
// the origin ox, oy) and uploads the problem of the device parameters, with the nodes of target t.
// The grid keeps its device memory until Free.
func BuildGrid(dev *cuda.Device, x, y, z cuda.Buffer, n int, d interp.DeviceParams, t raster.Target,
	ox, oy float64) (*Grid, error) {
	g := &Grid{b: newBuilder(dev)}
	ix, err := g.b.build(x, y, z, n)
	if err == nil {
		g.prob, err = cuda.UploadNew([]problem{deviceProblem(weightingFrom(d, n).prob, ix, t, ox, oy)})
	}
	if err != nil {
		g.Free()
		return nil, err
	}
	return g, nil
}

// Problem is the problem on the device, for the kernels' const Problem* parameter.
func (g *Grid) Problem() cuda.Buffer { return g.prob }

// Free frees the grid's device memory.
func (g *Grid) Free() {
	g.prob.Free()
	g.b.free()
}
