package interp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// The leave-one-out tests compare LeaveOneOut, which computes every sample with it held out
// of one shared index and bind, with the definition applied to a copy of the samples without
// that sample: the references of the other test files (gdal's definitions and issue 2's AIDW,
// float64 loops over every sample in absolute coordinates).

// looSamples are n samples at UTM scale (absolute coordinates, origin 0) with a pair at the
// very same place and a pair closer than gdal's exact-hit distance, so that leave-one-out
// must keep a sample's twin while dropping the sample itself.
func looSamples(n int, seed uint64) *sample.Samples {
	s := utmSamples(n-2, 1000, seed)
	s.Add(s.X[3], s.Y[3], s.Z[3]+7)       // a repeat of sample 3
	s.Add(s.X[8]+2e-7, s.Y[8], s.Z[8]-11) // within 1e-13 squared of sample 8
	return s
}

// copyWithout is a copy of s without sample i.
func copyWithout(s *sample.Samples, i int) *sample.Samples {
	c := cloneSamples(s)
	c.X, c.Y, c.Z = slices.Delete(c.X, i, i+1), slices.Delete(c.Y, i, i+1), slices.Delete(c.Z, i, i+1)
	return c
}

// leaveOneOut runs LeaveOneOut the way aidw cv does: samples moved to the target's centre.
func leaveOneOut(t *testing.T, alg string, s *sample.Samples, tg raster.Target) []float64 {
	t.Helper()
	a, _, err := ParseAlgorithm(alg)
	if err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	got, err := LeaveOneOut(context.Background(), a, local, tg, 2)
	if err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	return got
}

// refFunc is a reference definition of an algorithm at (x,y) over samples in absolute
// coordinates.
type refFunc func(a Algorithm, s *sample.Samples, tg raster.Target, x, y float64) float64

func refAIDWValue(a Algorithm, s *sample.Samples, tg raster.Target, x, y float64) float64 {
	pts := make([]aidwPoint, s.Len())
	for i := range pts {
		pts[i] = aidwPoint{s.X[i], s.Y[i], s.Z[i]}
	}
	xmin, ymin, xmax, ymax := tg.Extent()
	return aidwReference(pts, *a.(*AIDW), [4]float64{xmin, ymin, xmax, ymax}, x, y).value
}

// checkLOO compares leave-one-out with ref on each copy without one sample.
func checkLOO(t *testing.T, s *sample.Samples, tg raster.Target, ref refFunc, algs ...string) {
	t.Helper()
	for _, alg := range algs {
		a, _, err := ParseAlgorithm(alg)
		if err != nil {
			t.Fatal(err)
		}
		got := leaveOneOut(t, alg, s, tg)
		want := make([]float64, s.Len())
		for i := range want {
			want[i] = ref(a, copyWithout(s, i), tg, s.X[i], s.Y[i])
		}
		sameValues(t, alg, got, want)
		if slices.Equal(got, s.Z) {
			t.Errorf("%s: every prediction equals its own sample: nothing was held out", alg)
		}
	}
}

func TestLeaveOneOutMatchesBruteForce(t *testing.T) {
	s := looSamples(240, 21)
	tg := utmTarget(1000, 0, 1)
	checkLOO(t, s, tg, refAIDWValue,
		"aidw", "aidw:max_points=12", "aidw:k=8:radius=110:min_points=4:nodata=-9999",
		"aidw:area=2e6:alphas=1,1.5,2,3,4")
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refInvDist(a.(*InvDist), r, x, y)
	}, "invdist", "invdist:power=3", "invdist:power=2:smoothing=1.5", "invdist:power=2.5:smoothing=0.5",
		"invdist:radius1=150:radius2=100:angle=20:max_points=8:min_points=2:nodata=-1")
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refInvDistNN(a.(*InvDistNN), r, x, y)
	}, "invdistnn:radius=150:max_points=10", "invdistnn:power=1.5:smoothing=2:radius=90:max_points=6:min_points=3:nodata=-1")
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refNearest(a.(*Nearest), r, gdalQuadtreeRanks(r), x, y)
	}, "nearest", "nearest:radius1=80:radius2=50:angle=30:nodata=-1", "nearest:radius=60:nodata=-1")
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refAverage(a.(*Average), r, x, y)
	}, "average", "average:radius=120:min_points=5:nodata=-1", "average:radius1=150:radius2=80:angle=45")
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refMetric(a.(*Metric), r, gdalQuadtreeRanks(r), x, y)
	}, "minimum", "maximum:radius=100", "range:radius=100", "count:radius=90",
		"average_distance", "average_distance:radius=120", "average_distance_pts", "average_distance_pts:radius1=100:radius2=70:angle=10")
}

