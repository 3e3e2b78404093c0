package interp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// refInvDist is gdal 3.6's invdist at (x,y), from GDALGridInverseDistanceToAPower and
// GDALGridInverseDistanceToAPowerNoSearch.
func refInvDist(a *InvDist, s *sample.Samples, x, y float64) float64 {
	var num, den float64
	n := 0
	for i := range s.X {
		dx, dy := s.X[i]-x, s.Y[i]-y
		r2 := dx*dx + dy*dy + a.Smoothing*a.Smoothing
		search := a.Radius1 != 0 || a.Radius2 != 0
		if search && !gdalEllipse(dx, dy, a.Radius1, a.Radius2, a.Angle) {
			continue
		}
		noHitTest := !search && a.Power == 2 && a.Smoothing > 0
		if r2 < 1e-13 && !noHitTest {
			return s.Z[i]
		}
		w := 1 / math.Pow(r2, a.Power/2)
		num += w * s.Z[i]
		den += w
		n++
		if search && a.MaxPoints > 0 && n > a.MaxPoints {
			break
		}
	}
	if den == 0 || (a.Radius1 != 0 || a.Radius2 != 0) && n < a.MinPoints {
		return a.NodataValue
	}
	return num / den
}

// refInvDistNN is gdal 3.6's invdistnn at (x,y): the max_points nearest within the radius by
// d^2 + smoothing^2 (no ties in these tests), or per quadrant.
func refInvDistNN(a *InvDistNN, s *sample.Samples, x, y float64) float64 {
	s2 := a.Smoothing * a.Smoothing
	var in []int
	for i := range s.X {
		dx, dy := s.X[i]-x, s.Y[i]-y
		if dx*dx+dy*dy+s2 < 1e-13 {
			return s.Z[i]
		}
		if dx*dx+dy*dy <= a.Radius*a.Radius {
			in = append(in, i)
		}
	}
	key := func(i int) float64 { dx, dy := s.X[i]-x, s.Y[i]-y; return dx*dx + dy*dy + s2 }
	var picked []int
	if a.active() {
		var count [4]int
		picked, count = refQuadrants(s, x, y, in, key, a.MaxPerQuadrant, a.MaxPoints)
		for _, c := range count {
			if c < a.MinPerQuadrant {
				return a.NodataValue
			}
		}
	} else {
		slices.SortFunc(in, func(p, q int) int { return cmp.Compare(key(p), key(q)) })
		picked = in[:min(len(in), a.MaxPoints)]
		if a.MaxPoints == 0 {
			picked = in
		}
	}
	var num, den float64
	for _, i := range picked {
		w := 1 / math.Pow(key(i), a.Power/2)
		num += w * s.Z[i]
		den += w
	}
	if len(picked) < a.MinPoints || den == 0 {
		return a.NodataValue
	}
	return num / den
}

func TestInvDistMatchesGDAL(t *testing.T) {
	s := utmSamples(1500, 1000, 1)
	tg := utmTarget(1000, 50, 31)
	for _, alg := range []string{
		"invdist",
		"invdist:power=2:smoothing=3",
		"invdist:power=3",
		"invdist:power=1.5:smoothing=0.7",
		"invdist:power=0",
		"invdist:radius1=90:radius2=60:angle=30",
		"invdist:radius1=90:radius2=60:angle=-75:power=2.5:max_points=4:min_points=3:nodata=-9",
		"invdist:radius=70:max_points=6:smoothing=2",
		"invdist:radius=40:min_points=6:nodata=-1",
	} {
		a, _, _ := ParseAlgorithm(alg)
		ref := a.(*InvDist)
		want := refValues(tg, func(x, y float64) float64 { return refInvDist(ref, s, x, y) })
		got := gridValues(t, alg, s, tg)
		sameValues(t, alg, got, want)
		if ref.MinPoints > 0 && countValue(want, ref.NodataValue) == 0 {
			t.Errorf("%s: no node below min_points; the test misses nodata", alg)
		}
	}
}

