package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// streamed computes p's raster by a Stream fed chunks of the given sizes (the rest in the
// last); swap feeds the first two chunks the wrong way round, as a stream out of order would.
func streamed(t *testing.T, p *Problem, sizes []int, swap bool) [][]float64 {
	return streamedPart(t, p, sizes, swap, [4]int{0, p.Target.Cols, 0, p.Target.Rows}, 0)
}

// streamedPart is streamed for the nodes of columns [part[0],part[1]) and rows
// [part[2],part[3]), row by row, as a tile streams them, with average_distance_pts's rows
// pairRows a pass: the chunks go past as many times as the stream asks.
func streamedPart(t *testing.T, p *Problem, sizes []int, swap bool, part [4]int, pairRows int) [][]float64 {
	t.Helper()
	tg := p.Target
	nodes := StreamNodes{N: p.Samples.Len(), RasterNodes: float64(tg.Cols * tg.Rows), PairRows: pairRows,
		Target: &tg, OriginX: p.Samples.OriginX, OriginY: p.Samples.OriginY}
	for r := part[2]; r < part[3]; r++ {
		for c := part[0]; c < part[1]; c++ {
			x, y := p.NodeXY(c, r)
			nodes.X, nodes.Y = append(nodes.X, x), append(nodes.Y, y)
			nodes.Col, nodes.Row = append(nodes.Col, c), append(nodes.Row, r)
		}
	}
	if a, ok := p.Alg.(*AIDW); ok {
		nodes.Local = gridAllBands(t, &Problem{Samples: p.Samples, Target: tg, Alg: &AIDWPowers{AIDW: a}})
	}
	st, err := NewStream(p.Alg, nodes)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []*sample.Samples
	lo := 0
	for _, k := range sizes {
		hi := min(lo+k, p.Samples.Len())
		chunks = append(chunks, slice(p.Samples, lo, hi))
		lo = hi
	}
	chunks = append(chunks, slice(p.Samples, lo, p.Samples.Len()))
	if swap {
		chunks[0], chunks[1] = chunks[1], chunks[0]
	}
	for more := true; more; {
		for _, c := range chunks {
			if err := st.Add(context.Background(), c, 2); err != nil {
				t.Fatal(err)
			}
		}
		if more, err = st.Again(); err != nil {
			t.Fatal(err)
		}
	}
	out := make([][]float64, len(BandNames(p.Alg)))
	for k := range out {
		out[k] = make([]float64, len(nodes.X))
	}
	if err := st.Finish(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// slice is samples [lo, hi) of s, in s's form.
func slice(s *sample.Samples, lo, hi int) *sample.Samples {
	c := &sample.Samples{OriginX: s.OriginX, OriginY: s.OriginY, QuantumX: s.QuantumX, QuantumY: s.QuantumY, Z: s.Z[lo:hi]}
	if s.IsCompact() {
		c.QX, c.QY = s.QX[lo:hi], s.QY[lo:hi]
	} else {
		c.X, c.Y = s.X[lo:hi], s.Y[lo:hi]
	}
	return c
}

// TestStreamEqualsInMemory checks every form that streams against the CPU engine's in-memory
// raster, bit for bit, with chunks of sizes that do and do not fill the vector lanes, on
// clustered samples with duplicates and nodes that fall on samples (exact hits); and that the
// chunks' order shows in the bits, so that the comparison would catch a stream out of order.
func TestStreamEqualsInMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tg := raster.NorthUp(0, 0, 1000, 800, 23, 17)
	s := &sample.Samples{}
	for range 3000 {
		cx, cy := 100+800*rng.Float64(), 100+600*rng.Float64()
		for range 1 + rng.IntN(4) {
			s.Add(cx+30*rng.NormFloat64(), cy+30*rng.NormFloat64(), 50+20*rng.NormFloat64())
		}
	}
	for k := 0; k < 40; k++ {
		x, y := tg.Node(rng.IntN(tg.Cols), rng.IntN(tg.Rows), 0, 0)
		s.Add(x, y, float64(k)) // an exact hit
		s.Add(x, y, -float64(k))
	}
	s.Add(s.X[5], s.Y[5], 7) // a duplicate
	s.MoveOrigin(tg.Centre())
	algs := []string{"average", "minimum", "maximum", "range", "count", "average_distance", "average:min_points=100000",
		"average_distance_pts", "average_distance_pts:min_points=100000000",
		"aidw:farfield=no", "aidw:farfield=no:diagnostics=yes:k=7", "aidw:farfield=no:min_points=100000"}
	sizes := [][]int{{1000}, {3, 5, 8, 1, 2000}, {7, 7, 7, 7, 7, 7, 7, 7, 7}, {4096, 4096}}
	for _, name := range algs {
		alg, _, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		p := &Problem{Samples: s, Target: tg, Alg: alg}
		want := gridAllBands(t, p)
		for _, sz := range sizes {
			got := streamed(t, p, sz, false)
			for k := range want {
				for i := range want[k] {
					if math.Float64bits(got[k][i]) != math.Float64bits(want[k][i]) {
						t.Fatalf("%s, chunks %v: band %d node %d streamed %v, in memory %v", name, sz, k, i, got[k][i], want[k][i])
					}
				}
			}
		}
		if name == "aidw:farfield=no" || name == "average_distance" || name == "average" {
			outOfOrderShows(t, name, streamed(t, p, []int{1000, 1200}, true), want)
		}
	}
}

// TestStreamPairsInPasses checks that average_distance_pts over every pair, streamed in passes
// of a block of rows at a time, gives the in-memory value bit for bit whatever the rows and
// chunks, and that chunks out of order show in its bits.
func TestStreamPairsInPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tg := raster.NorthUp(0, 0, 1000, 800, 5, 4)
	s := &sample.Samples{}
	for range 5000 {
		s.Add(1000*rng.Float64(), 800*rng.Float64()*rng.Float64(), 1)
	}
	s.Add(s.X[7], s.Y[7], 2) // a duplicate: a pair at distance 0
	s.MoveOrigin(tg.Centre())
	alg, _, _ := ParseAlgorithm("average_distance_pts")
	p := &Problem{Samples: s, Target: tg, Alg: alg}
	want := gridAllBands(t, p)[0][0]
	whole := [4]int{0, tg.Cols, 0, tg.Rows}
	for _, rows := range []int{1, 999, 2500, 5001, 100000} {
		for _, sz := range [][]int{{5001}, {3, 5, 8, 1, 2000}, {1000, 1000, 1000, 1000}} {
			if got := streamedPart(t, p, sz, false, whole, rows)[0][0]; math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("rows %d, chunks %v: streamed %v, in memory %v", rows, sz, got, want)
			}
		}
	}
	if got := streamedPart(t, p, []int{1000, 1200}, true, whole, 2000)[0][0]; got == want {
		t.Errorf("chunks out of order gave the in-memory bits: the test cannot tell a broken stream")
	}
}

