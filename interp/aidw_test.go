package interp

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// The test problems lie at UTM scale, where the engine's local origin matters.
const (
	aidwX0, aidwY0 = 451_000.0, 5_402_000.0
	aidwNodata     = -9999.0
)

// aidwPoint is a sample in absolute coordinates.
type aidwPoint struct{ x, y, z float64 }

// aidwRefNode is the reference's AIDW at one node.
type aidwRefNode struct {
	value, alpha, rObs, r, mu float64
	count                     int
}

// aidwReference is AIDW straight from issue 2's definition, in float64 and absolute
// coordinates, with math.Pow and a full sort of the distances: the independent expectation.
func aidwReference(pts []aidwPoint, o AIDW, extent [4]float64, nx, ny float64) aidwRefNode {
	n := len(pts)
	d2 := make([]float64, n)
	order := make([]int, n)
	for i, p := range pts {
		d2[i] = (p.x-nx)*(p.x-nx) + (p.y-ny)*(p.y-ny)
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if d2[a] != d2[b] {
			return cmp.Compare(d2[a], d2[b])
		}
		return a - b
	})
	var out aidwRefNode
	k := min(o.K, n)
	for _, i := range order[:k] {
		out.rObs += math.Sqrt(d2[i])
	}
	out.rObs /= float64(k)

	area := o.Area
	if area == 0 {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range pts {
			minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
			minY, maxY = math.Min(minY, p.y), math.Max(maxY, p.y)
		}
		area = (maxX - minX) * (maxY - minY)
		if area == 0 {
			area = (extent[2] - extent[0]) * (extent[3] - extent[1])
		}
	}
	rExp := 1 / (2 * math.Sqrt(float64(n)/area))
	out.r = out.rObs / rExp
	switch {
	case out.r <= o.RMin:
		out.mu = 0
	case out.r >= o.RMax:
		out.mu = 1
	default:
		out.mu = 0.5 - 0.5*math.Cos(math.Pi*(out.r-o.RMin)/(o.RMax-o.RMin))
	}
	a, mu := o.Alphas, out.mu
	switch {
	case mu <= 0.1:
		out.alpha = a[0]
	case mu <= 0.3:
		out.alpha = a[0]*(1-5*(mu-0.1)) + 5*a[1]*(mu-0.1)
	case mu <= 0.5:
		out.alpha = a[1]*(1-5*(mu-0.3)) + 5*a[2]*(mu-0.3)
	case mu <= 0.7:
		out.alpha = a[2]*(1-5*(mu-0.5)) + 5*a[3]*(mu-0.5)
	case mu <= 0.9:
		out.alpha = a[3]*(1-5*(mu-0.7)) + 5*a[4]*(mu-0.7)
	default:
		out.alpha = a[4]
	}

	for i := range pts {
		if d2[i] < 1e-13 {
			out.value, out.count = pts[i].z, 1
			return out
		}
	}
	hood := order
	if o.MaxPoints > 0 || o.Radius > 0 {
		if o.MaxPoints > 0 {
			hood = hood[:min(o.MaxPoints, n)]
		}
		if o.Radius > 0 {
			var in []int
			for _, i := range hood {
				if math.Sqrt(d2[i]) <= o.Radius {
					in = append(in, i)
				}
			}
			hood = in
		}
	}
	out.count = len(hood)
	if len(hood) == 0 || len(hood) < o.MinPoints {
		out.value = o.NodataValue
		return out
	}
	// Weights are d^-alpha divided by the nearest one's (a common factor), so that large powers
	// neither overflow nor underflow to 0/0.
	dNear := math.Sqrt(d2[order[0]])
	var sw, swz float64
	for _, i := range hood {
		w := math.Pow(math.Sqrt(d2[i])/dNear, -out.alpha)
		sw += w
		swz += w * pts[i].z
	}
	out.value = swz / sw
	return out
}

// aidwCase is one problem: samples, a target extent and size, and options.
type aidwCase struct {
	name       string
	pts        []aidwPoint
	extent     [4]float64 // xmin, ymin, xmax, ymax
	cols, rows int
	opt        AIDW
}