// TestLeaveOneOutLinear holds out interior and hull vertices: the hole left by each is
// triangulated anew, or the sample falls outside the new hull.
func TestLeaveOneOutLinear(t *testing.T) {
	s := utmSamples(22, 1000, 22)
	tg := utmTarget(1000, 0, 1)
	tris := map[float64][][3]int{} // the copies' triangulations, by the held-out sample's x
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		if tris[x] == nil {
			tris[x] = bruteDelaunay(r)
		}
		return refLinear(a.(*Linear), r, tris[x], x, y)
	}, "linear", "linear:radius=0:nodata=-1", "linear:radius=120:nodata=-1")
	if v := leaveOneOut(t, "linear:radius=0:nodata=-1", s, tg); countValue(v, -1) == 0 {
		t.Error("no sample fell outside the hull of the others: the hull case is untested")
	}
}

// TestLeaveOneOutEveryAlgorithm compares leave-one-out, at every sample, with the engine itself
// run on each copy without that sample, for every registered algorithm (everyAlgorithm): an
// algorithm that left a sample in, or derived something from all n samples, would differ. It
// covers the options the references lack (quadrants), repeats in linear, and gdal's quadtree
// threshold (n = 101, where the held-out copies have 100 samples and search differently).
// Above that threshold, average_distance_pts with a radius counts its pairs by gdal's quadtree
// order, which leave-one-out takes from all the samples (see LeaveOneOut): it is checked at
// n = 101. The copies are also what eachWithout, the fallback for algorithms without the
// holdOut capability, computes: it must agree too.
func TestLeaveOneOutEveryAlgorithm(t *testing.T) {
	for _, n := range []int{101, 160} {
		s := looSamples(n, uint64(n))
		tg := utmTarget(1000, 0, 1)
		local := cloneSamples(s)
		local.MoveOrigin(tg.Centre())
		for _, alg := range everyAlgorithm(50) {
			if n > 101 && strings.HasPrefix(alg, "average_distance_pts:") {
				continue
			}
			a, _, err := ParseAlgorithm(alg)
			if err != nil {
				t.Fatal(err)
			}
			got := leaveOneOut(t, alg, s, tg)
			want := make([]float64, s.Len())
			for i := range want {
				r := copyWithout(s, i)
				r.MoveOrigin(tg.Centre())
				v, err := computeNodes(context.Background(), &CPU{Threads: 1}, &Problem{Samples: r, Target: tg, Alg: a},
					[]float64{s.X[i] - r.OriginX}, []float64{s.Y[i] - r.OriginY})
				if err != nil {
					t.Fatal(err)
				}
				want[i] = v[0]
			}
			sameValues(t, fmt.Sprintf("%s, n=%d", alg, n), got, want)
			if slices.Equal(got, s.Z) {
				t.Errorf("%s: every prediction equals its own sample: nothing was held out", alg)
			}
			fallback, err := eachWithout(context.Background(), a.(cpuAlgorithm), local, tg, 2)
			if err != nil {
				t.Fatal(err)
			}
			sameValues(t, fmt.Sprintf("%s, n=%d, without the capability", alg, n), fallback, want)
		}
	}
}