func TestInvDistNNMatchesGDAL(t *testing.T) {
	s := utmSamples(1500, 1000, 2)
	tg := utmTarget(1000, 50, 31)
	for _, alg := range []string{
		"invdistnn:radius=80",
		"invdistnn:radius=80:max_points=0:power=1",
		"invdistnn:radius=120:max_points=7:smoothing=4:power=3:min_points=5:nodata=-5",
		"invdistnn:radius=100:max_points=9:min_points_per_quadrant=1:max_points_per_quadrant=3",
		"invdistnn:radius=100:max_points=0:min_points_per_quadrant=2:nodata=-2",
		"invdistnn:radius=90:max_points_per_quadrant=1:power=2.5",
	} {
		a, _, _ := ParseAlgorithm(alg)
		ref := a.(*InvDistNN)
		want := refValues(tg, func(x, y float64) float64 { return refInvDistNN(ref, s, x, y) })
		sameValues(t, alg, gridValues(t, alg, s, tg), want)
		if ref.MinPoints+ref.MinPerQuadrant > 0 && countValue(want, ref.NodataValue) == 0 {
			t.Errorf("%s: no nodata node; the test misses min_points", alg)
		}
	}
}

// TestInvDistExactHits puts samples exactly on nodes, two (with different values) on one node:
// the first in input order gives the node its value, within the search or without.
func TestInvDistExactHits(t *testing.T) {
	s := utmSamples(500, 1000, 3)
	tg := utmTarget(1000, 0, 20)
	hits := map[int]float64{}
	for k, cr := range [][2]int{{3, 4}, {10, 10}, {10, 10}, {19, 0}, {7, 15}} {
		x, y := tg.Node(cr[0], cr[1], 0, 0)
		s.Add(x, y, 1000+float64(k))
		if _, ok := hits[cr[1]*tg.Cols+cr[0]]; !ok {
			hits[cr[1]*tg.Cols+cr[0]] = 1000 + float64(k)
		}
	}
	for _, alg := range []string{"invdist", "invdist:power=3", "invdist:radius=100", "invdist:radius=100:max_points=300",
		"invdistnn:radius=100", "invdistnn:radius=100:max_points_per_quadrant=2"} {
		got := gridValues(t, alg, s, tg)
		for node, z := range hits {
			if got[node] != z {
				t.Errorf("%s: node %d = %g, want the first hit's %g", alg, node, got[node], z)
			}
		}
	}
	// With power 2 and smoothing there is no exact hit in gdal's all-samples form.
	a, _, _ := ParseAlgorithm("invdist:smoothing=1")
	want := refValues(tg, func(x, y float64) float64 { return refInvDist(a.(*InvDist), s, x, y) })
	sameValues(t, "invdist:smoothing=1", gridValues(t, "invdist:smoothing=1", s, tg), want)
}

// TestIDW2AllKernel checks the all-samples power-2 loop (assembly where the CPU has AVX-512)
// against the plain loop: sums within 1e-12, the first exact hit wherever it falls.
func TestIDW2AllKernel(t *testing.T) {
	tg := utmTarget(1000, 0, 1)
	for _, n := range []int{5, 16, 17, 20011} {
		s := utmSamples(n, 1000, uint64(n))
		s.MoveOrigin(tg.Centre())
		for k := range 50 {
			x, y := float64(k*17%1000)-500.25, float64(k*31%1000)-499.5
			num, den, hit := idw2All(s.X, s.Y, s.Z, x, y)
			wn, wd, wh := idw2AllGo(s.X, s.Y, s.Z, x, y)
			if hit != wh || math.Abs(num/den-wn/wd) > 1e-12*math.Abs(wn/wd) || math.Abs(den-wd) > 1e-12*wd {
				t.Fatalf("n=%d node %d: %g/%g hit %d, want %g/%g hit %d", n, k, num, den, hit, wn, wd, wh)
			}
		}
		// Eight nodes of a row at once, by the kernel and by its portable form.
		for _, row := range []struct {
			name string
			f    func(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64)
		}{{"idw2Row", idw2Row}, {"idw2RowGo", idw2RowGo}} {
			var nx, num, den [batchNodes]float64
			for k := range nx {
				nx[k] = -480.5 + 117*float64(k)
			}
			row.f(s.X, s.Y, s.Z, &nx, 12.25, 0, &num, &den)
			for k, x := range nx {
				wn, wd, _ := idw2AllGo(s.X, s.Y, s.Z, x, 12.25)
				if math.Abs(num[k]/den[k]-wn/wd) > 1e-12*math.Abs(wn/wd) || math.Abs(den[k]-wd) > 1e-12*wd {
					t.Fatalf("%s, n=%d: node %d: %g/%g, want %g/%g", row.name, n, k, num[k], den[k], wn, wd)
				}
			}
			// With smoothing.
			row.f(s.X, s.Y, s.Z, &nx, 12.25, 9, &num, &den)
			for k, x := range nx {
				wn, wd := idw2SmoothAll(s.X, s.Y, s.Z, x, 12.25, 9)
				if math.Abs(num[k]/den[k]-wn/wd) > 1e-12*math.Abs(wn/wd) {
					t.Fatalf("%s, n=%d: smoothed node %d: %g, want %g", row.name, n, k, num[k]/den[k], wn/wd)
				}
			}
			// A node on a sample gets a weight sum of at least 1e13 (or NaN), for the caller to see.
			nx[3] = s.X[n-1]
			row.f(s.X, s.Y, s.Z, &nx, s.Y[n-1], 0, &num, &den)
			if den[3] < 1e13 {
				t.Errorf("%s, n=%d: node on a sample has weight sum %g", row.name, n, den[3])
			}
			// Padding samples weigh exactly nothing.
			pad := []float64{farPad, farPad, farPad, farPad, farPad, farPad, farPad, farPad, farPad}
			row.f(pad, pad, make([]float64, len(pad)), &nx, 12.25, 9, &num, &den)
			if num != [batchNodes]float64{} || den != [batchNodes]float64{} {
				t.Errorf("%s: padding samples give sums %v, %v", row.name, num, den)
			}
		}
		for _, at := range []int{0, n / 2, n - 1} {
			for _, twice := range []bool{false, true} {
				x, y := s.X[at], s.Y[at]+1e-8
				if twice && at+1 < n {
					// A later sample at the node too: the first still counts.
					s.X[at+1], s.Y[at+1] = s.X[at], s.Y[at]
				}
				if _, _, hit := idw2All(s.X, s.Y, s.Z, x, y); hit != at {
					t.Errorf("n=%d: hit %d, want %d", n, hit, at)
				}
			}
		}
	}
}

