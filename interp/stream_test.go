package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// streamed computes p's raster by a Stream fed chunks of the given sizes (the rest in the
// last); swap feeds the first two chunks the wrong way round, as a stream out of order would.
func streamed(t *testing.T, p *Problem, sizes []int, swap bool) [][]float64 {
	return streamedPasses(t, p, sizes, swap, 0)
}

// streamedPasses is streamed with average_distance_pts's rows pairRows a pass: the chunks go
// past as many times as the stream asks.
func streamedPasses(t *testing.T, p *Problem, sizes []int, swap bool, pairRows int) [][]float64 {
	t.Helper()
	tg := p.Target
	nodes := StreamNodes{N: p.Samples.Len(), RasterNodes: float64(tg.Cols * tg.Rows), PairRows: pairRows}
	for r := range tg.Rows {
		for c := range tg.Cols {
			x, y := p.NodeXY(c, r)
			nodes.X, nodes.Y = append(nodes.X, x), append(nodes.Y, y)
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
	for again := true; again; {
		for _, c := range chunks {
			if err := st.Add(context.Background(), c, 2); err != nil {
				t.Fatal(err)
			}
		}
		if again, err = st.EndPass(); err != nil {
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
			got := streamed(t, p, []int{1000, 1200}, true)
			differ := false
			for i := range want[0] {
				differ = differ || got[0][i] != want[0][i]
			}
			if !differ {
				t.Errorf("%s: chunks out of order gave the in-memory bits: the test cannot tell a broken stream", name)
			}
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
	for _, rows := range []int{1, 999, 2500, 5001, 100000} {
		for _, sz := range [][]int{{5001}, {3, 5, 8, 1, 2000}, {1000, 1000, 1000, 1000}} {
			if got := streamedPasses(t, p, sz, false, rows)[0][0]; math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("rows %d, chunks %v: streamed %v, in memory %v", rows, sz, got, want)
			}
		}
	}
	if got := streamedPasses(t, p, []int{1000, 1200}, true, 2000)[0][0]; got == want {
		t.Errorf("chunks out of order gave the in-memory bits: the test cannot tell a broken stream")
	}
}

// TestStreamRefuses checks the forms that cannot stream are named.
func TestStreamRefuses(t *testing.T) {
	for _, name := range []string{"invdist", "aidw:max_points=12", "average:radius=5"} {
		alg, _, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		if CanStream(alg, 1_000_000, 1e6) == nil {
			t.Errorf("%s streams over 1e6 samples onto 1e6 nodes", name)
		}
	}
	alg, _, _ := ParseAlgorithm("aidw")
	if err := CanStream(alg, 1000, 100); err != nil || UsesFarField(alg, 1000, 100) {
		t.Errorf("aidw below the far field's thresholds: %v", err)
	}
	if err := CanStream(alg, 1_000_000, 1e6); err != nil || !UsesFarField(alg, 1_000_000, 1e6) {
		t.Errorf("aidw above the far field's thresholds: %v", err)
	}
}