// TestStreamRefuses checks the forms that cannot stream are named.
func TestStreamRefuses(t *testing.T) {
	for _, name := range []string{"invdist:radius1=5:radius2=5", "aidw:max_points=12", "average:radius=5"} {
		alg, _, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := StreamFormOf(alg, 1_000_000, 1e6); err == nil {
			t.Errorf("%s streams over 1e6 samples onto 1e6 nodes", name)
		}
	}
	alg, _, _ := ParseAlgorithm("aidw")
	if f, err := StreamFormOf(alg, 1000, 100); err != nil || f.FarField() {
		t.Errorf("aidw below the far field's thresholds: %v", err)
	}
	if f, err := StreamFormOf(alg, 1_000_000, 1e6); err != nil || !f.FarField() {
		t.Errorf("aidw above the far field's thresholds: %v", err)
	}
}

// TestInvDistStreamEqualsInMemory checks invdist's all-samples form streamed against the CPU
// engine's in-memory raster, bit for bit, in each form the raster takes below the far-field
// tree: power 2's batches of a row (with nodes on samples, whose batch sums send them to a
// second pass of gdal's loop), gdal's loop at each node (a rotated raster; smoothing; powers
// 3 and 10), with chunks that do and do not fill the kernels' blocks, and too few samples for
// a block; and that chunks out of order show in the bits.
func TestInvDistStreamEqualsInMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	north := raster.NorthUp(0, 0, 1000, 800, 29, 13)
	rotated := north
	rotated.GeoTransform[2], rotated.GeoTransform[4] = 3, -2
	for _, n := range []int{11, 700} {
		s := &sample.Samples{}
		for range n {
			s.Add(1000*rng.Float64(), 800*rng.Float64(), 50+20*rng.NormFloat64())
		}
		for k := range 6 {
			x, y := north.Node(rng.IntN(north.Cols), rng.IntN(north.Rows), 0, 0)
			s.Add(x, y, float64(k)) // an exact hit, given twice: the first counts
			s.Add(x, y, -float64(k))
		}
		s.Add(s.X[3], s.Y[3], 7) // a duplicate
		s.MoveOrigin(north.Centre())
		sizes := [][]int{{1}, {3, 5, 7, 1, 30}, {13, 13, 13, 13, 13, 13, 13}, {64, 64}}
		for _, c := range []struct {
			alg string
			tg  raster.Target
		}{
			{"invdist", north}, {"invdist", rotated}, {"invdist:smoothing=4", north}, {"invdist:smoothing=4", rotated},
			{"invdist:power=3", north}, {"invdist:power=10:smoothing=2", north}, {"invdist:power=2.5:nodata=-1", rotated},
		} {
			alg, _, err := ParseAlgorithm(c.alg)
			if err != nil {
				t.Fatal(err)
			}
			p := &Problem{Samples: s, Target: c.tg, Alg: alg}
			want := gridAllBands(t, p)
			for _, sz := range sizes {
				got := streamed(t, p, sz, false)
				for i := range want[0] {
					if math.Float64bits(got[0][i]) != math.Float64bits(want[0][i]) {
						t.Fatalf("%s, %d samples, rotated %v, chunks %v: node %d streamed %v, in memory %v", c.alg, n, c.tg.GeoTransform[2] != 0, sz, i, got[0][i], want[0][i])
					}
				}
			}
			if n < 100 {
				continue
			}
			outOfOrderShows(t, c.alg, streamed(t, p, []int{100, 300}, true), want)
		}
	}
}