func ExampleParseAlgorithm_invdistQuadrants() {
	a, warns, _ := ParseAlgorithm("invdist:radius1=50:radius2=50:min_points_per_quadrant=1")
	fmt.Printf("%s %+v %d\n", a.Name(), *a.(*InvDistNN), len(warns))
	// Output: invdistnn {Power:2 Smoothing:0 Radius:50 MaxPoints:12 MinPoints:0 NodataValue:0 QuadrantLimits:{MinPerQuadrant:0 MaxPerQuadrant:0}} 0
}

// refIDW is invdist over every sample at (x,y) in float64 with compensated sums: gdal's value
// (the first sample with r2 < 1e-13 as is, but for power 2 with smoothing), and the scale
// sum(|z| w) / sum(w) against which an error is measured, since near-cancelling sums of z of
// mixed sign leave no relative precision in the value itself.
func refIDW(s *sample.Samples, power, s2, x, y float64) (v, scale float64) {
	var num, den, abs kahan
	for i := range s.X {
		dx, dy := s.X[i]-x, s.Y[i]-y
		r2 := dx*dx + dy*dy + s2
		if r2 < 1e-13 && (power != 2 || s2 == 0) {
			return s.Z[i], math.Abs(s.Z[i])
		}
		w := 1 / math.Pow(r2, power/2)
		num.add(s.Z[i] * w)
		den.add(w)
		abs.add(math.Abs(s.Z[i]) * w)
	}
	return num.sum() / den.sum(), abs.sum() / den.sum()
}