func (c aidwCase) target() raster.Target {
	return raster.NorthUp(c.extent[0], c.extent[1], c.extent[2], c.extent[3], c.cols, c.rows)
}

// nodeXY is the centre of node (col,row) as issue 2 defines it, in absolute coordinates.
func (c aidwCase) nodeXY(col, row int) (float64, float64) {
	dx := (c.extent[2] - c.extent[0]) / float64(c.cols)
	dy := (c.extent[3] - c.extent[1]) / float64(c.rows)
	return c.extent[0] + (float64(col)+0.5)*dx, c.extent[3] - (float64(row)+0.5)*dy
}

// problem builds the engine's problem the way the real flow does: samples read in absolute
// coordinates, then moved to the target's centre as origin.
func (c aidwCase) problem() *Problem {
	s := &sample.Samples{}
	for _, p := range c.pts {
		s.Add(p.x, p.y, p.z)
	}
	t := c.target()
	s.MoveOrigin(t.Centre())
	o := c.opt
	return &Problem{Samples: s, Target: t, Alg: &o}
}

// aidwGrid computes the whole target through interp.Grid on the CPU engine.
func aidwGrid(t *testing.T, p *Problem) []float64 {
	t.Helper()
	out := make([]float64, 0, p.Target.Cols*p.Target.Rows)
	next := 0
	sink := func(row0, rows int, values []float64) error {
		if row0 != next {
			t.Fatalf("rows arrived out of order: %d, want %d", row0, next)
		}
		next = row0 + rows
		out = append(out, values...)
		return nil
	}
	if err := Grid(context.Background(), &CPU{}, p, sink, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func aidwRelErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

// checkAIDWReference grids the case and compares every node with aidwReference to 1e-9 relative;
// it returns the reference nodes for case-specific checks.
func checkAIDWReference(t *testing.T, c aidwCase) []aidwRefNode {
	t.Helper()
	got := aidwGrid(t, c.problem())
	ref := make([]aidwRefNode, 0, len(got))
	worst := 0.0
	for row := range c.rows {
		for col := range c.cols {
			x, y := c.nodeXY(col, row)
			want := aidwReference(c.pts, c.opt, c.extent, x, y)
			ref = append(ref, want)
			g := got[row*c.cols+col]
			e := aidwRelErr(g, want.value)
			if !(e <= 1e-9) {
				t.Errorf("node (%d,%d): got %.15g, want %.15g (alpha %g, rel. error %.3g)", col, row, g, want.value, want.alpha, e)
			}
			worst = max(worst, e)
		}
	}
	t.Logf("%d nodes, worst relative error %.3g", len(got), worst)
	return ref
}

func aidwDefaults() AIDW {
	a := DefaultAIDW()
	a.NodataValue = aidwNodata
	return a
}

// aidwUniform draws n samples uniform over the box, values in [100,200) so that relative
// errors are meaningful.
func aidwUniform(rng *rand.Rand, n int, box [4]float64) []aidwPoint {
	pts := make([]aidwPoint, n)
	for i := range pts {
		pts[i] = aidwPoint{box[0] + rng.Float64()*(box[2]-box[0]), box[1] + rng.Float64()*(box[3]-box[1]), 100 + 100*rng.Float64()}
	}
	return pts
}

// aidwClustered is a sparse background with three tight clusters, so that R runs from far
// below 1 (inside clusters) to far above (the empty corners): every piece of the alpha ramp.
func aidwClustered(rng *rand.Rand) []aidwPoint {
	box := [4]float64{aidwX0, aidwY0, aidwX0 + 3000, aidwY0 + 2000}
	pts := aidwUniform(rng, 40, box)
	for _, c := range [][2]float64{{aidwX0 + 500, aidwY0 + 500}, {aidwX0 + 2200, aidwY0 + 1500}, {aidwX0 + 1500, aidwY0 + 300}} {
		for range 120 {
			pts = append(pts, aidwPoint{c[0] + rng.NormFloat64()*30, c[1] + rng.NormFloat64()*30, 100 + 100*rng.Float64()})
		}
	}
	return pts
}

// aidwBox is the samples' box of most cases; the target reaches beyond it.
var (
	aidwBox    = [4]float64{aidwX0, aidwY0, aidwX0 + 3000, aidwY0 + 2000}
	aidwExtent = [4]float64{aidwX0 - 500, aidwY0 - 400, aidwX0 + 3500, aidwY0 + 2400}
)

func TestAIDWGlobalMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := aidwCase{name: "global", pts: aidwClustered(rng), extent: aidwExtent, cols: 40, rows: 24, opt: aidwDefaults()}
	ref := checkAIDWReference(t, c)
	// The case must exercise the whole alpha ramp, both flat ends included.
	var low, high, mid int
	for _, r := range ref {
		switch {
		case r.mu <= 0.1:
			low++
		case r.mu > 0.9:
			high++
		default:
			mid++
		}
	}
	if low == 0 || high == 0 || mid == 0 {
		t.Errorf("mu coverage: %d nodes <= 0.1, %d in between, %d > 0.9; want all three", low, mid, high)
	}
}

func TestAIDWLocalMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pts := aidwClustered(rng)
	for _, tc := range []struct {
		name            string
		maxPts, minPts  int
		radius          float64
		wantNodata      bool // some nodes must be nodata
		wantComputedToo bool
	}{
		{name: "max_points", maxPts: 10},
		{name: "max_points below k", maxPts: 4},
		{name: "radius", radius: 250, wantNodata: true, wantComputedToo: true},
		{name: "max_points and radius", maxPts: 12, radius: 300, wantNodata: true, wantComputedToo: true},
		{name: "min_points", maxPts: 20, radius: 400, minPts: 8, wantNodata: true, wantComputedToo: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := aidwDefaults()
			o.MaxPoints, o.Radius, o.MinPoints = tc.maxPts, tc.radius, tc.minPts
			ref := checkAIDWReference(t, aidwCase{pts: pts, extent: aidwExtent, cols: 36, rows: 22, opt: o})
			var nodata, computed int
			for _, r := range ref {
				if r.value == aidwNodata {
					nodata++
				} else {
					computed++
				}
			}
			if tc.wantNodata && nodata == 0 || tc.wantComputedToo && computed == 0 {
				t.Errorf("%d nodata and %d computed nodes: the case does not exercise the neighbourhood rules", nodata, computed)
			}
		})
	}
}

