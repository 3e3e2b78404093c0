package tiles

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// rowWatch is the CPU engine that closes started once it computes a node of row from or below.
type rowWatch struct {
	interp.Engine
	from    int
	started chan struct{}
	once    *sync.Once
}

func (e rowWatch) Prepare(ctx context.Context, p *interp.Problem) (interp.Prepared, error) {
	prep, err := e.Engine.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	return watchedPrep{prep, e}, nil
}

type watchedPrep struct {
	interp.Prepared
	e rowWatch
}

func (w watchedPrep) Compute(ctx context.Context, b *interp.Block) error {
	if b.Row0+b.Rows > w.e.from {
		w.e.once.Do(func() { close(w.e.started) })
	}
	return w.Prepared.Compute(ctx, b)
}

// TestTiledWritesWhileComputing checks that a tiled run writes a row of tiles while it
// computes the next: the sink of the first row returns only once a node of the second row was
// computed (a run that wrote in the engine's turn would never compute it), and the raster is
// the in-memory one. A sink that fails stops the run with its error.
func TestTiledWritesWhileComputing(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 2, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 41, 31)
	alg, _, err := interp.ParseAlgorithm("aidw:max_points=12")
	if err != nil {
		t.Fatal(err)
	}
	want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
	ctx := context.Background()
	census, facts := spilledCensus(t, paths, target)
	const side = 8
	eng := rowWatch{&interp.CPU{Threads: 1}, side, make(chan struct{}), &sync.Once{}}
	c, err := NewComputer(Config{Target: target, Alg: alg, Engines: []interp.Engine{eng}}, facts, census.Spill)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]float64, c.Bands())
	err = Run(ctx, c, side, func(row0, rows int, bands [][]float64) error {
		if row0 == 0 {
			select {
			case <-eng.started:
			case <-time.After(2 * time.Minute): // a deadlock, not a speed bound
				return errors.New("the second row of tiles was not computed while the first was written")
			}
		}
		for k, b := range bands {
			got[k] = append(got[k], b...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "tiled", got, want)

	stop := errors.New("the disk is full")
	c, err = NewComputer(Config{Target: target, Alg: alg}, facts, census.Spill)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = Run(ctx, c, side, func(row0, rows int, bands [][]float64) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("a sink failing at its first row: %v after %d calls, want %v after 1", err, calls, stop)
	}
}
