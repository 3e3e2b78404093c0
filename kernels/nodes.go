//go:build cuda

package kernels

import (
	"fmt"

	"gorgonia.org/cu"
)

// chunker holds the device buffers of a chunk of nodes and runs the kernels on chunks.
type chunker struct {
	pp   *prepared
	size int    // nodes per chunk
	list buffer // int32 node indices within the block, when some are skipped
	out  buffer // float64 values
	host []float64
	// global weighting
	kernel                 string // weighting kernel
	npt, npoly             int    // its nodes per thread and how many use ex2_poly
	nodesPerBlock, threads int
	px, py, pc, pc0, pd2   buffer // float64 node constants (node_prep)
	hit                    buffer // int32 exact hits
	nearPos, nearD2        buffer // the nearCorr nearest: int32 positions, float64 d2
	partW, partWZ          buffer // float64 partial sums, splits x nodes
	partCap                int    // capacity of partW and partWZ, in elements
}

// perNodeGlobal is the device memory a node of the global weighting needs besides its partial
// sums: five float64 constants, its hit, its nearest samples, its value and its list entry.
const perNodeGlobal = 5*8 + 4 + nearCorr*12 + 8 + 4

// chunker returns the prepared problem's chunk buffers, sized for count nodes (or as many as
// a quarter of the free device memory holds), with list uploaded (device thread only).
func (pp *prepared) chunker(count int, list []int32) (*chunker, error) {
	if pp.c == nil || pp.c.size < pp.c.want(count) {
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
	if list == nil {
		return c, nil
	}
	if int64(4*len(list)) > c.list.bytes {
		c.list.free()
		var err error
		if c.list, err = allocN[int32](len(list)); err != nil {
			return nil, err
		}
	}
	if len(c.host) < c.size {
		c.host = make([]float64, c.size)
	}
	return c, upload(c.list, list)
}

// want is how many of count nodes a chunk takes: all, or what a quarter of the free device
// memory holds (at least 65536), or the engine's cap.
func (c *chunker) want(count int) int {
	free, _, err := cu.MemInfo()
	if err != nil {
		free = 0
	}
	budget := int(free / 4)
	size := min(count, max(1<<16, budget/8))
	if c.pp.w.form == formGlobal {
		c.pickKernel()
		size = min(count, max(1<<16, budget/perNodeGlobal))
		size = min(size, max(1<<16, budget/(perNodeGlobal+16*c.splits(size))))
	}
	if c.pp.e.chunkNodes > 0 {
		size = min(size, c.pp.e.chunkNodes)
	}
	return size
}

func (c *chunker) alloc(count int) error {
	c.size = c.want(count)
	var err error
	if c.out, err = allocN[float64](c.size); err != nil {
		return err
	}
	if c.pp.w.form != formGlobal {
		return nil
	}
	for _, b := range []*buffer{&c.px, &c.py, &c.pc, &c.pc0, &c.pd2} {
		if *b, err = allocN[float64](c.size); err != nil {
			return err
		}
	}
	if c.hit, err = allocN[int32](c.size); err != nil {
		return err
	}
	if c.nearPos, err = allocN[int32](nearCorr * c.size); err != nil {
		return err
	}
	if c.nearD2, err = allocN[float64](nearCorr * c.size); err != nil {
		return err
	}
	c.partCap = c.splits(c.size) * c.size
	if c.partW, err = allocN[float64](c.partCap); err != nil {
		return err
	}
	c.partWZ, err = allocN[float64](c.partCap)
	return err
}

func (c *chunker) free() {
	freeAll(&c.list, &c.out, &c.px, &c.py, &c.pc, &c.pc0, &c.pd2, &c.hit, &c.nearPos, &c.nearD2, &c.partW,
		&c.partWZ)
}

// pickKernel chooses the global weighting kernel: float32 unless the engine asks for float64
// or a power is beyond float32's safe range.
func (c *chunker) pickKernel() {
	e := c.pp.e
	c.npt, c.npoly = 0, 0
	if e.Float64 || c.pp.w.maxPower > maxPowerF32 {
		c.kernel, c.nodesPerBlock, c.threads = "weigh_all_f64", wf64Block, wf64Block
		return
	}
	c.kernel = e.f32Kernel
	if c.kernel == "" {
		c.kernel = defaultF32Kernel
	}
	if c.kernel == "weigh_naive_f32" {
		c.npt, c.nodesPerBlock, c.threads = 1, wf32Block, wf32Block
		return
	}
	fmt.Sscanf(c.kernel, "weigh_all_f32_%d_%d", &c.npt, &c.npoly)
	c.nodesPerBlock, c.threads = wf32Block*max(c.npt, 1), wf32Block
}

// splits is how many sample ranges the global weighting of n nodes is split into: enough
// blocks to fill the device several times over, each range at least four tiles long.
func (c *chunker) splits(n int) int {
	d := c.pp.e.dev
	nodeBlocks := blocks(n, c.nodesPerBlock)
	s := blocks(8*d.sms, nodeBlocks)
	return max(1, min(s, maxSplits, c.pp.ix.n/(4*wf32Tile)))
}

// run computes nodes first..first+n-1 of the block starting at row0 into c.out.
func (c *chunker) run(row0, first, n int) error {
	pp := c.pp
	d := pp.e.dev
	k := kmax(pp.host.NQ)
	switch pp.w.form {
	case formNearest:
		return d.launch(fmt.Sprintf("local_%d", k), blocks(n, nodeBlock), 1, nodeBlock, pp.prob, row0, first, n,
			c.list, c.out)
	case formRadius:
		return d.launch(fmt.Sprintf("radius_%d", k), blocks(n, nodeBlock), 1, nodeBlock, pp.prob, row0, first, n,
			c.list, c.out)
	}
	if err := c.prepNodes(row0, first, n); err != nil {
		return err
	}
	return c.weighAll(n)
}

// prepNodes runs node_prep: coordinates, power constants, exact hits and nearest samples of
// the chunk's nodes.
func (c *chunker) prepNodes(row0, first, n int) error {
	pp := c.pp
	return pp.e.dev.launch(fmt.Sprintf("node_prep_%d", kmax(pp.host.NQ)), blocks(n, nodeBlock), 1, nodeBlock,
		pp.prob, row0, first, n, c.list, c.px, c.py, c.pc, c.pc0, c.pd2, c.hit, c.nearPos, c.nearD2)
}

// weighAll runs the global weighting of the n prepared nodes and writes their values.
func (c *chunker) weighAll(n int) error {
	pp := c.pp
	d := pp.e.dev
	c.pickKernel()
	s := max(1, min(c.splits(n), c.partCap/n))
	nb := blocks(n, c.nodesPerBlock)
	var err error
	if c.kernel == "weigh_all_f64" {
		err = d.launch(c.kernel, nb, s, c.threads, pp.prob, c.px, c.py, c.pc, c.pc0, n, c.partW, c.partWZ)
	} else {
		err = d.launch(c.kernel, nb, s, c.threads, pp.prob, pp.ix.s32, c.px, c.py, c.pc, c.pc0, c.pd2, n,
			c.partW, c.partWZ)
	}
	if err != nil {
		return err
	}
	return d.launch("weigh_finish", blocks(n, finishBlock), 1, finishBlock, pp.prob, c.partW, c.partWZ, c.hit,
		n, s, pp.ix.s32, c.px, c.py, c.pc, c.pc0, c.pd2, c.nearPos, c.nearD2, c.npt, c.npoly, c.out)
}
