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

// scratch is one worker's reusable buffers.
type scratch struct {
	nb  []grid.Neighbor
	ids []int32
	f   []float64
}

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
	ix := grid.Build(p.Samples.X, p.Samples.Y)
	fn, err := alg.bind(p, ix)
	if err != nil {
		return nil, err
	}
	threads := c.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return &cpuPrepared{p: p, fn: fn, threads: threads}, nil
}

type cpuPrepared struct {
	p       *Problem
	fn      nodeFunc
	threads int
}

// chunkNodes is how many nodes a worker takes at a time: small enough to balance uneven
// neighbourhoods, large enough that the shared counter is not contended.
const chunkNodes = 256

// Compute fills the block with all workers pulling chunks of nodes from a shared counter.
func (c *cpuPrepared) Compute(ctx context.Context, b *Block) error {
	cols := c.p.Target.Cols
	n := b.Rows * cols
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < c.threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &scratch{}
			for ctx.Err() == nil {
				lo := int(next.Add(chunkNodes)) - chunkNodes
				if lo >= n {
					return
				}
				hi := min(lo+chunkNodes, n)
				for i := lo; i < hi; i++ {
					if b.Skip != nil && b.Skip[i] {
						continue
					}
					x, y := c.p.NodeXY(i%cols, b.Row0+i/cols)
					b.Values[i] = c.fn(sc, x, y)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Close implements Prepared; the CPU engine holds nothing that needs releasing.
func (c *cpuPrepared) Close() error { return nil }