// TestAIDWExactHits puts samples on node centres: a node takes the value of the first sample,
// in input order, within 1e-13 squared units, even when a later one is closer.
func TestAIDWExactHits(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	c := aidwCase{pts: aidwUniform(rng, 200, aidwBox), extent: aidwBox, cols: 30, rows: 20}
	hit := func(col, row int, dx float64, z float64) {
		x, y := c.nodeXY(col, row)
		c.pts = append(c.pts, aidwPoint{x + dx, y, z})
	}
	hit(3, 4, 2e-7, 111) // d2 = 4e-14: an exact hit, and first
	hit(3, 4, 0, 222)
	hit(10, 7, 0, 333) // duplicates right on the node: the first wins
	hit(10, 7, 0, 444)
	hit(20, 15, 0, 555)
	hit(25, 2, 4e-7, 666) // d2 = 1.6e-13: not an exact hit but weighted, d^-alpha huge
	want := map[[2]int]float64{{3, 4}: 111, {10, 7}: 333, {20, 15}: 555}
	for _, tc := range []struct {
		name           string
		maxPts, minPts int
	}{{"global", 0, 0}, {"max_points", 1, 0}, {"min_points", 3, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			c := c
			c.opt = aidwDefaults()
			c.opt.MaxPoints, c.opt.MinPoints = tc.maxPts, tc.minPts
			checkAIDWReference(t, c)
			got := aidwGrid(t, c.problem())
			for node, z := range want {
				if g := got[node[1]*c.cols+node[0]]; g != z {
					t.Errorf("node %v: got %g, want the exact hit's %g", node, g, z)
				}
			}
		})
	}
}

func TestAIDWFewSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{1, 2, 6} {
		c := aidwCase{pts: aidwUniform(rng, n, aidwBox), extent: aidwExtent, cols: 12, rows: 9, opt: aidwDefaults()}
		checkAIDWReference(t, c)
	}
}

// TestAIDWCollinear has samples on a horizontal line: a zero-area box, so the study area is the
// output extent's.
func TestAIDWCollinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	var pts []aidwPoint
	for range 50 {
		pts = append(pts, aidwPoint{aidwX0 + rng.Float64()*3000, aidwY0 + 1000, 100 + 100*rng.Float64()})
	}
	c := aidwCase{pts: pts, extent: aidwExtent, cols: 20, rows: 14, opt: aidwDefaults()}
	checkAIDWReference(t, c)
	c.opt.MaxPoints = 8
	checkAIDWReference(t, c)
}

func TestAIDWOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	pts := aidwClustered(rng)
	for _, tc := range []struct {
		name string
		set  func(o *AIDW)
	}{
		{"explicit area", func(o *AIDW) { o.Area = 2.5e7 }},
		{"k=1", func(o *AIDW) { o.K = 1 }},
		{"k=40", func(o *AIDW) { o.K = 40 }},
		{"rmin rmax", func(o *AIDW) { o.RMin, o.RMax = 0.5, 1.5 }},
		{"alphas", func(o *AIDW) { o.Alphas = [5]float64{0, 1, 4, 2.5, 9} }},
		{"large powers", func(o *AIDW) { o.Alphas = [5]float64{8, 16, 32, 64, 128} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := aidwDefaults()
			tc.set(&o)
			checkAIDWReference(t, aidwCase{pts: pts, extent: aidwExtent, cols: 24, rows: 16, opt: o})
		})
	}
}

// TestAIDWNodeDiagnostics checks the per-node quantities diagnostics report.
func TestAIDWNodeDiagnostics(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, maxPts := range []int{0, 9} {
		c := aidwCase{pts: aidwClustered(rng), extent: aidwExtent, cols: 16, rows: 10, opt: aidwDefaults()}
		c.opt.MaxPoints = maxPts
		p := c.problem()
		e, err := c.opt.evaluator(p, grid.Build(p.Samples.X, p.Samples.Y), p.Samples.Len())
		if err != nil {
			t.Fatal(err)
		}
		sc := &scratch{}
		for row := range c.rows {
			for col := range c.cols {
				x, y := c.nodeXY(col, row)
				want := aidwReference(c.pts, c.opt, c.extent, x, y)
				got := e.node(sc, -1, x-p.Samples.OriginX, y-p.Samples.OriginY)
				if aidwRelErr(got.RObs, want.rObs) > 1e-12 || aidwRelErr(got.R, want.r) > 1e-12 ||
					math.Abs(got.Alpha-want.alpha) > 1e-12 || got.Count != want.count || aidwRelErr(got.Value, want.value) > 1e-9 {
					t.Errorf("max_points=%d node (%d,%d): got %+v, want %+v", maxPts, col, row, got, want)
				}
			}
		}
	}
}

// alphaByKnots is the alpha ramp as linear interpolation through (0.1,a1) ... (0.9,a5).
func alphaByKnots(mu float64, a [5]float64) float64 {
	if mu <= 0.1 {
		return a[0]
	}
	if mu >= 0.9 {
		return a[4]
	}
	i := min(int((mu-0.1)/0.2), 3)
	f := (mu - (0.1 + 0.2*float64(i))) / 0.2
	return a[i] + f*(a[i+1]-a[i])
}

