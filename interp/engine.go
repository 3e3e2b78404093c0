package interp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/raster"
)

// Block is a run of rows of the target, whole or a window of their columns: the nodes
// (Col0+k, Row0+r) for k < Cols, r < Rows. A window lets a tile's blocks hold the tile's own
// nodes alone, not the target's whole width.
type Block struct {
	Row0, Rows int
	// Col0 and Cols are the window's columns; Cols 0 is every column of the target (Col0 0).
	Col0, Cols int
	// Skip, when non-nil, marks nodes (row-major, Rows x the window's columns) that need no
	// work: Compute leaves what they hold in every band and Reach as it is (Grid's driver
	// makes them nodata; a tile's keeps the values its earlier rounds computed).
	Skip []bool
	// Values receives one value per node, row-major.
	Values []float64
	// Extra, when non-empty, receives the bands after the value (see BandNames), each laid out
	// as Values. Only engines whose Supports accepts a multi-band algorithm fill them.
	Extra [][]float64
	// Reach, when non-nil, receives per node (laid out as Values) the distance within which
	// lie all the samples that decided the node's value, as far as its searches of the k
	// nearest and within a radius tell (+Inf when a search came back with fewer than it asked
	// for, so that it saw every sample), and, for linear on part of a job, as far as the
	// proof that its Delaunay triangles are the whole job's reaches (see triLocator.value).
	// Engines that TellsReach fill it (the CPU engine always), and it is meaningful only for
	// algorithms that decide a node by such searches or triangles alone (tiles' nearest
	// family): a tile whose loaded region holds that disc computed the node as the whole job
	// would.
	Reach []float64
	// Done, when set, is told how many more nodes of the block are finished; engines may call
	// it from several goroutines. It lets progress move within a long block.
	Done func(nodes int)
}

// Window is the block's columns in a target of cols columns: the first, and how many a row
// (Values, Skip, Extra and Reach hold that many a row). It fails when the window does not lie
// within the target.
func (b *Block) Window(cols int) (col0, n int, err error) {
	if b.Cols == 0 && b.Col0 == 0 {
		return 0, cols, nil
	}
	if b.Col0 < 0 || b.Cols <= 0 || b.Col0+b.Cols > cols {
		return 0, 0, fmt.Errorf("a block of %d columns from column %d does not lie within the target's %d columns", b.Cols, b.Col0, cols)
	}
	return b.Col0, b.Cols, nil
}

// report tells b.Done about finished nodes, if anyone listens.
func (b *Block) report(nodes int) {
	if b.Done != nil {
		b.Done(nodes)
	}
}

// multiBand is an algorithm that explains its value with bands after it.
type multiBand interface {
	BandNames() []string
}

// BandNames names the bands an algorithm computes per node: "value", then any that explain it
// (AIDW's diagnostics).
func BandNames(a Algorithm) []string {
	if m, ok := a.(multiBand); ok {
		if names := m.BandNames(); len(names) > 0 {
			return names
		}
	}
	return []string{"value"}
}

// Engine computes problems. The CPU engine and the GPU engine (cuda build) implement it.
type Engine interface {
	Name() string
	// Supports says whether this engine computes the algorithm itself.
	Supports(a Algorithm) bool
	// Prepare does the per-problem work (index build, uploads) and returns what computes blocks.
	Prepare(ctx context.Context, p *Problem) (Prepared, error)
}

// reachTeller is an engine that fills Block.Reach for some algorithms.
type reachTeller interface {
	TellsReach(a Algorithm) bool
}

// TellsReach says whether engine e fills Block.Reach for algorithm a: the CPU engine for
// every algorithm, others (the GPU's nearest and radius forms) as they say.
func TellsReach(e Engine, a Algorithm) bool {
	t, ok := e.(reachTeller)
	return ok && t.TellsReach(a)
}

// TellsReach holds when every engine of m tells reach for a.
func (m *Multi) TellsReach(a Algorithm) bool {
	return m.every(func(e Engine) bool { return TellsReach(e, a) })
}

// Devices are the engines that make up e, each of which can take work of its own (a tiled
// run's tiles): a Multi's engines, nil for the CPU engine (whose threads share one problem),
// else e.
func Devices(e Engine) []Engine {
	switch e := e.(type) {
	case *CPU:
		return nil
	case *Multi:
		return e.Engines
	}
	return []Engine{e}
}

// Prepared computes the blocks of one problem.
type Prepared interface {
	Compute(ctx context.Context, b *Block) error
	Close() error
}

// RowSink receives computed rows in order.
type RowSink func(row0, rows int, values []float64) error

// BandSink receives computed rows in order with every band of the algorithm (see BandNames):
// bands[0] is the value.
type BandSink func(row0, rows int, bands [][]float64) error

// Grid runs the shared driver loop: prepare, then compute and hand over the target block by
// block, reporting the fraction done after each block. Only the value band is computed.
func Grid(ctx context.Context, eng Engine, p *Problem, sink RowSink, progress func(float64)) error {
	return gridProblem(ctx, eng, p, 1, func(row0, rows int, bands [][]float64) error { return sink(row0, rows, bands[0]) }, progress)
}

