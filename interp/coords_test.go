package interp

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/testload"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// TestFarCoordinatesRejected checks that samples whose squared distances would overflow
// float64 (or that are not finite) are refused with one line naming the problem, by every
// algorithm, for gridding and for cross-validation, before any work (issue 12, defect 1).
func TestFarCoordinatesRejected(t *testing.T) {
	samples := func(x, y float64) *sample.Samples {
		s := &sample.Samples{}
		s.Add(0, 0, 1)
		s.Add(1, 0, 2)
		s.Add(0, 1, 3)
		s.Add(x, y, 5)
		return s
	}
	target := raster.NorthUp(0, 0, 3, 3, 10, 10)
	bad := map[string][2]float64{
		"far":      {1e155, 1e155},
		"far neg":  {-1e160, 0},
		"inf":      {math.Inf(1), 0},
		"nan":      {0, math.NaN()},
		"far in y": {0, 2e150},
	}
	for _, name := range []string{"aidw", "aidw:max_points=3", "invdist", "invdistnn", "nearest", "average", "count", "linear"} {
		alg, _, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		for what, xy := range bad {
			check := func(how string, err error) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), "sample 4") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s %s %s: error %v, want one line naming sample 4", name, what, how, err)
				}
			}
			s := samples(xy[0], xy[1])
			s.MoveOrigin(target.Centre())
			sink := func(int, int, []float64) error { return nil }
			check("grid", Grid(context.Background(), &CPU{Threads: 2}, &Problem{Samples: s, Target: target, Alg: alg}, sink, nil))
			_, err := LeaveOneOut(context.Background(), alg, s, target, 2)
			check("leave-one-out", err)
			_, err = KFold(context.Background(), alg, s, target, []int{0, 1, 0, 1}, 2, 2)
			check("k-fold", err)
		}
	}
	// a target far from the samples' origin is refused too
	alg, _, _ := ParseAlgorithm("nearest")
	s := samples(2, 2)
	err := Grid(context.Background(), &CPU{}, &Problem{Samples: s, Target: raster.NorthUp(1e155, 0, 1e155+1e140, 3, 4, 4), Alg: alg},
		func(int, int, []float64) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("far target: error %v, want one naming float64", err)
	}
	// coordinates far from 0 but close to each other are fine (UTM, and well beyond)
	s = samples(1e12+2, 1e12+2)
	s.X[0], s.Y[0] = 1e12, 1e12
	s.X[1], s.Y[1] = 1e12+1, 1e12
	s.X[2], s.Y[2] = 1e12, 1e12+1
	if err := Grid(context.Background(), &CPU{}, &Problem{Samples: s, Target: raster.NorthUp(1e12, 1e12, 1e12+3, 1e12+3, 4, 4), Alg: alg},
		func(int, int, []float64) error { return nil }, nil); err != nil {
		t.Errorf("samples near 1e12: %v", err)
	}
}

// TestDelaunayDegenerateNoPanic feeds the triangulation what no caller should give it
// (non-finite or overflowing coordinates): it must return an error, not panic.
func TestDelaunayDegenerateNoPanic(t *testing.T) {
	for name, c := range map[string][2][]float64{
		"overflow":    {{0, 1, 0, 1e155}, {0, 0, 1, 1e155}},
		"inf":         {{0, 1, 0, math.Inf(1)}, {0, 0, 1, 1}},
		"nan":         {{0, 1, 0, math.NaN()}, {0, 0, 1, 1}},
		"all nan":     {{math.NaN(), math.NaN(), math.NaN()}, {0, 1, 2}},
		"max float64": {{-math.MaxFloat64, math.MaxFloat64, 0}, {0, 0, math.MaxFloat64}},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			if _, err := delaunay(context.Background(), c[0], c[1]); err == nil {
				t.Errorf("%s: no error", name)
			}
		}()
	}
}

// TestWorkerPanicReachesCaller: a panic in a CPU worker goroutine is re-raised on the goroutine
// that waits for the workers, as a *PanicError with the worker's stack, so the program's top
// level can recover it and clean up (a panic in a worker would end the program at once).
func TestWorkerPanicReachesCaller(t *testing.T) {
	cp := &cpuPrepared{threads: 4}
	defer func() {
		pe, ok := recover().(*PanicError)
		if !ok || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "TestWorkerPanicReachesCaller") {
			t.Fatalf("recovered %#v, want a *PanicError of boom with the worker's stack", pe)
		}
	}()
	cp.forEach(context.Background(), 10000, func(sc *scratch, lo, hi int) {
		if lo >= 5000 {
			panic("boom")
		}
	})
	t.Fatal("no panic")
}

// The coordinates' check, a pass over every sample, looks at the context every checkChunk
// samples: an interrupt during it stops it within that many samples, before it reaches a far
// sample at the end (whose error it used to give after the whole pass), plain and compact
// (quanta so large that an int32 of them could be far: smaller ones need no pass).
func TestCheckCoordinatesStops(t *testing.T) {
	target := raster.NorthUp(0, 0, 1000, 1000, 10, 10)
	for _, compact := range []bool{false, true} {
		s := &sample.Samples{}
		if compact {
			s.QuantumX, s.QuantumY = 1e142, 1e142
		}
		for i := range 3 * checkChunk {
			if compact {
				s.QX, s.QY, s.Z = append(s.QX, int32(i%1000)), append(s.QY, int32(i%999)), append(s.Z, 1)
			} else {
				s.Add(float64(i%1000), float64(i%999), 1)
			}
		}
		if !compact {
			s.Add(1e160, 0, 1)
		}
		if err := checkCoordinates(testload.DoneAt(2), s, target); err != context.Canceled {
			t.Errorf("compact %v: stopped after the first chunk: %v, want context.Canceled", compact, err)
		}
		err := checkCoordinates(context.Background(), s, target)
		if compact != (err == nil) {
			t.Errorf("compact %v: not stopped: %v", compact, err)
		}
	}
}

// Compact samples whose quanta keep every int32 of them near need no pass: the check returns
// at once, even with millions of samples and the context already done.
func TestCheckCoordinatesCompactNeedsNoPass(t *testing.T) {
	target := raster.NorthUp(0, 0, 1000, 1000, 10, 10)
	s := &sample.Samples{QuantumX: 0.01, QuantumY: 0.001, QX: make([]int32, 3*checkChunk), QY: make([]int32, 3*checkChunk),
		Z: make([]float64, 3*checkChunk)}
	if err := checkCoordinates(testload.DoneAt(1), s, target); err != nil {
		t.Errorf("compact samples of small quanta: %v, want no pass and no error", err)
	}
	far := raster.NorthUp(1e155, 0, 1e155+1e140, 3, 4, 4)
	if err := checkCoordinates(context.Background(), s, far); err == nil {
		t.Errorf("a far target beside compact samples: no error")
	}
}
