package tiles

import (
	"context"
	"errors"
	"testing"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
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
