package interp

import (
	"math"
	"testing"

	"github.com/aidw/aidw/sample"
)

// refInArea lists the samples in gdal's search ellipse around (x,y), all of them without radii.
func refInArea(s *sample.Samples, x, y, r1, r2, angle float64) []int {
	var in []int
	for i := range s.X {
		if r1 == 0 && r2 == 0 || gdalEllipse(s.X[i]-x, s.Y[i]-y, r1, r2, angle) {
			in = append(in, i)
		}
	}
	return in
}

// refPick applies the per-quadrant options (nearest first in each quadrant) when set; ok is
// false when a quadrant holds fewer than minPer.
func refPick(s *sample.Samples, x, y float64, in []int, lim QuadrantLimits, maxTotal int) (picked []int, ok bool) {
	if !lim.active() {
		return in, true
	}
	d2 := func(i int) float64 { dx, dy := s.X[i]-x, s.Y[i]-y; return dx*dx + dy*dy }
	picked, count := refQuadrants(s, x, y, in, d2, lim.MaxPerQuadrant, maxTotal)
	for _, c := range count {
		if c < lim.MinPerQuadrant {
			return nil, false
		}
	}
	return picked, true
}

// refAverage is gdal 3.6's average (GDALGridMovingAverage, ...PerQuadrant).
func refAverage(a *Average, s *sample.Samples, x, y float64) float64 {
	in, ok := refPick(s, x, y, refInArea(s, x, y, a.Radius1, a.Radius2, a.Angle), a.QuadrantLimits, a.MaxPoints)
	if !ok || len(in) == 0 || len(in) < a.MinPoints {
		return a.NodataValue
	}
	sum := 0.0
	for _, i := range in {
		sum += s.Z[i]
	}
	return sum / float64(len(in))
}

// refMetric is gdal 3.6's data metrics (GDALGridDataMetric*), average_distance_pts with its
// quadtree pair count above 100 samples (see Metric).
func refMetric(m *Metric, s *sample.Samples, rank []int32, x, y float64) float64 {
	in, ok := refPick(s, x, y, refInArea(s, x, y, m.Radius1, m.Radius2, m.Angle), m.QuadrantLimits, 0)
	n := len(in)
	if m.Kind == AverageDistancePts {
		sum := 0.0
		for a := range in {
			for _, j := range in[a+1:] {
				sum += math.Hypot(s.X[j]-s.X[in[a]], s.Y[j]-s.Y[in[a]])
			}
		}
		n = n * (n - 1) / 2
		if s.Len() > 100 && m.Angle == 0 && (m.Radius1 > 0 || m.Radius2 > 0) {
			// gdal pairs each sample with itself too, but the last of its search square.
			h, last := max(m.Radius1, m.Radius2), -1
			for i := range s.X {
				if math.Abs(s.X[i]-x) <= h && math.Abs(s.Y[i]-y) <= h && (last < 0 || rank[i] > rank[last]) {
					last = i
				}
			}
			n += len(in)
			for _, i := range in {
				if i == last {
					n--
				}
			}
		}
		if n == 0 || n < m.MinPoints {
			return m.NodataValue
		}
		return sum / float64(n)
	}
	if !ok || n < m.MinPoints || n == 0 && m.Kind != Count {
		return m.NodataValue
	}
	lo, hi, dist := math.Inf(1), math.Inf(-1), 0.0
	for _, i := range in {
		lo, hi = math.Min(lo, s.Z[i]), math.Max(hi, s.Z[i])
		dist += math.Hypot(s.X[i]-x, s.Y[i]-y)
	}
	switch m.Kind {
	case Minimum:
		return lo
	case Maximum:
		return hi
	case Range:
		return hi - lo
	case Count:
		return float64(n)
	}
	return dist / float64(n)
}

func TestAverageMatchesGDAL(t *testing.T) {
	s := utmSamples(1500, 1000, 7)
	tg := utmTarget(1000, 40, 31)
	for _, alg := range []string{
		"average",
		"average:radius=60:nodata=-1",
		"average:radius1=90:radius2=40:angle=30:min_points=8:nodata=-1",
		"average:radius1=90:radius2=0:nodata=-1",
		"average:radius=80:max_points_per_quadrant=2:nodata=-1",
		"average:radius=80:max_points_per_quadrant=3:max_points=7:min_points_per_quadrant=1:nodata=-1",
		"average:radius1=100:radius2=60:min_points_per_quadrant=3:nodata=-1",
	} {
		a, _, _ := ParseAlgorithm(alg)
		ref := a.(*Average)
		want := refValues(tg, func(x, y float64) float64 { return refAverage(ref, s, x, y) })
		sameValues(t, alg, gridValues(t, alg, s, tg), want)
		if ref.MinPoints+ref.MinPerQuadrant > 0 && countValue(want, -1) == 0 {
			t.Errorf("%s: no nodata node; the test misses the minimum", alg)
		}
	}
}

func TestMetricsMatchGDAL(t *testing.T) {
	tg := utmTarget(1000, 40, 25)
	for _, n := range []int{1200, 90} { // with and without gdal's quadtree
		s := utmSamples(n, 1000, uint64(n))
		rank := gdalQuadtreeRanks(s)
		for _, kind := range []string{"minimum", "maximum", "range", "count", "average_distance", "average_distance_pts"} {
			opts := []string{
				"",
				":radius=70:nodata=-1",
				":radius1=110:radius2=50:angle=-40:min_points=4:nodata=-1",
				":radius1=70:radius2=0:nodata=-1",
			}
			if kind != "average_distance_pts" {
				opts = append(opts, ":radius=90:max_points_per_quadrant=2:nodata=-1",
					":radius=90:min_points_per_quadrant=2:max_points_per_quadrant=4:nodata=-1")
			}
			if n > 1000 && kind == "average_distance_pts" {
				opts[0] = ":radius=300" // every pair of 1200 samples at each node would take long
			}
			for _, o := range opts {
				alg := kind + o
				a, _, _ := ParseAlgorithm(alg)
				want := refValues(tg, func(x, y float64) float64 { return refMetric(a.(*Metric), s, rank, x, y) })
				sameValues(t, alg, gridValues(t, alg, s, tg), want)
			}
		}
	}
}
