package interp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// The gdal_grid algorithms at the sizes of issue 3's speed bars, on the CPU engine with every
// core, index build (and triangulation) included, the CSV read excluded. Compare with gdal_grid
// on the same data (scripts/ has the side-by-side run). Run each once:
//
//	go test -run - -bench 'GDAL' -benchtime 1x ./interp

// gdalBenchSamples returns n samples uniform over a side x side square at UTM scale, moved to
// the target's centre as the real flow does.
func gdalBenchSamples(n int, side float64, t raster.Target) *sample.Samples {
	rng := rand.New(rand.NewPCG(11, 12))
	s := &sample.Samples{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n)}
	for i := range n {
		s.X[i] = 450000 + rng.Float64()*side
		s.Y[i] = 5400000 + rng.Float64()*side
		s.Z[i] = 100 + 50*rng.Float64()
	}
	s.MoveOrigin(t.Centre())
	return s
}

func benchGDAL(b *testing.B, alg string, n, cols int, side float64) {
	a, _, err := ParseAlgorithm(alg)
	if err != nil {
		b.Fatal(err)
	}
	t := raster.NorthUp(450000, 5400000, 450000+side, 5400000+side, cols, cols)
	p := &Problem{Samples: gdalBenchSamples(n, side, t), Target: t, Alg: a}
	sink := func(int, int, []float64) error { return nil }
	for b.Loop() {
		if err := Grid(context.Background(), &CPU{}, p, sink, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/grid")
}

// BenchmarkGDALInvDistAll is the all-samples bar: 20,000 samples onto 1000 x 1000 nodes,
// invdist with its defaults (power 2, every sample), where gdal_grid runs its float32 SIMD code.
// ns/pair is per sample and node (2e10 pairs), on all workers together: the far-field tree
// (farTree) meets far fewer pairs than that.
func BenchmarkGDALInvDistAll(b *testing.B) {
	benchGDAL(b, "invdist", 20_000, 1000, 10_000)
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/(20_000*1000*1000), "ns/pair")
}

// BenchmarkGDALInvDistAllPower3 is BenchmarkGDALInvDistAll with power 3, whose weights take a
// square root each.
func BenchmarkGDALInvDistAllPower3(b *testing.B) {
	benchGDAL(b, "invdist:power=3", 20_000, 1000, 10_000)
}

// BenchmarkGDALInvDistRows is BenchmarkGDALInvDistAll on a raster too small for the far-field
// tree (90 x 90 nodes, 20,000 samples): power 2's nodes come 8 of a row at a time.
func BenchmarkGDALInvDistRows(b *testing.B) {
	benchGDAL(b, "invdist", 20_000, 90, 10_000)
}

// BenchmarkGDALRadius is the radius bar: 1,000,000 samples over a 10 km square onto 1000 x
// 1000 nodes, radius 50 m and max_points 12 where the algorithm has it; linear as well.
func BenchmarkGDALRadius(b *testing.B) {
	for _, alg := range gdalRadiusAlgorithms {
		b.Run(alg, func(b *testing.B) { benchGDAL(b, alg, 1_000_000, 1000, 10_000) })
	}
}

// BenchmarkGDALRadiusSmall is BenchmarkGDALRadius at a tenth of the size and the same
// densities (100,000 samples onto 316 x 316 nodes over a 3162 m square), for quick comparisons.
func BenchmarkGDALRadiusSmall(b *testing.B) {
	for _, alg := range gdalRadiusAlgorithms {
		b.Run(alg, func(b *testing.B) { benchGDAL(b, alg, 100_000, 316, 3162) })
	}
}

var gdalRadiusAlgorithms = []string{
	"invdistnn:radius=50:max_points=12",
	"average:radius=50",
	"minimum:radius=50",
	"maximum:radius=50",
	"range:radius=50",
	"count:radius=50",
	"average_distance:radius=50",
	"average_distance_pts:radius=50",
	"nearest:radius=50",
	"linear",
}

// BenchmarkGDALInvDistKernel times invdist's all-samples power-2 kernel for one node (the one
// for points off the raster and for nodes on a sample) alone, on one core.
func BenchmarkGDALInvDistKernel(b *testing.B) {
	const n = 20_000
	t := raster.NorthUp(450000, 5400000, 460000, 5410000, 1, 1)
	s := gdalBenchSamples(n, 10_000, t)
	var sink float64
	for i := 0; b.Loop(); i++ {
		num, den, _ := idw2All(s.X, s.Y, s.Z, float64(i%97), 3.5)
		sink += num / den
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
	if sink == 0 {
		b.Log(sink)
	}
}

// BenchmarkGDALInvDistRowKernel times the all-samples power-2 kernel that sums 8 nodes of a
// row at once (the one the far-field tree and the row batches use), on one core.
func BenchmarkGDALInvDistRowKernel(b *testing.B) {
	const n = 20_000
	t := raster.NorthUp(450000, 5400000, 460000, 5410000, 1, 1)
	s := gdalBenchSamples(n, 10_000, t)
	var nx, num, den [batchNodes]float64
	var sink float64
	for i := 0; b.Loop(); i++ {
		for k := range nx {
			nx[k] = float64(i%97) + 10*float64(k)
		}
		idw2Row(s.X, s.Y, s.Z, &nx, 3.5, 0, &num, &den)
		sink += num[0] / den[0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*batchNodes), "ns/pair")
	if sink == 0 {
		b.Log(sink)
	}
}