// meanOfAll is an algorithm of this test's own: the mean of every sample weighted by
// 1/(1+d^2), whose bound form has no holdOut capability, as a new algorithm might not.
type meanOfAll struct{}

func (meanOfAll) Name() string    { return "mean_of_all" }
func (meanOfAll) NoData() float64 { return math.NaN() }

func (meanOfAll) bind(p *Problem, _ *grid.Index) (bound, error) {
	s := p.Samples
	return nodeFunc(func(_ *scratch, x, y float64) float64 {
		var num, den float64
		for i := range int32(s.Len()) {
			sx, sy := s.XY(i)
			w := 1 / (1 + (sx-x)*(sx-x) + (sy-y)*(sy-y))
			num, den = num+w*s.Z[i], den+w
		}
		return num / den
	}), nil
}

// TestLeaveOneOutWithoutCapability: an algorithm that loops over every sample and knows
// nothing of holding one out still gets true leave-one-out, from the fallback.
func TestLeaveOneOutWithoutCapability(t *testing.T) {
	s := looSamples(60, 25)
	tg := utmTarget(1000, 0, 1)
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	got, err := LeaveOneOut(context.Background(), meanOfAll{}, local, tg, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, s.Len())
	for i := range want {
		var num, den float64
		for j := range s.X {
			if j != i {
				w := 1 / (1 + (s.X[j]-s.X[i])*(s.X[j]-s.X[i]) + (s.Y[j]-s.Y[i])*(s.Y[j]-s.Y[i]))
				num, den = num+w*s.Z[j], den+w
			}
		}
		want[i] = num / den
	}
	sameValues(t, "mean_of_all", got, want)
}

// TestLeaveOneOutDiagnostics: the value band of aidw with diagnostics is aidw's value.
func TestLeaveOneOutDiagnostics(t *testing.T) {
	s := looSamples(80, 23)
	tg := utmTarget(1000, 0, 1)
	sameValues(t, "aidw:diagnostics=yes", leaveOneOut(t, "aidw:diagnostics=yes:max_points=9", s, tg),
		leaveOneOut(t, "aidw:max_points=9", s, tg))
}

// TestKFoldMatchesBruteForce predicts each fold from the others by the references.
func TestKFoldMatchesBruteForce(t *testing.T) {
	s := looSamples(150, 24)
	tg := utmTarget(1000, 0, 1)
	const k = 5
	fold := Folds(s.Len(), k, 42)
	for _, alg := range []string{"aidw:max_points=10", "invdist:power=3"} {
		a, _, _ := ParseAlgorithm(alg)
		local := cloneSamples(s)
		local.MoveOrigin(tg.Centre())
		got, err := KFold(context.Background(), a, local, tg, fold, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, s.Len())
		for i := range want {
			train := &sample.Samples{}
			for j := range s.X {
				if fold[j] != fold[i] {
					train.Add(s.X[j], s.Y[j], s.Z[j])
				}
			}
			if id, ok := a.(*InvDist); ok {
				want[i] = refInvDist(id, train, s.X[i], s.Y[i])
			} else {
				want[i] = refAIDWValue(a, train, tg, s.X[i], s.Y[i])
			}
		}
		sameValues(t, alg, got, want)
	}
}

