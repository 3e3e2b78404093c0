package interp

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/interp/farfield"
)

// cpuAlgorithm is what an algorithm provides to run on the CPU engine: bind does the
// per-problem work (global statistics, triangulation, ...) and returns the algorithm's bound
// form, which computes nodes.
type cpuAlgorithm interface {
	Algorithm
	bind(p *Problem, ix *grid.Index) (bound, error)
}

// bound is an algorithm bound to one problem, read-only, which every worker shares: node
// computes one node. A bound form may also offer capabilities, which the engine and
// cross-validation use when present: spanner (a run of a row's nodes at once) and holdOut
// (a node with one sample held out).
type bound interface {
	// node computes the node at (x,y), relative to the samples' origin. sc is the calling
	// worker's own scratch space, so that node allocates nothing per node.
	node(sc *scratch, x, y float64) float64
}

// nodeFunc is a bound form that is a function and nothing more.
type nodeFunc func(sc *scratch, x, y float64) float64

func (f nodeFunc) node(sc *scratch, x, y float64) float64 { return f(sc, x, y) }

// spanner is a bound form that computes a run of a row's raster nodes at once, which lets it
// share work between neighbouring nodes. The CPU engine uses it for the target's nodes, and
// node for any other place.
type spanner interface {
	// span computes the nodes of target row row, columns [col0,col1), into
	// out[0:col1-col0], leaving out[k] as it is where skip[k] is set (skip nil: none is).
	span(sc *scratch, row, col0, col1 int, skip []bool, out []float64)
}

// holdOut is a bound form that can hold one sample out of a node's computation, as
// leave-one-out cross-validation does at each sample's place. Without it, LeaveOneOut binds the
// algorithm anew to a copy of the samples without each one (see eachWithout): correct for any
// algorithm, and slow.
type holdOut interface {
	// holdOut does the work that depends on the number of samples for the n-1 left when one
	// is held out (stopped by ctx), and returns the function that computes nodes that way.
	holdOut(ctx context.Context) (nodeWithout, error)
}

// nodeWithout computes the node at (x,y), relative to the samples' origin, as node would for a
// copy of the samples without sample j (-1: none is left out): j never enters the node's
// value, and other samples at j's place stay. The order of all the samples (gdal's quadtree
// order, which breaks ties) stays that of all of them.
type nodeWithout func(sc *scratch, j int32, x, y float64) float64

// skipping is a bound form made of a function that leaves sample skip out of every node (-1:
// none): node leaves none out, and holdOut gives the same function bound for the samples less
// one, by less, or f itself when less is nil (nothing that f derives depends on their number).
type skipping struct {
	f    nodeWithout
	less func(ctx context.Context) (nodeWithout, error)
}

func (b *skipping) node(sc *scratch, x, y float64) float64 { return b.f(sc, -1, x, y) }

func (b *skipping) holdOut(ctx context.Context) (nodeWithout, error) {
	if b.less == nil {
		return b.f, nil
	}
	return b.less(ctx)
}

// cpuBandsAlgorithm is what an algorithm with bands after its value (see BandNames) provides
// to run on the CPU engine: bindBands returns the function that computes every band of a node.
type cpuBandsAlgorithm interface {
	bindBands(p *Problem, ix *grid.Index) (bandsFunc, error)
}

// bandsFunc computes the node at (x,y) into out, one value per band, the value first.
type bandsFunc func(sc *scratch, x, y float64, out []float64)

// scratch is one worker's reusable buffers.
type scratch struct {
	// ctx is the run's: a span whose work between the engine's looks at it can be large (a
	// window over millions of cells) looks at it too. Nil for a worker that is never stopped.
	ctx context.Context
	nb  []grid.Neighbor
	ids []int32
	// win is a run of nodes' room (windowSpan).
	win windowBuf
	// pairs is a run of nodes' room (pairSpan).
	pairs pairRoom
	// bands receives a multi-band node's values.
	bands []float64
	// reach2 is the square of the node's reach so far (see Block.Reach).
	reach2 float64
	// ff is the room of a far field's evaluation, for the field ffOf.
	ff   *farfield.Scratch
	ffOf *farfield.Field
}

// stopped says whether the run's context is done.
func (sc *scratch) stopped() bool { return sc.ctx != nil && sc.ctx.Err() != nil }

// farScratch is the worker's room for field f.
func (sc *scratch) farScratch(f *farfield.Field) *farfield.Scratch {
	if sc.ffOf != f {
		sc.ff, sc.ffOf = f.NewScratch(), f
	}
	return sc.ff
}

// contextBinder is an algorithm whose binding does long work (a far-field plan, every pair of
// samples) that ctx stops within a second.
type contextBinder interface {
	bindContext(ctx context.Context, p *Problem, ix *grid.Index) (bound, error)
}

