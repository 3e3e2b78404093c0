//go:build cuda

package kernels

import (
	"fmt"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
)

// chunker holds the device buffers of a chunk of nodes and runs the kernels on chunks.
type chunker struct {
	pp   *prepared
	size int // nodes per chunk
	list buf // int32 node indices within the block, when some are skipped
	// listed says whether the block being computed has a list: the buffer outlives it
	listed bool
	out    buf // float64 values
	// reach is the nodes' float64 reach (interp.Block.Reach), allocated for the first block
	// that asks; reaching: the block being computed asks
	reach    buf
	reaching bool
	host     []float64
	// global weighting
	f64                  bool         // the float64 weighting, else f32
	f32                  f32Weighting // the float32 weighting kernel
	nodesPerBlock        int          // nodes a block of the weighting kernel takes
	px, py, pc, pc0, pd2 buf          // float64 node constants (node_prep)
	hit                  buf          // int32 exact hits
	nearPos, nearD2      buf          // the nearCorr nearest: int32 positions, float64 d2
	partW, partWZ        buf          // float64 partial sums, splits x nodes
	partCap              int          // capacity of partW and partWZ, in elements
}

// perNodeGlobal is the device memory a node of the global weighting needs besides its partial
// sums: five float64 constants, its hit, its nearest samples, its value and its list entry.
const perNodeGlobal = 5*8 + 4 + nearCorr*12 + 8 + 4

// chunker returns the prepared problem's chunk buffers, sized for count nodes (or as many as
// a quarter of the free device memory holds), with list uploaded and, with reach, room for
// the nodes' reach (device thread only).
func (pp *prepared) chunker(count int, list []int32, reach bool) (*chunker, error) {
	renew := pp.c == nil
	if !renew {
		want, err := pp.c.want(count)
		if err != nil {
			return nil, err
		}
		renew = pp.c.size < want
	}
	if renew {
		if pp.c != nil {
			pp.c.free()
		}
		pp.c = &chunker{pp: pp}
		if err := pp.c.alloc(count); err != nil {
			pp.c.free()
			pp.c = nil
			return nil, err
		}
	}
	c := pp.c
	c.listed = list != nil
	c.reaching = reach
	if reach && c.reach.Bytes == 0 {
		var err error
		if c.reach, err = cuda.AllocN[float64](c.size); err != nil {
			return nil, err
		}
	}
	if list == nil {
		return c, nil
	}
	if len(c.host) < c.size {
		c.host = make([]float64, c.size)
	}
	if int64(4*len(list)) > c.list.Bytes {
		c.list.Free()
		var err error
		if c.list, err = cuda.AllocN[int32](len(list)); err != nil {
			return nil, err
		}
	}
	return c, cuda.Upload(c.list, list)
}

// take downloads n nodes' values of device buffer from (a chunk's, the first of them node
// first of the block) into dst, laid out as the block: in place, or through c.host to the
// places at of the list's nodes (see nodeList).
func (c *chunker) take(dst []float64, from buf, at []int32, first, n int) error {
	d := c.pp.e.dev
	if at == nil {
		return cuda.DownloadStaged(d, dst[first:first+n], from, 0)
	}
	if err := cuda.DownloadStaged(d, c.host[:n], from, 0); err != nil {
		return err
	}
	for j, v := range c.host[:n] {
		dst[at[first+j]] = v
	}
	return nil
}

// reached is the reach buffer the kernels write: the chunk's when the block asks, else none.
func (c *chunker) reached() buf {
	if !c.reaching {
		return buf{}
	}
	return c.reach
}

// nodes is the node list the kernels take: the block's, or none (every node of its rows).
func (c *chunker) nodes() buf {
	if !c.listed {
		return buf{}
	}
	return c.list
}

// want is how many of count nodes a chunk takes: all, or what a quarter of the free device
// memory holds (at least 65536), or the engine's cap.
func (c *chunker) want(count int) (int, error) {
	budget := int(cuda.FreeMemory() / 4)
	size := min(count, max(1<<16, budget/8))
	if c.pp.w.form == interp.DeviceGlobal {
		if err := c.pickKernel(); err != nil {
			return 0, err
		}
		size = min(count, max(1<<16, budget/perNodeGlobal))
		size = min(size, max(1<<16, budget/(perNodeGlobal+16*c.splits())))
	}
	if c.pp.e.chunkNodes > 0 {
		size = min(size, c.pp.e.chunkNodes)
	}
	return size, nil
}

