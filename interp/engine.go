package interp

import (
	"context"
	"fmt"
	"sync"

	"github.com/aidw/aidw/raster"
)

// Block is a run of whole rows of the target.
type Block struct {
	Row0, Rows int
	// Skip, when non-nil, marks nodes (row-major, Rows*Cols) that stay nodata and need no work.
	Skip []bool
	// Values receives one value per node, row-major.
	Values []float64
	// Extra, when non-empty, receives the bands after the value (see BandNames), each laid out
	// as Values. Only engines whose Supports accepts a multi-band algorithm fill them.
	Extra [][]float64
	// Reach, when non-nil, receives per node (laid out as Values) the distance within which
	// lie all the samples that decided the node's value, as far as its searches of the k
	// nearest and within a radius tell (+Inf when a search came back with fewer than it asked
	// for, so that it saw every sample). Only the CPU engine fills it, and it is meaningful
	// only for algorithms that decide a node by such searches alone (tiles' nearest family):
	// a tile whose loaded region holds that disc computed the node as the whole job would.
	Reach []float64
	// Done, when set, is told how many more nodes of the block are finished; engines may call
	// it from several goroutines. It lets progress move within a long block.
	Done func(nodes int)
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
	if p.Samples.Len() == 0 {
		return fmt.Errorf("no usable samples")
	}
	if err := checkCoordinates(p.Samples, p.Target); err != nil {
		return err
	}
	prep, err := eng.Prepare(ctx, p)
	if err != nil {
		return err
	}
	err = drive(ctx, prep, p, bands, sink, progress)
	if cerr := prep.Close(); err == nil {
		err = cerr
	}
	return err
}

func drive(ctx context.Context, prep Prepared, p *Problem, bands int, sink BandSink, progress func(float64)) error {
	t := p.Target
	step := raster.BlockRows(t.Cols)
	if step > t.Rows {
		step = t.Rows
	}
	b := &Block{Values: make([]float64, step*t.Cols)}
	out := make([][]float64, bands)
	for k := 1; k < bands; k++ {
		out[k] = make([]float64, step*t.Cols)
	}
	var skip []bool
	if t.Mask != nil {
		skip = make([]bool, step*t.Cols)
	}
	total := float64(t.Rows) * float64(t.Cols)
	var mu sync.Mutex
	var done int
	if progress != nil {
		// Engines report from their workers: serialise, and keep the fraction monotonic.
		b.Done = func(nodes int) {
			mu.Lock()
			done += nodes
			progress(float64(done) / total)
			mu.Unlock()
		}
	}
	for row0 := 0; row0 < t.Rows; row0 += step {
		rows := min(step, t.Rows-row0)
		n := rows * t.Cols
		b.Row0, b.Rows, b.Values = row0, rows, b.Values[:n]
		b.Extra = b.Extra[:0]
		for _, e := range out[1:] {
			b.Extra = append(b.Extra, e[:n])
		}
		out[0] = b.Values
		b.Skip = nil
		if skip != nil {
			b.Skip = skip[:n]
			if err := t.Mask(row0, rows, b.Skip); err != nil {
				return fmt.Errorf("reading mask rows %d-%d: %w", row0, row0+rows-1, err)
			}
		}
		if err := prep.Compute(ctx, b); err != nil {
			return err
		}
		if b.Skip != nil {
			nd := p.Alg.NoData()
			for _, band := range out {
				for i, s := range b.Skip {
					if s {
						band[i] = nd
					}
				}
			}
		}
		if err := sink(row0, rows, out); err != nil {
			return err
		}
		if progress != nil {
			mu.Lock()
			done = (row0 + rows) * t.Cols
			progress(float64(done) / total)
			mu.Unlock()
		}
	}
	return nil
}
