package interp

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
)

// cpuAlgorithm is what an algorithm provides to run on the CPU engine: bind does the
// per-problem work (global statistics, triangulation, ...) and returns the function that
// computes one node.
type cpuAlgorithm interface {
	Algorithm
	bind(p *Problem, ix *grid.Index) (nodeFunc, error)
}

// nodeFunc computes the node at (x,y), relative to the samples' origin. sc is the calling
// worker's own scratch space, so a nodeFunc allocates nothing per node.
type nodeFunc func(sc *scratch, x, y float64) float64

// cpuBandsAlgorithm is what an algorithm with bands after its value (see BandNames) provides
// to run on the CPU engine: bindBands returns the function that computes every band of a node.
type cpuBandsAlgorithm interface {
	bindBands(p *Problem, ix *grid.Index) (bandsFunc, error)
}

// bandsFunc computes the node at (x,y) into out, one value per band, the value first.
type bandsFunc func(sc *scratch, x, y float64, out []float64)

// scratch is one worker's reusable buffers.
type scratch struct {
	nb  []grid.Neighbor
	ids []int32
	f   []float64
	// bands receives a multi-band node's values.
	bands []float64
	// held is 1 + the sample held out of the node's computation (leave-one-out
	// cross-validation, see LeaveOneOut), 0 for none, so that a zero scratch holds none out.
	held int32
}

// heldOut returns the sample held out of the node's computation, if any.
func (sc *scratch) heldOut() (int32, bool) { return sc.held - 1, sc.held > 0 }

// CPU is the engine that runs every algorithm on all CPU cores.
type CPU struct {
	// Threads is the number of workers; 0 means all cores.
	Threads int
}

// Name implements Engine.
func (c *CPU) Name() string { return "cpu" }

// Supports implements Engine: the CPU engine runs every algorithm.
func (c *CPU) Supports(a Algorithm) bool { _, ok := a.(cpuAlgorithm); return ok }

// Prepare builds the even-grid index and binds the algorithm to the problem.
func (c *CPU) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	alg, ok := p.Alg.(cpuAlgorithm)
	if !ok {
		return nil, fmt.Errorf("algorithm %s has no CPU implementation", p.Alg.Name())
	}
	ix := p.index()
	threads := c.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	cp := &cpuPrepared{p: p, threads: threads, nbands: len(BandNames(p.Alg))}
	var err error
	if cp.nbands == 1 {
		if cp.fn, err = alg.bind(p, ix); err != nil {
			return nil, err
		}
		return cp, nil
	}
	ba, ok := p.Alg.(cpuBandsAlgorithm)
	if !ok {
		return nil, fmt.Errorf("algorithm %s has no CPU implementation of its %d bands", p.Alg.Name(), cp.nbands)
	}
	if cp.bands, err = ba.bindBands(p, ix); err != nil {
		return nil, err
	}
	cp.fn = func(sc *scratch, x, y float64) float64 { return cp.node(sc, x, y)[0] }
	return cp, nil
}

type cpuPrepared struct {
	p       *Problem
	fn      nodeFunc
	threads int
	// bands computes every band of a multi-band algorithm (nbands > 1); fn is then its first.
	bands  bandsFunc
	nbands int
}

// node computes every band of the node at (x,y) into the worker's scratch.
func (c *cpuPrepared) node(sc *scratch, x, y float64) []float64 {
	if len(sc.bands) < c.nbands {
		sc.bands = make([]float64, c.nbands)
	}
	out := sc.bands[:c.nbands]
	c.bands(sc, x, y, out)
	return out
}

// chunkNodes is how many nodes a worker takes at a time: small enough to balance uneven
// neighbourhoods, large enough that the shared counter is not contended.
const chunkNodes = 256

// Compute fills the block with all workers pulling chunks of nodes from a shared counter.
func (c *cpuPrepared) Compute(ctx context.Context, b *Block) error {
	cols := c.p.Target.Cols
	if len(b.Extra) > 0 && len(b.Extra) != c.nbands-1 {
		return fmt.Errorf("block asks for %d bands after the value; %s gives %d", len(b.Extra), c.p.Alg.Name(), c.nbands-1)
	}
	return c.forEach(ctx, b.Rows*cols, func(sc *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			if b.Skip != nil && b.Skip[i] {
				continue
			}
			x, y := c.p.NodeXY(i%cols, b.Row0+i/cols)
			if len(b.Extra) == 0 {
				b.Values[i] = c.fn(sc, x, y)
				continue
			}
			out := c.node(sc, x, y)
			b.Values[i] = out[0]
			for k, band := range b.Extra {
				band[i] = out[k+1]
			}
		}
		b.report(hi - lo)
	})
}

// forEach runs chunk over nodes [0,n), all workers pulling runs of chunkNodes from a shared
// counter, each with its own scratch.
func (c *cpuPrepared) forEach(ctx context.Context, n int, chunk func(sc *scratch, lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Pointer[PanicError]
	for w := 0; w < c.threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catchPanic(&panicked)
			sc := &scratch{}
			for ctx.Err() == nil && panicked.Load() == nil {
				lo := int(next.Add(chunkNodes)) - chunkNodes
				if lo >= n {
					return
				}
				chunk(sc, lo, min(lo+chunkNodes, n))
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(p)
	}
	return ctx.Err()
}

// Close implements Prepared; the CPU engine holds nothing that needs releasing.
func (c *cpuPrepared) Close() error { return nil }
