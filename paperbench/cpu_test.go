package paperbench

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/aidw/aidw/interp"
)

// tinyInput is a small case whose first node sits on a sample, to exercise the exact hit.
func tinyInput(f Family) *Input {
	d := Generate(Case{Samples: 300, Nodes: 60}, 3)
	d.NodeX[0], d.NodeY[0] = d.X[17], d.Y[17]
	return NewInput(d, f)
}

// bruteIDW is IDW written from its definition: sum(z d^-p) / sum(d^-p), or the value of the
// first sample closer than 1e-13 squared units.
func bruteIDW(in *Input, x, y, p float64) float64 {
	var num, den float64
	for i := range in.X {
		d := math.Hypot(in.X[i]-x, in.Y[i]-y)
		if d*d < 1e-13 {
			return in.Z[i]
		}
		num += in.Z[i] / math.Pow(d, p)
		den += 1 / math.Pow(d, p)
	}
	return num / den
}

// bruteAIDWPower is the adaptive power from Lu & Wong's definitions (README): the mean distance
// to the 15 nearest by sorting all distances, R against 1/(2 sqrt(n/A)), the cosine ramp onto
// mu between 0 and 2, and the five levels 1.5..3.5 at mu = 0.1, 0.3, ..., 0.9.
func bruteAIDWPower(in *Input, x, y float64) float64 {
	d := make([]float64, len(in.X))
	for i := range in.X {
		d[i] = math.Hypot(in.X[i]-x, in.Y[i]-y)
	}
	sort.Float64s(d)
	var rObs float64
	for _, v := range d[:15] {
		rObs += v
	}
	rObs /= 15
	R := rObs / (1 / (2 * math.Sqrt(float64(len(in.X))/(Side*Side))))
	mu := 1.0
	if R < 2 {
		mu = 0.5 - 0.5*math.Cos(math.Pi*R/2)
	}
	levels := []float64{1.5, 2, 2.5, 3, 3.5}
	knots := []float64{0.1, 0.3, 0.5, 0.7, 0.9}
	switch {
	case mu <= knots[0]:
		return levels[0]
	case mu > knots[4]:
		return levels[4]
	}
	i := sort.SearchFloat64s(knots, mu) // knots[i-1] < mu <= knots[i]
	t := (mu - knots[i-1]) / 0.2
	return levels[i-1]*(1-t) + levels[i]*t
}

func TestSerialBaselinesMatchBruteForce(t *testing.T) {
	for _, f := range []Family{IDW2, IDW3, AIDW} {
		in := tinyInput(f)
		run := runSerialIDW
		if f == AIDW {
			run = runSerialAIDW
		}
		out, err := run(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Values) != in.Nodes || out.Elapsed <= 0 {
			t.Fatalf("%s: %d values for %d nodes, elapsed %v", f, len(out.Values), in.Nodes, out.Elapsed)
		}
		if out.Values[0] != in.Z[17] {
			t.Errorf("%s: node on sample 17 gives %g, want its value %g", f, out.Values[0], in.Z[17])
		}
		for j := 1; j < in.Nodes; j++ {
			x, y := in.NodeX[j], in.NodeY[j]
			var p float64
			switch f {
			case IDW2:
				p = 2
			case IDW3:
				p = 3
			default:
				p = bruteAIDWPower(in, x, y)
			}
			if want := bruteIDW(in, x, y, p); math.Abs(out.Values[j]-want) > 1e-12*want {
				t.Fatalf("%s node %d: serial %.15g, brute force %.15g", f, j, out.Values[j], want)
			}
		}
	}
}

func TestSerialAIDWReportsItsStages(t *testing.T) {
	out, err := runSerialAIDW(context.Background(), tinyInput(AIDW))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stages) != 2 || out.Stages[0].Elapsed+out.Stages[1].Elapsed != out.Elapsed {
		t.Errorf("stages %v do not add up to %v", out.Stages, out.Elapsed)
	}
}

func TestSerialStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runSerialAIDW(ctx, tinyInput(AIDW)); err == nil {
		t.Error("cancelled serial AIDW: no error")
	}
}

func TestNearestKKeepsTheKSmallestSorted(t *testing.T) {
	d := Generate(Case{Samples: 500, Nodes: 20}, 9)
	got := make([]float64, 15)
	for j := range d.NodeX {
		nearestK(d.X, d.Y, d.NodeX[j], d.NodeY[j], got)
		all := make([]float64, len(d.X))
		for i := range d.X {
			dx, dy := d.NodeX[j]-d.X[i], d.NodeY[j]-d.Y[i]
			all[i] = dx*dx + dy*dy
		}
		sort.Float64s(all)
		for i := range got {
			if got[i] != all[i] {
				t.Fatalf("node %d: nearest %v, want %v", j, got, all[:15])
			}
		}
	}
}

func TestEngineAndBBox(t *testing.T) {
	in := tinyInput(IDW3)
	out, err := PointsRun(&interp.CPU{})(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for j := 1; j < in.Nodes; j++ {
		if want := bruteIDW(in, in.NodeX[j], in.NodeY[j], 3); math.Abs(out.Values[j]-want) > 1e-12*want {
			t.Fatalf("engine node %d: %.15g, brute force %.15g", j, out.Values[j], want)
		}
	}
	box, err := runSerialBBox(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i := range in.X {
		want[0], want[1] = math.Min(want[0], in.X[i]), math.Min(want[1], in.Y[i])
		want[2], want[3] = math.Max(want[2], in.X[i]), math.Max(want[3], in.Y[i])
	}
	for i := range want {
		if box.Values[i] != want[i] {
			t.Errorf("bbox %v, want %v", box.Values, want)
		}
	}
	if a, ok := NewInput(in.Data, AIDW).Alg.(*interp.AIDW); !ok || a.Area != Side*Side || a.K != 15 {
		t.Errorf("AIDW input algorithm %+v", a)
	}
}

// TestRasterRunIsCheckedAtItsNodes runs the CPU engine the way the GPU engine runs (onto a
// raster) through the harness, which checks it at the raster's nodes.
func TestRasterRunIsCheckedAtItsNodes(t *testing.T) {
	v := Variant{Name: "aidw/raster", Family: AIDW, Device: CPU, Precision: F64,
		Run: RasterRun(&interp.CPU{}, "interp.Grid")}
	res, err := Run(context.Background(), runConfig(1000), []Variant{v})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Status != OK || *r.MaxRelErr > 1e-12 || r.Timing != "interp.Grid" {
		t.Errorf("%+v", r)
	}
	in := tinyInput(AIDW)
	out, err := v.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Values) != in.Nodes || len(out.NodeX) != in.Nodes || out.NodeX[0] != Side/20 {
		t.Errorf("%d values at %d nodes, the first at x = %g", len(out.Values), len(out.NodeX), out.NodeX[0])
	}
}
