package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// TestEvaluateAtMatchesBruteForce checks the point API against an IDW written here, at nodes
// scattered off any raster, and against Grid at a raster's own nodes.
func TestEvaluateAtMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tg := raster.NorthUp(450000, 5400000, 451000, 5401000, 7, 5)
	s := &sample.Samples{}
	s.OriginX, s.OriginY = tg.Centre()
	for range 300 {
		s.Add(450000+1000*rng.Float64(), 5400000+1000*rng.Float64(), 50*rng.Float64())
	}
	p := &Problem{Samples: s, Target: tg, Alg: &InvDist{Power: 3}}
	xs, ys := make([]float64, 500), make([]float64, 500)
	for i := range xs {
		xs[i], ys[i] = 450000+1000*rng.Float64(), 5400000+1000*rng.Float64()
	}
	got, err := EvaluateAt(context.Background(), &CPU{Threads: 2}, p, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range xs {
		var num, den float64
		for j := range s.X {
			d := math.Hypot(s.X[j]+s.OriginX-xs[i], s.Y[j]+s.OriginY-ys[i])
			w := 1 / (d * d * d)
			num, den = num+w*s.Z[j], den+w
		}
		if want := num / den; math.Abs(got[i]-want) > 1e-12*math.Abs(want) {
			t.Fatalf("node %d (%g,%g): got %.15g, want %.15g", i, xs[i], ys[i], got[i], want)
		}
	}

	var grid []float64
	sink := func(_, _ int, v []float64) error { grid = append(grid, v...); return nil }
	if err := Grid(context.Background(), &CPU{}, p, sink, nil); err != nil {
		t.Fatal(err)
	}
	xs, ys = xs[:0], ys[:0]
	for row := range tg.Rows {
		for col := range tg.Cols {
			x, y := tg.Node(col, row, 0, 0)
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	at, err := EvaluateAt(context.Background(), &CPU{}, p, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range grid {
		if math.Abs(at[i]-grid[i]) > 1e-12*math.Abs(grid[i]) {
			t.Fatalf("raster node %d: EvaluateAt %.15g, Grid %.15g", i, at[i], grid[i])
		}
	}
}

func TestEvaluateAtRejectsBadInput(t *testing.T) {
	tg := raster.NorthUp(0, 0, 1, 1, 1, 1)
	s := &sample.Samples{X: []float64{0.5}, Y: []float64{0.5}, Z: []float64{1}}
	p := &Problem{Samples: s, Target: tg, Alg: &InvDist{Power: 2}}
	if _, err := EvaluateAt(context.Background(), &CPU{}, p, []float64{0, 1}, []float64{0}); err == nil {
		t.Error("mismatched x and y lengths: no error")
	}
	p.Samples = &sample.Samples{}
	if _, err := EvaluateAt(context.Background(), &CPU{}, p, []float64{0}, []float64{0}); err == nil {
		t.Error("no samples: no error")
	}
}
