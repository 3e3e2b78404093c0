package interp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"
)

// refInvDist is gdal 3.6's invdist at (x,y), from GDALGridInverseDistanceToAPower and
// GDALGridInverseDistanceToAPowerNoSearch.
func refInvDist(a *InvDist, s *Samples, x, y float64) float64 {
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
func refInvDistNN(a *InvDistNN, s *Samples, x, y float64) float64 {
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
		// Eight nodes of a row at once.
		var nx, num, den [batchNodes]float64
		for k := range nx {
			nx[k] = -480.5 + 117*float64(k)
		}
		if idw2Row(s.X, s.Y, s.Z, &nx, 12.25, 0, &num, &den) {
			for k, x := range nx {
				wn, wd, _ := idw2AllGo(s.X, s.Y, s.Z, x, 12.25)
				if math.Abs(num[k]/den[k]-wn/wd) > 1e-12*math.Abs(wn/wd) || math.Abs(den[k]-wd) > 1e-12*wd {
					t.Fatalf("n=%d row node %d: %g/%g, want %g/%g", n, k, num[k], den[k], wn, wd)
				}
			}
			// With smoothing.
			idw2Row(s.X, s.Y, s.Z, &nx, 12.25, 9, &num, &den)
			for k, x := range nx {
				wn, wd := idw2SmoothAll(s.X, s.Y, s.Z, x, 12.25, 9)
				if math.Abs(num[k]/den[k]-wn/wd) > 1e-12*math.Abs(wn/wd) {
					t.Fatalf("n=%d smoothed row node %d: %g, want %g", n, k, num[k]/den[k], wn/wd)
				}
			}
			// A node on a sample gets a weight sum of at least 1e13 (or NaN), for the caller to see.
			nx[3] = s.X[n-1]
			idw2Row(s.X, s.Y, s.Z, &nx, s.Y[n-1], 0, &num, &den)
			if den[3] < 1e13 {
				t.Errorf("n=%d: node on a sample has weight sum %g", n, den[3])
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