func TestAlphaFromMu(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	levels := [][5]float64{{1.5, 2, 2.5, 3, 3.5}, {1, 2, 3, 4, 5}, {0, 0, 7, 7, 9}}
	for range 20 {
		var a [5]float64
		for i := range a {
			a[i] = rng.Float64() * 6
		}
		levels = append(levels, a)
	}
	for _, a := range levels {
		for i := 0; i <= 1200; i++ {
			mu := -0.1 + float64(i)/1000
			if got, want := AlphaFromMu(mu, a), alphaByKnots(mu, a); math.Abs(got-want) > 1e-12 {
				t.Errorf("levels %v: alpha(%g) = %.15g, want %.15g", a, mu, got, want)
			}
		}
		for i, knot := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
			below, at, above := AlphaFromMu(knot-1e-12, a), AlphaFromMu(knot, a), AlphaFromMu(knot+1e-12, a)
			if math.Abs(at-a[i]) > 1e-12 || math.Abs(below-at) > 1e-10 || math.Abs(above-at) > 1e-10 {
				t.Errorf("levels %v: not continuous at mu=%g: %.15g %.15g %.15g", a, knot, below, at, above)
			}
		}
	}
	// The published code's a1 in the third piece would give 2 here.
	if got := AlphaFromMu(0.4, [5]float64{1, 2, 3, 4, 5}); math.Abs(got-2.5) > 1e-12 {
		t.Errorf("alpha(0.4) with levels 1..5 = %g, want 2.5", got)
	}
}

func TestAlphaFromMuMonotonic(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for range 50 {
		var a [5]float64
		for i := range a {
			a[i] = rng.Float64() * 5
		}
		slices.Sort(a[:])
		prev := math.Inf(-1)
		for i := 0; i <= 100_000; i++ {
			alpha := AlphaFromMu(float64(i)/100_000, a)
			if alpha < prev-1e-15 {
				t.Fatalf("levels %v: alpha decreases at mu=%g (%.17g after %.17g)", a, float64(i)/100_000, alpha, prev)
			}
			prev = alpha
		}
	}
}

func TestMuFromR(t *testing.T) {
	for _, r := range [][2]float64{{0, 2}, {0.5, 1.5}, {1, 1.25}, {-1, 3}} {
		rmin, rmax := r[0], r[1]
		for _, tc := range []struct{ R, want float64 }{
			{rmin - 1, 0}, {rmin, 0}, {rmax, 1}, {rmax + 5, 1}, {(rmin + rmax) / 2, 0.5},
			{rmin + (rmax-rmin)/3, 0.25}, {rmin + 2*(rmax-rmin)/3, 0.75},
		} {
			if got := MuFromR(tc.R, rmin, rmax); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("MuFromR(%g, %g, %g) = %.15g, want %g", tc.R, rmin, rmax, got, tc.want)
			}
		}
		prev := 0.0
		for i := 0; i <= 10_000; i++ {
			R := rmin - 0.1 + float64(i)*(rmax-rmin+0.2)/10_000
			mu := MuFromR(R, rmin, rmax)
			if mu < prev || mu > 1 {
				t.Fatalf("MuFromR(%g, %g, %g) = %g after %g: not a nondecreasing map into [0,1]", R, rmin, rmax, mu, prev)
			}
			prev = mu
		}
		if d := MuFromR(math.Nextafter(rmin, math.Inf(1)), rmin, rmax); d > 1e-12 {
			t.Errorf("MuFromR jumps to %g just above rmin=%g", d, rmin)
		}
		if d := MuFromR(math.Nextafter(rmax, 0), rmin, rmax); d < 1-1e-12 {
			t.Errorf("MuFromR is %g just below rmax=%g", d, rmax)
		}
	}
}

func TestExpectedDistance(t *testing.T) {
	for _, tc := range []struct {
		n          int
		area, want float64
	}{{100, 1e4, 5}, {1, 4, 1}, {102_400, 1e6, 1.5625}} {
		if got := ExpectedDistance(tc.n, tc.area); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("ExpectedDistance(%d, %g) = %g, want %g", tc.n, tc.area, got, tc.want)
		}
	}
}