// kahan is Neumaier's compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// TestFarTreeAccuracy grids adversarial sample sets with invdist (power 2, all samples) on
// rasters large enough for the far-field tree and checks every third node against refIDW:
// within 1e-13 of the scale, exact hits as gdal takes them. The second raster runs west and
// north, and some of its leaves are small enough to be summed directly (farBox.direct).
func TestFarTreeAccuracy(t *testing.T) {
	tg := raster.NorthUp(450000, 5400000, 452400, 5402000, 240, 200) // 10 m nodes
	// Nodes running west and north, columns and rows both decreasing in coordinate order.
	thin := raster.Target{Cols: 49, Rows: 196, GeoTransform: [6]float64{452400, -2400.0 / 49, 0, 5400000, 0, 2000.0 / 196}}
	rng := rand.New(rand.NewPCG(5, 6))
	uniform := func(n int, z func(i int) float64) *sample.Samples {
		s := &sample.Samples{}
		for i := range n {
			s.Add(450000+2400*rng.Float64(), 5400000+2000*rng.Float64(), z(i))
		}
		return s
	}
	cases := map[string]*sample.Samples{}
	cases["uniform"] = uniform(3001, func(int) float64 { return 100 + 50*rng.Float64() })
	cases["negative"] = uniform(2003, func(int) float64 { return -1e4 - 100*rng.Float64() })
	// z of mixed sign whose weighted sums nearly cancel everywhere.
	cases["cancelling"] = uniform(2500, func(i int) float64 { return float64(1-2*(i%2))*1e3 + rng.Float64() - 0.5 })
	// Samples far outside the raster (huge distances), clustered in a corner, on nodes (two on
	// one node, the first counting), within a millimetre of nodes (tiny distances), and a
	// sample at the raster's very edge.
	mixed := uniform(1500, func(int) float64 { return rng.Float64() })
	for i := range 300 {
		mixed.Add(1e7+1e6*rng.Float64(), -3e6*rng.Float64(), 1e6+float64(i))
		mixed.Add(450010+30*rng.Float64(), 5401950+30*rng.Float64(), -5+rng.Float64())
	}
	for k := range 40 {
		x, y := tg.Node(rng.IntN(tg.Cols), rng.IntN(tg.Rows), 0, 0)
		mixed.Add(x, y, 1000+float64(k))
		mixed.Add(x, y, -1000-float64(k))
		x, y = tg.Node(rng.IntN(tg.Cols), rng.IntN(tg.Rows), 0, 0)
		mixed.Add(x+1e-3*rng.Float64(), y-1e-3*rng.Float64(), 7)
	}
	mixed.Add(450000, 5400000, 3)
	cases["mixed"] = mixed
	cases["one"] = uniform(1, func(int) float64 { return 42 })
	cases["far away"] = &sample.Samples{}
	for range 20 {
		cases["far away"].Add(-1e8*rng.Float64(), 1e9*rng.Float64(), rng.Float64())
	}
	for name, s := range cases {
		for _, smoothing := range []float64{0, 2} {
			alg := fmt.Sprintf("invdist:smoothing=%g", smoothing)
			tg := tg
			if smoothing > 0 {
				tg = thin
			}
			got := gridValues(t, alg, s, tg)
			local := cloneSamples(s)
			local.MoveOrigin(tg.Centre())
			ox, oy := local.OriginX, local.OriginY
			worst := 0.0
			for r := range tg.Rows {
				for c := range tg.Cols {
					if (r*tg.Cols+c)%3 != 0 {
						continue
					}
					x, y := tg.Node(c, r, ox, oy)
					want, scale := refIDW(local, 2, smoothing*smoothing, x, y)
					g := got[r*tg.Cols+c]
					if e := math.Abs(g-want) / scale; !(e <= 1e-13) {
						t.Fatalf("%s, smoothing %g: node (%d,%d) = %.17g, want %.17g (error %.3g of the scale %g)",
							name, smoothing, c, r, g, want, e, scale)
					} else {
						worst = max(worst, e)
					}
				}
			}
			t.Logf("%s, smoothing %g: largest error %.3g of the scale", name, smoothing, worst)
		}
	}
}