// contextBandsBinder is contextBinder for the bands of a multi-band algorithm.
type contextBandsBinder interface {
	bindBandsContext(ctx context.Context, p *Problem, ix *grid.Index) (bandsFunc, error)
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

// TellsReach implements reachTeller: the CPU engine fills Block.Reach for every algorithm.
func (c *CPU) TellsReach(Algorithm) bool { return true }

// threads is the number of workers.
func (c *CPU) threads() int {
	if c.Threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return c.Threads
}

// Prepare builds the even-grid index and binds the algorithm to the problem.
func (c *CPU) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	alg, ok := p.Alg.(cpuAlgorithm)
	if !ok {
		return nil, fmt.Errorf("algorithm %s has no CPU implementation", p.Alg.Name())
	}
	ix, err := p.index(ctx)
	if err != nil {
		return nil, err
	}
	cp := &cpuPrepared{p: p, threads: c.threads(), nbands: len(BandNames(p.Alg))}
	if cp.nbands == 1 {
		var b bound
		if cb, ok := p.Alg.(contextBinder); ok {
			b, err = cb.bindContext(ctx, p, ix)
		} else {
			b, err = alg.bind(p, ix)
		}
		if err != nil {
			return nil, err
		}
		cp.fn = nodeOf(b)
		cp.span, _ = b.(spanner)
		return cp, nil
	}
	ba, ok := p.Alg.(cpuBandsAlgorithm)
	if !ok {
		return nil, fmt.Errorf("algorithm %s has no CPU implementation of its %d bands", p.Alg.Name(), cp.nbands)
	}
	if cb, ok := p.Alg.(contextBandsBinder); ok {
		cp.bands, err = cb.bindBandsContext(ctx, p, ix)
	} else {
		cp.bands, err = ba.bindBands(p, ix)
	}
	if err != nil {
		return nil, err
	}
	cp.fn = func(sc *scratch, _ int32, x, y float64) float64 { return cp.node(sc, x, y)[0] }
	return cp, nil
}

// nodeOf is b's node as a function with as few calls as may be between the engine and the
// algorithm: a skipping form's own function, called with no sample to skip.
func nodeOf(b bound) nodeWithout {
	switch s := b.(type) {
	case *skipping:
		return s.f
	case *spanSkipping:
		return s.f
	}
	return func(sc *scratch, _ int32, x, y float64) float64 { return b.node(sc, x, y) }
}

type cpuPrepared struct {
	p *Problem
	// fn computes a node, called with no sample to skip (-1); see nodeOf.
	fn nodeWithout
	// span, when the bound form is a spanner, computes the target's nodes.
	span    spanner
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
	first, cols, err := b.Window(c.p.Target.Cols)
	if err != nil {
		return err
	}
	if len(b.Extra) > 0 && len(b.Extra) != c.nbands-1 {
		return fmt.Errorf("block asks for %d bands after the value; %s gives %d", len(b.Extra), c.p.Alg.Name(), c.nbands-1)
	}
	if c.span != nil && len(b.Extra) == 0 && b.Reach == nil {
		// Each chunk of nodes goes to the spanner a row's run at a time.
		return c.forEach(ctx, b.Rows*cols, func(sc *scratch, lo, hi int) {
			for i := lo; i < hi; {
				k := i % cols
				run := min(cols-k, hi-i)
				var skip []bool
				if b.Skip != nil {
					skip = b.Skip[i : i+run]
				}
				c.span.span(sc, b.Row0+i/cols, first+k, first+k+run, skip, b.Values[i:i+run])
				i += run
			}
			b.report(hi - lo)
		})
	}
	return c.forEach(ctx, b.Rows*cols, func(sc *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			if b.Skip != nil && b.Skip[i] {
				continue
			}
			x, y := c.p.NodeXY(first+i%cols, b.Row0+i/cols)
			sc.reach2 = 0
			if len(b.Extra) == 0 {
				b.Values[i] = c.fn(sc, -1, x, y)
			} else {
				out := c.node(sc, x, y)
				b.Values[i] = out[0]
				for k, band := range b.Extra {
					band[i] = out[k+1]
				}
			}
			if b.Reach != nil {
				b.Reach[i] = math.Sqrt(sc.reach2)
			}
		}
		b.report(hi - lo)
	})
}

// forEach runs chunk over nodes [0,n) with every worker.
func (c *cpuPrepared) forEach(ctx context.Context, n int, chunk func(sc *scratch, lo, hi int)) error {
	return forEach(ctx, c.threads, n, chunk)
}

// forEach runs chunk over nodes [0,n), threads workers pulling runs of chunkNodes from a shared
// counter, each with its own scratch.
func forEach(ctx context.Context, threads, n int, chunk func(sc *scratch, lo, hi int)) error {
	return forEachRun(ctx, threads, n, chunkNodes, chunk)
}

// forEachRun is forEach with runs of size.
func forEachRun(ctx context.Context, threads, n, size int, chunk func(sc *scratch, lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Pointer[PanicError]
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catchPanic(&panicked)
			sc := &scratch{ctx: ctx}
			for ctx.Err() == nil && panicked.Load() == nil {
				lo := int(next.Add(int64(size))) - size
				if lo >= n {
					return
				}
				chunk(sc, lo, min(lo+size, n))
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