func TestParseAIDW(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want AIDW
	}{
		{"aidw", AIDW{K: 15, RMax: 2, Alphas: [5]float64{1.5, 2, 2.5, 3, 3.5}, FarField: true}},
		{"AIDW:", DefaultAIDW()},
		{"aidw:k=8:area=1e6:rmin=0.5:rmax=1.5:alphas=1, 2,3,4,5:max_points=12:radius=500:min_points=3:nodata=-9999",
			AIDW{K: 8, Area: 1e6, RMin: 0.5, RMax: 1.5, Alphas: [5]float64{1, 2, 3, 4, 5}, MaxPoints: 12, Radius: 500, MinPoints: 3, NodataValue: -9999, FarField: true}},
		{"aidw:K=3:Alphas=0,0,0,0,0:farfield=no", AIDW{K: 3, RMax: 2}},
	} {
		a, warnings, err := ParseAlgorithm(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		got, ok := a.(*AIDW)
		if !ok || *got != tc.want || len(warnings) != 0 {
			t.Errorf("%q: got %+v (warnings %v), want %+v", tc.in, a, warnings, tc.want)
		}
		if a.Name() != "aidw" || a.NoData() != tc.want.NodataValue {
			t.Errorf("%q: name %q, nodata %g", tc.in, a.Name(), a.NoData())
		}
	}
}

func TestParseAIDWRejectsBadValues(t *testing.T) {
	for _, tc := range []struct{ in, mention string }{
		{"aidw:k=0", "k=0"},
		{"aidw:k=-3", "k=-3"},
		{"aidw:k=1.5", "k="},
		{"aidw:k=", "k="},
		{"aidw:alphas=1,2,3,4", "alphas="},
		{"aidw:alphas=1,2,3,4,5,6", "alphas="},
		{"aidw:alphas=1,2,-3,4,5", "alphas="},
		{"aidw:alphas=1,2,nan,4,5", "alphas="},
		{"aidw:alphas=1,2,inf,4,5", "alphas="},
		{"aidw:alphas=1,2,x,4,5", "alphas="},
		{"aidw:rmax=0", "rmax=0"},
		{"aidw:rmin=3", "rmax=2"},
		{"aidw:rmin=1:rmax=1", "rmax=1"},
		{"aidw:rmax=abc", "rmax="},
		{"aidw:rmin=nan", "rmin="},
		{"aidw:area=-1", "area=-1"},
		{"aidw:area=inf", "area=+Inf"},
		{"aidw:max_points=-1", "max_points=-1"},
		{"aidw:radius=-5", "radius=-5"},
		{"aidw:radius=NaN", "radius=NaN"},
		{"aidw:min_points=-1", "min_points=-1"},
		{"aidw:min_points=20:max_points=10", "min_points=20"},
		{"aidw:power=2", "power"},
		{"aidw:k=5:smoothing=1:radius1=3", "smoothing, radius1"},
		{"aidw:k", "k"},
	} {
		_, _, err := ParseAlgorithm(tc.in)
		if err == nil {
			t.Errorf("%q: no error", tc.in)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.mention) || !strings.Contains(msg, "aidw") {
			t.Errorf("%q: error %q does not name %q", tc.in, msg, tc.mention)
		}
	}
}

// TestAIDWRejectsInvalidOptionsAtBind covers options set in code rather than parsed.
func TestAIDWRejectsInvalidOptionsAtBind(t *testing.T) {
	a := DefaultAIDW()
	a.Alphas[2] = -1
	p := aidwCase{pts: []aidwPoint{{aidwX0, aidwY0, 1}, {aidwX0 + 1, aidwY0 + 1, 2}}, extent: aidwBox, cols: 4, rows: 4, opt: a}.problem()
	err := Grid(context.Background(), &CPU{}, p, func(int, int, []float64) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "alphas=") {
		t.Errorf("got %v, want an error naming alphas", err)
	}
}

