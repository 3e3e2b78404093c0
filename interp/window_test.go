package interp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/testload"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// windowAlgorithms are the moving-window statistics with the options that decide windowSpan's
// path: radii equal or not, one radius 0 (a line on gdal's quadtree), min_points, nodata, and
// a rotation, which stays node by node.
var windowAlgorithms = func() []string {
	var algs []string
	for _, kind := range []string{"average", "minimum", "maximum", "range", "count", "average_distance"} {
		for _, o := range []string{":radius=50", ":radius1=50:radius2=30:nodata=-9",
			":radius1=40:radius2=0:nodata=-1", ":radius1=0:radius2=35", ":radius=30:min_points=6:nodata=NaN",
			":radius1=60:radius2=25:angle=30:min_points=2"} {
			algs = append(algs, kind+o)
		}
	}
	return algs
}()

// windowSamples are n samples over a 600 m square at UTM scale: uniform, or on a 1 m lattice
// (every one then at an exact distance from the 10 m nodes, many exactly on the radius), with
// some repeated, moved to the target's centre; compact makes them the compact form, odd gives
// some of them the values that min, max and sums treat apart: -0, +0, NaN and infinities.
func windowSamples(n int, lattice, compact, odd bool, seed uint64, t raster.Target) *sample.Samples {
	odds := []float64{math.Copysign(0, -1), 0, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -1}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	s := &sample.Samples{}
	for i := range n {
		x, y := 451000+rng.Float64()*600, 5401000+rng.Float64()*600
		if lattice {
			x, y = math.Round(x), math.Round(y)
		}
		if i > 0 && i%13 == 0 {
			x, y = s.X[i/2], s.Y[i/2]
		}
		z := math.Round(100*rng.Float64()) / 4
		if odd && rng.IntN(50) == 0 {
			z = odds[rng.IntN(len(odds))]
		}
		s.X, s.Y, s.Z = append(s.X, x), append(s.Y, y), append(s.Z, z)
	}
	if compact {
		c := &sample.Samples{QuantumX: 0.5, QuantumY: 0.5, Z: s.Z}
		for i := range s.X {
			c.QX, c.QY = append(c.QX, int32(math.Round(s.X[i]*2))), append(c.QY, int32(math.Round(s.Y[i]*2)))
		}
		s = c
	}
	cx, cy := t.Centre()
	s.MoveOrigin(cx, cy)
	return s
}

// The run form (windowSpan) gives every node the value the node-by-node form gives, bit for
// bit (NaN for NaN), whatever the run's ends, with skipped nodes left alone: on uniform and
// lattice samples (samples exactly on the radius), plain and compact, with values NaN, -0 and
// infinite among them, above and below gdal's quadtree threshold, on north-up targets with
// nodes closer and farther apart than the radius, and on a flipped and a rotated target (which
// the run form hands to the node-by-node form).
func TestWindowSpanMatchesNodes(t *testing.T) {
	// windowAVX2's 16 nodes placed as they are, and so that samples reach beyond them on the
	// left and on the right, and lie beyond them, which it must leave to windowRange.
	defer func(h int) { windowHalf = h }(windowHalf)
	for _, windowHalf = range []int{windowHalf, 2, 13, 40} {
		testWindowSpan(t)
	}
}

// spanTargets are targets over windowSamples' square for the run forms' tests: north-up with
// nodes closer and farther apart than the radius, flipped, and rotated.
var spanTargets = map[string]raster.Target{
	"north-up":  raster.NorthUp(450990, 5400990, 451610, 5401610, 62, 62),
	"fine":      raster.NorthUp(451003.3, 5400990, 451590.1, 5401550.7, 97, 83),
	"coarse":    raster.NorthUp(450900, 5400900, 451700, 5401700, 20, 20),
	"flipped-x": {Cols: 40, Rows: 30, GeoTransform: [6]float64{451610, -15, 0, 5401000, 0, 20}},
	"rotated":   {Cols: 30, Rows: 30, GeoTransform: [6]float64{451000, 17, 3, 5401600, 2, -19}},
}

func testWindowSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for tname, tg := range spanTargets {
		for _, c := range []struct {
			n                     int
			lattice, compact, odd bool
		}{{1500, false, false, false}, {1500, true, false, false}, {1500, true, true, false}, {1500, true, false, true},
			{90, true, false, false}} {
			s := windowSamples(c.n, c.lattice, c.compact, c.odd, uint64(c.n), tg)
			for _, alg := range windowAlgorithms {
				what := fmt.Sprintf("%s n=%d lattice=%v compact=%v odd=%v %s", tname, c.n, c.lattice, c.compact, c.odd, alg)
				a, _, err := ParseAlgorithm(alg)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				p := &Problem{Samples: s, Target: tg, Alg: a}
				b, err := a.(cpuAlgorithm).bind(p, testIndex(t, p))
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				// Only a rotated ellipse, or a radius 0 off the quadtree (every sample on a
				// line), stays node by node.
				sp, ok := b.(spanner)
				if want := !hasAngle(a) && (c.n > gdalQuadtreeThreshold || !strings.Contains(alg, "=0")); ok != want {
					t.Fatalf("%s: spanner %v, want %v", what, ok, want)
				}
				if !ok {
					continue
				}
				checkSpans(t, what, p, b, sp, rng)
			}
		}
	}
}

func hasAngle(a Algorithm) bool {
	switch a := a.(type) {
	case *Average:
		return a.Angle != 0
	case *Metric:
		return a.Angle != 0
	}
	return false
}

// checkSpans computes every row of p's target in runs of random length with random skips and
// compares each node with the bound form's node.
func checkSpans(t *testing.T, what string, p *Problem, b bound, sp spanner, rng *rand.Rand) {
	t.Helper()
	node := nodeOf(b)
	sc := &scratch{}
	cols := p.Target.Cols
	out := make([]float64, cols)
	skip := make([]bool, cols)
	bad := 0
	for row := range p.Target.Rows {
		for col0 := 0; col0 < cols; {
			col1 := min(cols, col0+1+rng.IntN(cols))
			var sk []bool
			if rng.IntN(3) == 0 {
				sk = skip[col0:col1]
				for k := range sk {
					sk[k] = rng.IntN(4) == 0
				}
			}
			const untouched = 12345.678
			for k := col0; k < col1; k++ {
				out[k] = untouched
			}
			sp.span(sc, row, col0, col1, sk, out[col0:col1])
			for k := col0; k < col1; k++ {
				want := untouched
				if sk == nil || !sk[k-col0] {
					x, y := p.NodeXY(k, row)
					want = node(sc, -1, x, y)
				}
				if math.Float64bits(out[k]) != math.Float64bits(want) && !(math.IsNaN(out[k]) && math.IsNaN(want)) {
					if bad++; bad <= 5 {
						t.Errorf("%s: node (%d,%d) in run [%d,%d) = %v, want %v", what, k, row, col0, col1, out[k], want)
					}
				}
			}
			col0 = col1
		}
	}
}