// TestFarTreeDeep checks random nodes of the all-samples bar's problem (20,000 samples onto
// 1000 x 1000 nodes, a tree five levels deep) against refIDW, and that a second run gives
// the same values to the bit, however its workers shared the leaves.
func TestFarTreeDeep(t *testing.T) {
	tg := raster.NorthUp(450000, 5400000, 460000, 5410000, 1000, 1000)
	s := gdalBenchSamples(20_000, 10_000, tg)
	p := &Problem{Samples: s, Target: tg, Alg: &InvDist{Power: 2}}
	grid := func(threads int) []float64 {
		out := make([]float64, 0, tg.Cols*tg.Rows)
		sink := func(_, _ int, v []float64) error { out = append(out, v...); return nil }
		if err := Grid(context.Background(), &CPU{Threads: threads}, p, sink, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := grid(2)
	if again := grid(3); !slices.Equal(got, again) {
		t.Errorf("a second run gives other values")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	worst := 0.0
	for range 3000 {
		c, r := rng.IntN(tg.Cols), rng.IntN(tg.Rows)
		x, y := p.NodeXY(c, r)
		want, scale := refIDW(s, 2, 0, x, y)
		if e := math.Abs(got[r*tg.Cols+c]-want) / scale; !(e <= 1e-13) {
			t.Fatalf("node (%d,%d) = %.17g, want %.17g (error %.3g of the scale)", c, r, got[r*tg.Cols+c], want, e)
		} else {
			worst = max(worst, e)
		}
	}
	t.Logf("largest error %.3g of the scale", worst)
}

// TestFarTreePowers checks the far-field tree with other powers against refIDW, exact hits
// (two samples on one node, the first counting) and smoothing included.
func TestFarTreePowers(t *testing.T) {
	tg := raster.NorthUp(450000, 5400000, 452400, 5402000, 240, 200)
	rng := rand.New(rand.NewPCG(9, 10))
	s := &sample.Samples{}
	for range 1500 {
		s.Add(450000+2400*rng.Float64(), 5400000+2000*rng.Float64(), 100+50*rng.Float64())
	}
	for k := range 20 {
		x, y := tg.Node(rng.IntN(tg.Cols), rng.IntN(tg.Rows), 0, 0)
		s.Add(x, y, 1000+float64(k))
		s.Add(x, y, -1000)
	}
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	for _, c := range []struct{ power, smoothing float64 }{{0, 0}, {1, 0}, {1.5, 3}, {3, 0}, {8, 1}} {
		alg := fmt.Sprintf("invdist:power=%g:smoothing=%g", c.power, c.smoothing)
		got := gridValues(t, alg, s, tg)
		worst := 0.0
		for r := 0; r < tg.Rows; r += 3 {
			for col := 0; col < tg.Cols; col += 2 {
				x, y := tg.Node(col, r, local.OriginX, local.OriginY)
				want, scale := refIDW(local, c.power, c.smoothing*c.smoothing, x, y)
				if e := math.Abs(got[r*tg.Cols+col]-want) / scale; !(e <= 1e-13) {
					t.Fatalf("%s: node (%d,%d) = %.17g, want %.17g (error %.3g of the scale)", alg, col, r, got[r*tg.Cols+col], want, e)
				} else {
					worst = max(worst, e)
				}
			}
		}
		t.Logf("%s: largest error %.3g of the scale", alg, worst)
	}
}

// Leave-one-out of invdist over every sample sums distant samples by the far field (here
// from 12,000 samples, the threshold lowered for the test): within 1e-9 of the exact
// predictions (farfield=no), not all equal to them (the far field ran), a repeated sample
// predicted by its twin's value (an exact hit that gdal's loop decides), and with smoothing
// exact.
func TestInvDistFarFieldLeaveOneOut(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	s := &sample.Samples{}
	for i := range 12000 {
		x, y := 451000+r.Float64()*1000, 5401000+r.Float64()*1000
		if i%4 == 0 {
			x, y = 451700+r.NormFloat64()*15, 5401200+r.NormFloat64()*15
		}
		s.Add(x, y, 50+10*math.Sin(x/80)+r.Float64())
	}
	s.Add(s.X[7], s.Y[7], 3) // a repeat: held out, the other stays, as an exact hit
	target := raster.NorthUp(451000, 5401000, 452000, 5402000, 100, 100)
	s.MoveOrigin(target.Centre())
	for _, c := range []struct {
		power, smoothing float64
		far              bool
	}{{2, 0, true}, {3, 0, true}, {2, 1, false}} {
		far := &InvDist{Power: c.power, Smoothing: c.smoothing, FarField: true, farFieldAt: 12000}
		exact := &InvDist{Power: c.power, Smoothing: c.smoothing}
		got, err := LeaveOneOut(context.Background(), far, s, target, 2)
		if err != nil {
			t.Fatal(err)
		}
		want, err := LeaveOneOut(context.Background(), exact, s, target, 2)
		if err != nil {
			t.Fatal(err)
		}
		differ := 0
		for i := range want {
			if e := math.Abs(got[i]-want[i]) / math.Abs(want[i]); e > 1e-9 {
				t.Fatalf("power %g: sample %d: %v, the exact prediction %v: relative error %.2g over 1e-9", c.power, i, got[i], want[i], e)
			}
			if got[i] != want[i] {
				differ++
			}
		}
		if c.far != (differ > 0) {
			t.Fatalf("power %g smoothing %g: %d predictions differ from the exact ones; the far field should run: %v", c.power, c.smoothing, differ, c.far)
		}
		if c.smoothing == 0 && (got[7] != 3 || got[len(got)-1] != s.Z[7]) {
			t.Fatalf("power %g: the repeated sample's predictions %v, %v: want each the other's value", c.power, got[7], got[len(got)-1])
		}
	}
}