func (c *chunker) alloc(count int) error {
	var err error
	if c.size, err = c.want(count); err != nil {
		return err
	}
	if c.out, err = cuda.AllocN[float64](c.size); err != nil {
		return err
	}
	if c.pp.w.form != interp.DeviceGlobal {
		return nil
	}
	for _, b := range []*buf{&c.px, &c.py, &c.pc, &c.pc0, &c.pd2} {
		if *b, err = cuda.AllocN[float64](c.size); err != nil {
			return err
		}
	}
	if c.hit, err = cuda.AllocN[int32](c.size); err != nil {
		return err
	}
	if c.nearPos, err = cuda.AllocN[int32](nearCorr * c.size); err != nil {
		return err
	}
	if c.nearD2, err = cuda.AllocN[float64](nearCorr * c.size); err != nil {
		return err
	}
	if c.pp.far != nil {
		return nil // the far field sums each node in one thread: no partial sums
	}
	c.partCap = c.splits() * c.size
	if c.partW, err = cuda.AllocN[float64](c.partCap); err != nil {
		return err
	}
	c.partWZ, err = cuda.AllocN[float64](c.partCap)
	return err
}

func (c *chunker) free() {
	cuda.FreeAll(&c.list, &c.out, &c.reach, &c.px, &c.py, &c.pc, &c.pc0, &c.pd2, &c.hit, &c.nearPos, &c.nearD2, &c.partW,
		&c.partWZ)
}

// pickKernel chooses the global weighting kernel: float32 unless the engine asks for float64
// or a power is beyond float32's safe range.
func (c *chunker) pickKernel() error {
	e := c.pp.e
	c.f64 = e.Float64 || c.pp.w.maxPower > maxPowerF32
	if c.f64 {
		c.f32, c.nodesPerBlock = f32Weighting{}, wf64Block
		return nil
	}
	c.f32 = f32Weightings[0]
	if e.f32Kernel != "" {
		found := false
		for _, w := range f32Weightings {
			if w.name == e.f32Kernel {
				c.f32, found = w, true
			}
		}
		if !found {
			return fmt.Errorf("no float32 weighting kernel %q", e.f32Kernel)
		}
	}
	c.nodesPerBlock = wf32Block * c.f32.npt
	return nil
}

// splits is how many sample ranges the global weighting is split into, each range at least
// four tiles long. It depends on the samples alone, never on the chunk or the device: the
// ranges are summed separately, and another split would round a node's sums otherwise, so a
// raster computed in other chunks or on several devices would differ in the last bits.
func (c *chunker) splits() int {
	return max(1, min(maxSplits, c.pp.ix.n/(4*wf32Tile)))
}

// run computes nodes first..first+n-1 of the block starting at row0 into c.out.
func (c *chunker) run(row0, first, n int) error {
	pp := c.pp
	d := pp.e.dev
	if isGDALForm(pp.w.form) {
		return c.runForm(row0, first, n)
	}
	k := kmax(pp.host.NQ)
	switch pp.w.form {
	case interp.DeviceNearest:
		return local(d, k, pp.prob, row0, first, n, c.nodes(), c.out, c.reached())
	case interp.DeviceRadius:
		return radius(d, k, pp.prob, row0, first, n, c.nodes(), c.out, c.reached())
	}
	if err := c.prepNodes(row0, first, n); err != nil {
		return err
	}
	if pp.far != nil {
		return farWeigh(d, pp.far.order, pp.prob, pp.far.tree, c.px, c.py, c.pc, c.pc0, c.hit, c.nearPos,
			c.nearD2, n, c.out)
	}
	return c.weighAll(row0*int(pp.host.TCols)+first, n)
}

// prepNodes runs node_prep: coordinates, power constants, exact hits and nearest samples of
// the chunk's nodes.
func (c *chunker) prepNodes(row0, first, n int) error {
	pp := c.pp
	return nodePrep(pp.e.dev, kmax(pp.host.NQ), pp.prob, row0, first, n, c.nodes(), c.px, c.py, c.pc, c.pc0, c.pd2,
		c.hit, c.nearPos, c.nearD2)
}

// weighAll runs the global weighting of the n prepared nodes, the first at raster index at, and
// writes their values.
func (c *chunker) weighAll(at, n int) error {
	pp := c.pp
	d := pp.e.dev
	if err := c.pickKernel(); err != nil {
		return err
	}
	s := c.splits() // partCap holds it for every chunk
	var err error
	lane := 0
	if c.f64 {
		err = weighF64(d, cuda.Blocks(n, c.nodesPerBlock), s, pp.prob, c.px, c.py, c.pc, c.pc0, n, c.partW, c.partWZ)
	} else {
		lane = at % c.nodesPerBlock
		err = weighF32(d, c.f32, s, pp.prob, pp.ix.s32, c.px, c.py, c.pc, c.pc0, c.pd2, n, lane, c.partW, c.partWZ)
	}
	if err != nil {
		return err
	}
	return weighFinish(d, pp.prob, c.partW, c.partWZ, c.hit, n, s, pp.ix.s32, c.px, c.py, c.pc, c.pc0, c.pd2,
		c.nearPos, c.nearD2, c.f32.npt, c.f32.npoly, lane, c.out)
}