// Global AIDW on a large raster sums distant samples by the far field (here from 25,000
// samples and 5e9 pairs, thresholds lowered for the test): the values stay within 1e-9 of the exact sums (farfield=no, brute force
// at sampled nodes), are not all the exact ones (the far field ran), and do not depend on the
// number of workers.
func TestAIDWFarField(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	s := &sample.Samples{}
	for i := range 25000 {
		x, y := r.Float64()*1000, r.Float64()*1000
		if i%3 == 0 { // a cluster
			x, y = 300+r.NormFloat64()*20, 600+r.NormFloat64()*20
		}
		s.Add(x, y, 100+10*math.Sin(x/90)+5*math.Cos(y/70)+r.Float64())
	}
	target := raster.NorthUp(-20, -20, 1020, 1020, 500, 400) // 200,000 nodes: 5e9 pairs
	s.MoveOrigin(target.Centre())
	a := DefaultAIDW()
	a.farFieldAt = &farFieldThresholds{25000, 5e9}
	var alg Algorithm = &a
	grid := func(threads int) []float64 {
		var out []float64
		err := Grid(context.Background(), &CPU{Threads: threads}, &Problem{Samples: s, Target: target, Alg: alg},
			func(_, _ int, v []float64) error { out = append(out, v...); return nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := grid(2)
	for i, v := range grid(1) {
		if math.Float64bits(v) != math.Float64bits(got[i]) {
			t.Fatalf("node %d: %v with one worker, %v with two", i, v, got[i])
		}
	}
	exact, _, err := ParseAlgorithm("aidw:farfield=no")
	if err != nil {
		t.Fatal(err)
	}
	var xs, ys []float64
	var idx []int
	for k := 0; k < len(got); k += 397 {
		x, y := target.Node(k%target.Cols, k/target.Cols, 0, 0)
		xs, ys, idx = append(xs, x), append(ys, y), append(idx, k)
	}
	want, err := EvaluateAt(context.Background(), &CPU{}, &Problem{Samples: s, Target: target, Alg: exact}, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for j, k := range idx {
		if e := math.Abs(got[k]-want[j]) / math.Abs(want[j]); e > 1e-9 {
			t.Fatalf("node %d: %v, the exact sum %v: relative error %.2g over 1e-9", k, got[k], want[j], e)
		}
		if got[k] != want[j] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("every sampled node equals the exact sum: the far field did not run")
	}
}

// A cancelled context stops the far field's build and the nodes after it: the run ends with
// the context's error, not a raster.
func TestAIDWFarFieldCancel(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	s := &sample.Samples{}
	for range 25000 {
		s.Add(r.Float64()*1000, r.Float64()*1000, r.Float64())
	}
	target := raster.NorthUp(0, 0, 1000, 1000, 500, 400)
	s.MoveOrigin(target.Centre())
	a := DefaultAIDW()
	a.farFieldAt = &farFieldThresholds{25000, 5e9}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := Grid(ctx, &CPU{}, &Problem{Samples: s, Target: target, Alg: &a}, func(int, int, []float64) error { return nil }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled far-field run returned %v", err)
	}
}

// Leave-one-out of the global form uses the far field too (thresholds lowered for the test):
// each held-out sample at its place is an exact hit to the far field, which leaves it out; the
// predictions stay within 1e-9 of the exact ones (farfield=no), and are not all equal to them.
func TestAIDWFarFieldLeaveOneOut(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	s := &sample.Samples{}
	for i := range 25000 {
		x, y := r.Float64()*1000, r.Float64()*1000
		if i%4 == 0 {
			x, y = 700+r.NormFloat64()*15, 200+r.NormFloat64()*15
		}
		s.Add(x, y, 50+10*math.Sin(x/80)+r.Float64())
	}
	s.Add(s.X[7], s.Y[7], 3) // a repeat: held out, the other stays, as an exact hit
	target := raster.NorthUp(0, 0, 1000, 1000, 100, 100)
	s.MoveOrigin(target.Centre())
	far := DefaultAIDW()
	far.farFieldAt = &farFieldThresholds{25000, 5e8}
	exact := DefaultAIDW()
	exact.FarField = false
	got, err := LeaveOneOut(context.Background(), &far, s, target, 2)
	if err != nil {
		t.Fatal(err)
	}
	want, err := LeaveOneOut(context.Background(), &exact, s, target, 2)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range want {
		if e := math.Abs(got[i]-want[i]) / math.Abs(want[i]); e > 1e-9 {
			t.Fatalf("sample %d: %v, the exact prediction %v: relative error %.2g over 1e-9", i, got[i], want[i], e)
		}
		if got[i] != want[i] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("every prediction equals the exact one: the far field did not run")
	}
	if got[7] != 3 || got[len(got)-1] != s.Z[7] {
		t.Fatalf("the repeated sample's predictions %v, %v: want each the other's value", got[7], got[len(got)-1])
	}
}
