package tiles

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// both returns the first error of either function, which stops the other; the caller's
// interrupt stops both; neither failing, it returns nil.
func TestBothStopsAtFirstError(t *testing.T) {
	first := errors.New("first")
	fails := func(context.Context) error { return first }
	waits := func(ctx context.Context) error { <-ctx.Done(); return errors.New("stopped") }
	if err := both(context.Background(), fails, waits); err != first {
		t.Errorf("f fails, g waits: %v, want %v", err, first)
	}
	if err := both(context.Background(), waits, fails); err != first {
		t.Errorf("g fails, f waits: %v, want %v", err, first)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := both(ctx, waits, waits); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want %v", err, context.Canceled)
	}
	ok := func(context.Context) error { return nil }
	if err := both(context.Background(), ok, ok); err != nil {
		t.Errorf("neither fails: %v", err)
	}
}

// failingEngine is an engine other than the CPU's (its nodes' reach comes from the k nearest,
// searched beside it) whose Compute fails.
type failingEngine struct{ interp.Engine }

var errDevice = errors.New("out of device memory")

func (e failingEngine) Prepare(ctx context.Context, p *interp.Problem) (interp.Prepared, error) {
	prep, err := e.Engine.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	return failingPrep{prep}, nil
}

type failingPrep struct{ interp.Prepared }

func (failingPrep) Compute(context.Context, *interp.Block) error { return errDevice }

// An engine that fails while the host searches its nodes' reach stops the run with its error.
func TestTiledEngineFailureStopsTheRun(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 1, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	alg, _, err := interp.ParseAlgorithm("aidw:max_points=12")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = tiled(paths, gdalio.SourceOptions{}, target, alg, 7, true, failingEngine{&interp.CPU{Threads: 1}})
	if !errors.Is(err, errDevice) {
		t.Fatalf("a failing engine: %v, want %v", err, errDevice)
	}
}

// sortingEngine is an engine that orders compact samples itself (as the GPU's nearest form
// does) and tells its nodes' reach: the CPU engine, behind a canonical order of its own. It
// counts the problems it was handed unsorted.
type sortingEngine struct {
	interp.Engine
	unsorted, sorted *atomic.Int64
}

func (e sortingEngine) OrdersCompact(interp.Algorithm) bool { return true }
func (e sortingEngine) TellsReach(interp.Algorithm) bool    { return true }

func (e sortingEngine) Prepare(ctx context.Context, p *interp.Problem) (interp.Prepared, error) {
	if p.Samples.InputOrder {
		e.unsorted.Add(1)
		if err := sample.Canonicalize(ctx, p.Samples); err != nil {
			return nil, err
		}
	} else {
		e.sorted.Add(1)
	}
	return e.Engine.Prepare(ctx, p)
}

// Engines that order compact samples themselves and tell their nodes' reach get a tile's LAS
// samples as read, and give the in-memory raster bit for bit; others get them in canonical
// order.
func TestTiledUnsortedForEnginesThatOrder(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 1, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	alg, _, err := interp.ParseAlgorithm("aidw:max_points=12")
	if err != nil {
		t.Fatal(err)
	}
	want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
	var unsorted, sorted atomic.Int64
	ordering := sortingEngine{&interp.CPU{Threads: 1}, &unsorted, &sorted}
	got, _, err := tiled(paths, gdalio.SourceOptions{}, target, alg, 7, true, ordering, ordering)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "engines that order", got, want)
	if unsorted.Load() == 0 || sorted.Load() != 0 {
		t.Errorf("engines that order got %d problems unsorted and %d sorted, want all unsorted", unsorted.Load(), sorted.Load())
	}
	unsorted.Store(0)
	sorted.Store(0)
	// one engine that does not order: every engine gets its samples sorted
	if _, _, err = tiled(paths, gdalio.SourceOptions{}, target, alg, 7, true, ordering, otherEngine{&interp.CPU{Threads: 1}}); err != nil {
		t.Fatal(err)
	}
	if unsorted.Load() != 0 {
		t.Errorf("beside an engine that does not order, %d problems came unsorted", unsorted.Load())
	}
}

// An engine keeps a tile's arrays for its next tiles (tileArrays), of other sizes too: under
// a mask, every node of every tile is still the in-memory run's, masked ones nodata.
func TestTiledMaskedKeepsNoStaleNodes(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 1, false)
	target := striped(raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47), 5, 20, 7)
	for _, a := range []string{"aidw:max_points=12", "invdistnn:radius=9:max_points=12", "average:radius1=5:radius2=5"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
		masked := 0
		for _, v := range want[0] {
			if v == alg.NoData() {
				masked++
			}
		}
		if masked == 0 {
			t.Fatalf("%s: no node masked", a)
		}
		got, _, err := tiled(paths, gdalio.SourceOptions{}, target, alg, 9, true, &interp.CPU{Threads: 1})
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		sameBits(t, a+" under a mask", got, want)
	}
}
