package grid

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Run the large benchmarks once, e.g.
//
//	go test ./grid -run '^$' -bench . -benchtime 1x          (Build)
//	go test ./grid -run '^$' -bench KNN -benchtime 1000000x  (1e6 queries)

func BenchmarkBuild(b *testing.B) {
	for _, n := range []struct {
		name string
		n    int
	}{{"1e6", 1_000_000}, {"1e7", 10_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			x, y := uniform(rand.New(rand.NewPCG(1, 1)), n.n, 0, 0, 10000, 10000)
			b.ResetTimer()
			for range b.N {
				Build(x, y)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n.n), "ns/sample")
		})
	}
}

// queryBench runs b.N queries cycling over a million points drawn in [lo, hi)^2 against a
// million samples uniform over [0, 10000)^2 or in 100 tight blobs.
func queryBench(b *testing.B, clustered bool, lo, hi float64, query func(ix *Index, qx, qy float64, dst []Neighbor) []Neighbor) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(2, 2))
	x, y := uniform(r, n, 0, 0, 10000, 10000)
	if clustered {
		cx, cy := uniform(r, 100, 0, 0, 10000, 10000)
		for i := range x {
			c := i % len(cx)
			x[i], y[i] = cx[c]+20*r.NormFloat64(), cy[c]+20*r.NormFloat64()
		}
	}
	ix := Build(x, y)
	qx, qy := uniform(r, n, lo, lo, hi-lo, hi-lo)
	dst := make([]Neighbor, 0, 1024)
	b.ResetTimer()
	for i := range b.N {
		dst = query(ix, qx[i%n], qy[i%n], dst)
	}
}

func knn15(ix *Index, qx, qy float64, dst []Neighbor) []Neighbor {
	return ix.KNN(qx, qy, 15, math.Inf(1), dst)
}

func BenchmarkKNN15(b *testing.B) { queryBench(b, false, 0, 10000, knn15) }

// BenchmarkKNN15Raster queries the nodes of a 1000x1000 raster over the samples in row-major
// order, as the CPU engine does: consecutive queries share cells, so caches stay warm.
func BenchmarkKNN15Raster(b *testing.B) {
	const n, side = 1_000_000, 1000
	x, y := uniform(rand.New(rand.NewPCG(2, 2)), n, 0, 0, 10000, 10000)
	ix := Build(x, y)
	dst := make([]Neighbor, 0, 15)
	b.ResetTimer()
	for i := range b.N {
		node := i % (side * side)
		dst = ix.KNN(10*(float64(node%side)+0.5), 10*(float64(node/side)+0.5), 15, math.Inf(1), dst)
	}
}

func BenchmarkKNN15Clustered(b *testing.B) { queryBench(b, true, 0, 10000, knn15) }

// BenchmarkKNN15Far queries points 10 to 20 extents away from the samples.
func BenchmarkKNN15Far(b *testing.B) { queryBench(b, false, 1e5, 2e5, knn15) }

func BenchmarkKNN64(b *testing.B) {
	queryBench(b, false, 0, 10000, func(ix *Index, qx, qy float64, dst []Neighbor) []Neighbor {
		return ix.KNN(qx, qy, 64, math.Inf(1), dst)
	})
}

// BenchmarkWithin30 uses a radius that holds 30 samples on average: pi r^2 * 1e6/1e8 = 30.
func BenchmarkWithin30(b *testing.B) {
	r2 := 30 * 1e8 / 1e6 / math.Pi
	queryBench(b, false, 0, 10000, func(ix *Index, qx, qy float64, dst []Neighbor) []Neighbor {
		return ix.Within(qx, qy, r2, dst)
	})
}

func BenchmarkEllipse30(b *testing.B) {
	r1 := math.Sqrt(30 * 1e8 / 1e6 / math.Pi)
	queryBench(b, false, 0, 10000, func(ix *Index, qx, qy float64, dst []Neighbor) []Neighbor {
		return ix.Ellipse(qx, qy, 2*r1, r1/2, 30, dst)
	})
}

// BenchmarkKNN12Survey is the search of local AIDW (max_points=12) on a LiDAR DEM, as in the 1e9
// tiled run: a compact index (centimetre quanta, canonical order) of 2.5 samples a square metre
// queried at the nodes of a 1 m raster, row by row. One op is one row of 1000 nodes.
func BenchmarkKNN12Survey(b *testing.B) {
	const side, n = 1000, 2_500_000
	r := rand.New(rand.NewPCG(3, 3))
	qx, qy := make([]int32, n), make([]int32, n)
	for i := range qx {
		qx[i], qy[i] = r.Int32N(side*100), r.Int32N(side*100)
	}
	slices.SortFunc(qy, func(a, b int32) int { return cmp.Compare(a, b) }) // canonical: by y
	ix := BuildCompact(qx, qy, 0.01, 0.01)
	dst := make([]Neighbor, 0, 12)
	b.ResetTimer()
	for i := range b.N {
		y := float64(i%side) + 0.5
		for c := range side {
			dst = ix.KNN(float64(c)+0.5, y, 12, math.Inf(1), dst)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*side), "ns/node")
}
