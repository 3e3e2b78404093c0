package interp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// aidwBenchSamples returns n samples uniform over [0,side)^2 with values in [0,100).
func aidwBenchSamples(n int, side float64, seed uint64) *sample.Samples {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	s := &sample.Samples{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n)}
	for i := range n {
		s.X[i], s.Y[i], s.Z[i] = rng.Float64()*side, rng.Float64()*side, rng.Float64()*100
	}
	return s
}

// benchAIDW grids n uniform samples over a side x side square onto cols x cols nodes on the CPU
// engine with all cores, index build included.
func benchAIDW(b *testing.B, a *AIDW, n, cols int, side float64) {
	s := aidwBenchSamples(n, side, 7)
	p := &Problem{Samples: s, Target: raster.NorthUp(0, 0, side, side, cols, cols), Alg: a}
	sink := func(int, int, []float64) error { return nil }
	for b.Loop() {
		if err := Grid(context.Background(), &CPU{}, p, sink, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/grid")
	if !a.local() {
		// Wall time per sample-node pair with every core at work.
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/float64(cols*cols), "wall-ns/pair")
	}
}

// BenchmarkAIDWGlobal is issue 2's global bar: 102,400 samples onto 320 x 320 nodes, every
// sample weighted. Run it once: go test -run - -bench AIDWGlobal -benchtime 1x ./interp
func BenchmarkAIDWGlobal(b *testing.B) {
	a := DefaultAIDW()
	benchAIDW(b, &a, 102_400, 320, 1000)
}

// BenchmarkAIDWGlobalExact is BenchmarkAIDWGlobal without the far field: every pair summed by
// weigh.Sum, whichever thresholds farFieldFrom sets for the CPU.
func BenchmarkAIDWGlobalExact(b *testing.B) {
	a := DefaultAIDW()
	a.FarField = false
	benchAIDW(b, &a, 102_400, 320, 1000)
}

// BenchmarkAIDWLocal is issue 2's local bar without the CSV read: 1,000,000 samples over a
// 10 km square onto 1000 x 1000 nodes, max_points=15 (one kNN query of 15 per node).
func BenchmarkAIDWLocal(b *testing.B) {
	a := DefaultAIDW()
	a.MaxPoints = 15
	benchAIDW(b, &a, 1_000_000, 1000, 10_000)
}