// GridBands is Grid for every band of the algorithm (see BandNames).
func GridBands(ctx context.Context, eng Engine, p *Problem, sink BandSink, progress func(float64)) error {
	return gridProblem(ctx, eng, p, len(BandNames(p.Alg)), sink, progress)
}

func gridProblem(ctx context.Context, eng Engine, p *Problem, bands int, sink BandSink, progress func(float64)) error {
	if err := p.Target.Validate(); err != nil {
		return err
	}
	if p.Len() == 0 {
		return fmt.Errorf("no usable samples")
	}
	if err := checkCoordinates(ctx, p.Samples, p.Target); err != nil {
		return err
	}
	prep, err := eng.Prepare(ctx, p)
	if err != nil {
		return err
	}
	if p.Copied != nil {
		whenCopied(prep, p.Copied)
	}
	err = drive(ctx, prep, p, bands, sink, progress)
	if cerr := prep.Close(); err == nil {
		err = cerr
	}
	return err
}

// drive computes the target block by block and hands each block's rows to sink, in order.
// Two sets of buffers alternate, so that the engine computes a block while sink writes the one
// before it (a GPU's next kernels, or the CPU's workers, overlap the writer's encoding and I/O).
func drive(ctx context.Context, prep Prepared, p *Problem, bands int, sink BandSink, progress func(float64)) error {
	t := p.Target
	step := min(raster.BlockRows(t.Cols), t.Rows)
	total := float64(t.Rows) * float64(t.Cols)
	var mu sync.Mutex
	var done int
	var report func(int)
	if progress != nil {
		// Engines report from their workers: serialise, and keep the fraction monotonic.
		report = func(nodes int) {
			mu.Lock()
			done += nodes
			progress(float64(done) / total)
			mu.Unlock()
		}
	}
	sets := [2]*blockSet{newBlockSet(step*t.Cols, bands, t.Mask != nil, report), newBlockSet(step*t.Cols, bands, t.Mask != nil, report)}
	var writing chan error // the sink of the block before, while it runs
	var panicked atomic.Pointer[PanicError]
	wait := func() error {
		if writing == nil {
			return nil
		}
		err := <-writing
		writing = nil
		if p := panicked.Load(); p != nil {
			panic(p) // on the caller's goroutine, where the program recovers it
		}
		return err
	}
	for i, row0 := 0, 0; row0 < t.Rows; i, row0 = i+1, row0+step {
		rows := min(step, t.Rows-row0)
		set := sets[i%2]
		if err := set.compute(ctx, prep, p, row0, rows); err != nil {
			wait()
			return err
		}
		if err := wait(); err != nil {
			return err
		}
		ch := make(chan error, 1)
		writing = ch
		go func() {
			err := errors.New("the writer panicked")
			defer func() { ch <- err }()
			defer catchPanic(&panicked)
			err = sink(row0, rows, set.out)
			if err == nil && progress != nil {
				mu.Lock()
				done = max(done, (row0+rows)*t.Cols)
				progress(float64(done) / total)
				mu.Unlock()
			}
		}()
	}
	return wait()
}

// blockSet is one set of a block's buffers: the block the engine fills and its bands.
type blockSet struct {
	b    Block
	out  [][]float64
	skip []bool
	full [][]float64 // the bands' whole buffers, out their first rows*cols values
}

func newBlockSet(n, bands int, mask bool, report func(int)) *blockSet {
	s := &blockSet{b: Block{Done: report}, out: make([][]float64, bands), full: make([][]float64, bands)}
	for k := range s.full {
		s.full[k] = make([]float64, n)
	}
	if mask {
		s.skip = make([]bool, n)
	}
	return s
}

// compute fills the set with rows [row0, row0+rows) of the target.
func (s *blockSet) compute(ctx context.Context, prep Prepared, p *Problem, row0, rows int) error {
	t := p.Target
	n := rows * t.Cols
	b := &s.b
	b.Row0, b.Rows, b.Values = row0, rows, s.full[0][:n]
	b.Extra = b.Extra[:0]
	for k := range s.out {
		s.out[k] = s.full[k][:n]
		if k > 0 {
			b.Extra = append(b.Extra, s.out[k])
		}
	}
	b.Skip = nil
	if s.skip != nil {
		b.Skip = s.skip[:n]
		if err := t.Mask(row0, rows, b.Skip); err != nil {
			return fmt.Errorf("reading mask rows %d-%d: %w", row0, row0+rows-1, err)
		}
	}
	if err := prep.Compute(ctx, b); err != nil {
		return err
	}
	if b.Skip != nil {
		nd := p.Alg.NoData()
		for _, band := range s.out {
			for i, skip := range b.Skip {
				if skip {
					band[i] = nd
				}
			}
		}
	}
	return nil
}