// TestInvDistStreamTree checks invdist's all-samples form streamed where the in-memory run
// takes the far-field tree, bit for bit: the whole raster and parts of it (as tiles, cutting
// leaves and batches), leaves with and without direct sums (97 x 97 nodes), power 2 with and
// without smoothing and power 3, nodes on samples and samples given twice (left to gdal's
// loop in a second pass), chunks that do and do not fill the kernels' blocks; a sample of
// infinite value, for which the in-memory run does without the tree (the stream then takes
// another pass); and that chunks out of order show in the bits.
func TestInvDistStreamTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tg := raster.NorthUp(0, 0, 1000, 800, 97, 97)
	s := &sample.Samples{}
	for range 500 {
		s.Add(-100+1200*rng.Float64(), -100+1000*rng.Float64(), 50+20*rng.NormFloat64())
	}
	for k := range 5 {
		x, y := tg.Node(rng.IntN(tg.Cols), rng.IntN(tg.Rows), 0, 0)
		s.Add(x, y, float64(k))
		s.Add(x, y, -float64(k))
	}
	s.Add(s.X[3], s.Y[3], 7)
	s.MoveOrigin(tg.Centre())
	inf := &sample.Samples{X: append([]float64{}, s.X...), Y: append([]float64{}, s.Y...), Z: append([]float64{}, s.Z...), OriginX: s.OriginX, OriginY: s.OriginY}
	inf.Z[200] = math.Inf(1)
	parts := [][4]int{{0, 97, 0, 97}, {13, 61, 30, 52}, {90, 97, 0, 5}}
	sizes := [][]int{{1}, {3, 5, 7, 1, 30}, {13, 13, 13, 13, 13, 13, 13}, {256}}
	for _, c := range []struct {
		alg string
		s   *sample.Samples
	}{{"invdist", s}, {"invdist:smoothing=4", s}, {"invdist:power=3", s}, {"invdist", inf}} {
		alg, _, err := ParseAlgorithm(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		p := &Problem{Samples: c.s, Target: tg, Alg: alg}
		if d := alg.(*InvDist).bindAll(p, grid.Build(c.s.X, c.s.Y)); (d.tree == nil) != (c.s == inf) {
			t.Fatalf("%s: the in-memory run takes the tree: %v", c.alg, d.tree != nil)
		}
		want := gridAllBands(t, p)
		for _, part := range parts {
			for _, sz := range sizes {
				got := streamedPart(t, p, sz, false, part, 0)
				i := 0
				for r := part[2]; r < part[3]; r++ {
					for col := part[0]; col < part[1]; col++ {
						w := want[0][r*tg.Cols+col]
						if math.Float64bits(got[0][i]) != math.Float64bits(w) {
							t.Fatalf("%s, part %v, chunks %v: node %d,%d streamed %v, in memory %v", c.alg, part, sz, col, r, got[0][i], w)
						}
						i++
					}
				}
			}
		}
		if c.s == inf {
			continue
		}
		outOfOrderShows(t, c.alg, streamed(t, p, []int{100, 150}, true), want)
	}
}

// outOfOrderShows fails the test unless a stream fed chunks out of order (got) differs from
// the in-memory raster: else the comparisons could not tell a broken stream.
func outOfOrderShows(t *testing.T, name string, got, want [][]float64) {
	t.Helper()
	for i := range want[0] {
		if got[0][i] != want[0][i] {
			return
		}
	}
	t.Errorf("%s: chunks out of order gave the in-memory bits: the test cannot tell a broken stream", name)
}