// BenchmarkWindowSpan times the run form alone on one core, index built beforehand: the
// statistics at issue 17's size (1,000,000 samples over a 10 km square onto 1000 x 1000 nodes,
// radius 50), in runs of the CPU engine's chunk.
func BenchmarkWindowSpan(b *testing.B) {
	t := raster.NorthUp(450000, 5400000, 460000, 5410000, 1000, 1000)
	s := gdalBenchSamples(1_000_000, 10_000, t)
	for _, alg := range []string{"average", "minimum", "maximum", "range", "count", "average_distance"} {
		b.Run(alg, func(b *testing.B) {
			a, _, err := ParseAlgorithm(alg + ":radius=50")
			if err != nil {
				b.Fatal(err)
			}
			p := &Problem{Samples: s, Target: t, Alg: a}
			bd, err := a.(cpuAlgorithm).bind(p, testIndex(b, p))
			if err != nil {
				b.Fatal(err)
			}
			sp := bd.(spanner)
			sc := &scratch{}
			out := make([]float64, t.Cols)
			for b.Loop() {
				for row := range t.Rows {
					for c := 0; c < t.Cols; c += chunkNodes {
						sp.span(sc, row, c, min(t.Cols, c+chunkNodes), nil, out[c:min(t.Cols, c+chunkNodes)])
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.Cols*t.Rows), "ns/node")
		})
	}
}

// BenchmarkWindowNodes compares the run form with the node-by-node form on one core (minimum,
// radius 50, 1,000,000 samples over a 10 km square) from dense nodes (10 m apart) to sparse
// ones (333 m apart), where the runs' cells are many short column ranges.
func BenchmarkWindowNodes(b *testing.B) {
	t0 := raster.NorthUp(450000, 5400000, 460000, 5410000, 1000, 1000)
	s := gdalBenchSamples(1_000_000, 10_000, t0)
	for _, cols := range []int{1000, 300, 100, 30} {
		t := raster.NorthUp(450000, 5400000, 460000, 5410000, cols, cols)
		for _, form := range []string{"node", "span"} {
			b.Run(fmt.Sprintf("%d/%s", cols, form), func(b *testing.B) {
				a, _, err := ParseAlgorithm("minimum:radius=50")
				if err != nil {
					b.Fatal(err)
				}
				p := &Problem{Samples: s, Target: t, Alg: a}
				bd, err := a.(cpuAlgorithm).bind(p, testIndex(b, p))
				if err != nil {
					b.Fatal(err)
				}
				sp, node := bd.(spanner), nodeOf(bd)
				sc := &scratch{}
				out := make([]float64, t.Cols)
				for b.Loop() {
					for row := range t.Rows {
						for c := 0; c < t.Cols; c += chunkNodes {
							c1 := min(t.Cols, c+chunkNodes)
							if form == "span" {
								sp.span(sc, row, c, c1, nil, out[c:c1])
								continue
							}
							for k := c; k < c1; k++ {
								x, y := p.NodeXY(k, row)
								out[k] = node(sc, -1, x, y)
							}
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.Cols*t.Rows), "ns/node")
			})
		}
	}
}

// testIndex is p's index, for tests, which cancel nothing.
func testIndex(t testing.TB, p *Problem) *grid.Index {
	t.Helper()
	ix, err := p.index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// A run of nodes whose search area holds many samples (here 1 Mi, 64 times windowCheck) looks
// at the run's context as it takes them, and while it puts the values in the index's order:
// a worker that enters the span just before an interrupt (the engine's first look finds the
// context live, the next one done) stops within windowCheck samples and leaves its nodes
// unwritten, where it used to take every sample of the run first.
func TestWindowSpanStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := &sample.Samples{}
	for range 1 << 20 {
		s.Add(rng.Float64()*1000, rng.Float64()*1000, rng.Float64())
	}
	tg := raster.NorthUp(400, 500, 600, 501, 16, 1)
	s.MoveOrigin(tg.Centre())
	for _, alg := range []string{"count:radius1=2000:radius2=2000", "maximum:radius1=2000:radius2=2000"} {
		a, _, err := ParseAlgorithm(alg)
		if err != nil {
			t.Fatal(err)
		}
		prep, err := (&CPU{Threads: 1}).Prepare(context.Background(), &Problem{Samples: s, Target: tg, Alg: a})
		if err != nil {
			t.Fatal(err)
		}
		if prep.(*cpuPrepared).span == nil {
			t.Fatalf("%s: not computed as runs of nodes", alg)
		}
		compute := func(ctx context.Context) ([]float64, error) {
			b := &Block{Rows: 1, Values: make([]float64, tg.Cols)}
			for i := range b.Values {
				b.Values[i] = math.NaN()
			}
			return b.Values, prep.Compute(ctx, b)
		}
		// the first time with the maximum's values still to be put in order, then with them
		for _, when := range []string{"first", "second"} {
			got, err := compute(testload.DoneAt(2))
			if err != context.Canceled {
				t.Fatalf("%s, %s run: %v, want context.Canceled", alg, when, err)
			}
			for k, v := range got {
				if !math.IsNaN(v) {
					t.Fatalf("%s, %s run: node %d computed (%g) after the interrupt", alg, when, k, v)
				}
			}
			if when == "first" {
				if _, err := compute(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got, _ := compute(context.Background()); math.IsNaN(got[0]) {
			t.Fatalf("%s: a run that is not stopped leaves node 0 unwritten", alg)
		}
	}
}
