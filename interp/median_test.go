package interp

import (
	"slices"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// refMedian is the median's definition by brute force: the values of every sample in gdal's
// search ellipse (refInArea, absolute coordinates), sorted, the middle one or the mean of the
// two middle ones.
func refMedian(a *Median, s *sample.Samples, x, y float64) float64 {
	var z []float64
	for _, i := range refInArea(s, x, y, a.Radius1, a.Radius2, a.Angle) {
		z = append(z, s.Z[i])
	}
	if len(z) == 0 || len(z) < a.MinPoints {
		return a.NodataValue
	}
	slices.Sort(z)
	if m := len(z) / 2; len(z)%2 == 0 {
		return (z[m-1] + z[m]) / 2
	}
	return z[len(z)/2]
}

// TestMedianMatchesBruteForce checks median's raster and its leave-one-out against the brute
// force: odd and even counts (a repeated sample, whole-number values with ties), a rotated
// ellipse, a radius with min_points, and every sample.
func TestMedianMatchesBruteForce(t *testing.T) {
	s := looSamples(240, 5)
	for i := range s.Z[:60] {
		s.Z[i] = float64(int(s.Z[i]) / 10) // ties among the values
	}
	tg := utmTarget(1000, 40, 23)
	forms := []string{"median", "median:radius=120", "median:radius1=150:radius2=80:angle=30",
		"median:radius=90:min_points=6:nodata=-9", "median:radius1=60:radius2=60:nodata=-1"}
	for _, form := range forms {
		alg, _, err := ParseAlgorithm(form)
		if err != nil {
			t.Fatal(err)
		}
		a := alg.(*Median)
		want := refValues(tg, func(x, y float64) float64 { return refMedian(a, s, x, y) })
		got := gridValues(t, form, s, tg)
		sameValues(t, form, got, want)
		if slices.Index(got, a.NodataValue) < 0 && form != "median" && a.MinPoints > 0 {
			t.Errorf("%s: no node short of min_points: the test does not reach it", form)
		}
	}
	checkLOO(t, s, tg, func(a Algorithm, r *sample.Samples, _ raster.Target, x, y float64) float64 {
		return refMedian(a.(*Median), r, x, y)
	}, forms...)
}

// TestMedianEvenAndOdd pins the definition on a handful of samples, where the count at a
// node is known: the middle value of three, the mean of the middle two of four.
func TestMedianEvenAndOdd(t *testing.T) {
	s := &sample.Samples{}
	for _, p := range [][3]float64{{0, 0, 10}, {1, 0, 40}, {0, 1, 20}, {5, 5, 1000}} {
		s.Add(p[0], p[1], p[2])
	}
	tg := raster.NorthUp(-0.5, -0.5, 0.5, 0.5, 1, 1) // one node at (0, 0)
	if got := gridValues(t, "median:radius=1.5", s, tg); got[0] != 20 {
		t.Errorf("median of 10, 40, 20: %v, want 20", got)
	}
	if got := gridValues(t, "median", s, tg); got[0] != 30 {
		t.Errorf("median of 10, 40, 20, 1000: %v, want 30", got)
	}
}
