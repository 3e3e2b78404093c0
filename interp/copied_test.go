package interp

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aidw/aidw/raster"
)

// copyingDevice is a fakeDevice whose prepared problem says it holds the samples (as a GPU's
// does).
type copyingDevice struct{ fakeDevice }

type copyingPrepared struct{ *fakePrepared }

func (p copyingPrepared) CopiedSamples() bool { return true }

func (d *copyingDevice) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	pp, err := d.fakeDevice.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	return copyingPrepared{pp.(*fakePrepared)}, nil
}

// Problem.Copied is called once when the engine (every engine of a Multi) holds the samples,
// and never when it still needs them: after Prepare and before any node is computed for one
// engine; for a Multi, whose engines join as they are ready, before the run returns.
func TestCopiedSamples(t *testing.T) {
	samples, target := aidwBenchSamples(400, 100, 3), raster.NorthUp(0, 0, 100, 100, 20, 15)
	alg, _, err := ParseAlgorithm("aidw:max_points=8")
	if err != nil {
		t.Fatal(err)
	}
	copying := func(i int) Engine {
		return &copyingDevice{fakeDevice{name: "copying", cpu: &CPU{Threads: 1}, seed: uint64(i)}}
	}
	for _, c := range []struct {
		name  string
		eng   Engine
		calls int
	}{
		{"copying", copying(0), 1},
		{"multi of copying", &Multi{Engines: []Engine{copying(1), copying(2)}}, 1},
		{"multi with one that needs them", &Multi{Engines: []Engine{copying(3), fakeDevices(1, 4)[0]}}, 0},
		{"cpu", &CPU{Threads: 1}, 0},
	} {
		var calls atomic.Int64
		p := &Problem{Samples: samples, Target: target, Alg: alg, Copied: func() { calls.Add(1) }}
		_, multi := c.eng.(*Multi)
		rows := 0
		err := GridBands(context.Background(), c.eng, p, func(row0, n int, _ [][]float64) error {
			if calls.Load() == 0 && c.calls > 0 && !multi {
				t.Errorf("%s: rows %d-%d written before Copied", c.name, row0, row0+n-1)
			}
			rows += n
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() != int64(c.calls) || rows != target.Rows {
			t.Errorf("%s: Copied called %d times, want %d (%d rows written)", c.name, calls.Load(), c.calls, rows)
		}
	}
}