func TestFolds(t *testing.T) {
	for _, c := range []struct{ n, k int }{{10, 2}, {101, 7}, {5, 5}, {1000, 10}} {
		f := Folds(c.n, c.k, 7)
		size := make([]int, c.k)
		for _, v := range f {
			if v < 0 || v >= c.k {
				t.Fatalf("n=%d k=%d: fold %d out of range", c.n, c.k, v)
			}
			size[v]++
		}
		if lo, hi := slices.Min(size), slices.Max(size); hi-lo > 1 || lo == 0 {
			t.Errorf("n=%d k=%d: fold sizes %v differ by more than one", c.n, c.k, size)
		}
		if !slices.Equal(f, Folds(c.n, c.k, 7)) {
			t.Errorf("n=%d k=%d: the same seed deals differently", c.n, c.k)
		}
	}
	a, b := Folds(200, 4, 1), Folds(200, 4, 2)
	if slices.Equal(a, b) {
		t.Error("seeds 1 and 2 deal the same folds")
	}
	sorted := true
	for i := 1; i < len(a); i++ {
		sorted = sorted && a[i] >= a[i-1]
	}
	if sorted {
		t.Error("folds are not shuffled")
	}
}

func TestScore(t *testing.T) {
	obs := []float64{1, 2, 3, 4, 5}
	pred := []float64{1.5, 2, 2, math.NaN(), -9}
	sc := Score(obs, pred, -9)
	// errors 0.5, 0, -1 over observations 1, 2, 3 (mean 2, sum of squares about it 2)
	want := Scores{N: 3, Missing: 2, RMSE: math.Sqrt(1.25 / 3), MAE: 0.5, MeanError: -0.5 / 3, R2: 1 - 1.25/2}
	if sc.N != want.N || sc.Missing != want.Missing {
		t.Fatalf("N %d missing %d, want %d and %d", sc.N, sc.Missing, want.N, want.Missing)
	}
	for _, c := range [][3]any{{"RMSE", sc.RMSE, want.RMSE}, {"MAE", sc.MAE, want.MAE},
		{"mean error", sc.MeanError, want.MeanError}, {"R2", sc.R2, want.R2}} {
		if g, w := c[1].(float64), c[2].(float64); math.Abs(g-w) > 1e-15 {
			t.Errorf("%s = %g, want %g", c[0], g, w)
		}
	}
	if all := Score(obs, []float64{-9, -9, -9, -9, -9}, -9); all.N != 0 || !math.IsNaN(all.RMSE) {
		t.Errorf("nothing predicted: %+v", all)
	}
	if flat := Score([]float64{3, 3}, []float64{3, 4}, -9); !math.IsNaN(flat.R2) {
		t.Errorf("constant observations: R2 = %g, want NaN", flat.R2)
	}
}

func TestCrossValidationBadInput(t *testing.T) {
	ctx := context.Background()
	one := &sample.Samples{X: []float64{1}, Y: []float64{2}, Z: []float64{3}}
	tg := raster.NorthUp(0, 0, 10, 10, 1, 1)
	if _, err := LeaveOneOut(ctx, &Nearest{}, one, tg, 1); err == nil || !strings.Contains(err.Error(), "2 samples") {
		t.Errorf("one sample: %v", err)
	}
	s := utmSamples(10, 100, 1)
	for _, k := range []int{1, 11} {
		if _, err := KFold(ctx, &Nearest{}, s, tg, Folds(10, max(k, 1), 1), k, 1); err == nil || !strings.Contains(err.Error(), "folds") {
			t.Errorf("k=%d: %v", k, err)
		}
	}
}

// BenchmarkLeaveOneOut times leave-one-out with one index and n nodes: 100,000 samples by the
// local algorithms, 20,000 by global AIDW (n^2 weights).
func BenchmarkLeaveOneOut(b *testing.B) {
	for _, c := range []struct {
		alg string
		n   int
	}{{"aidw:max_points=15", 100_000}, {"invdistnn:radius=200:max_points=12", 100_000}, {"linear", 100_000}, {"aidw", 20_000}} {
		s := utmSamples(c.n, 10_000, 5)
		tg := utmTarget(10_000, 0, 1)
		s.MoveOrigin(tg.Centre())
		a, _, _ := ParseAlgorithm(c.alg)
		b.Run(fmt.Sprintf("%s/n=%d", c.alg, c.n), func(b *testing.B) {
			for b.Loop() {
				if _, err := LeaveOneOut(context.Background(), a, s, tg, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
