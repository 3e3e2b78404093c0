package interp

import (
	"fmt"
	"math"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// refNearest is gdal 3.6's nearest at (x,y) (GDALGridNearestNeighbor): with its quadtree (more
// than 100 samples, no angle, a radius) the nearest in the square of half-side max(r1,r2), the
// last in quadtree order on ties; otherwise the nearest in the ellipse by the rotated
// distances, the last in input order on ties.
func refNearest(a *Nearest, s *sample.Samples, rank []int32, x, y float64) float64 {
	quadtree := s.Len() > 100 && a.Angle == 0 && (a.Radius1 > 0 || a.Radius2 > 0)
	h := max(a.Radius1, a.Radius2)
	best, bestD2 := -1, math.MaxFloat64
	for i := range s.X {
		dx, dy := s.X[i]-x, s.Y[i]-y
		var d2 float64
		switch {
		case quadtree:
			if math.Abs(dx) > h || math.Abs(dy) > h {
				continue
			}
			d2 = dx*dx + dy*dy
			if d2 == bestD2 && rank[i] < rank[best] {
				continue
			}
		case !gdalEllipse(dx, dy, a.Radius1, a.Radius2, a.Angle):
			continue
		default:
			if ang := math.Pi / 180 * a.Angle; ang != 0 {
				dx, dy = dx*math.Cos(ang)+dy*math.Sin(ang), dy*math.Cos(ang)-dx*math.Sin(ang)
			}
			d2 = dx*dx + dy*dy
		}
		if d2 <= bestD2 {
			best, bestD2 = i, d2
		}
	}
	if best < 0 {
		return a.NodataValue
	}
	return s.Z[best]
}

func checkNearest(t *testing.T, alg string, s *sample.Samples, tg raster.Target) []float64 {
	t.Helper()
	a, _, err := ParseAlgorithm(alg)
	if err != nil {
		t.Fatal(err)
	}
	rank := gdalQuadtreeRanks(s)
	want := refValues(tg, func(x, y float64) float64 { return refNearest(a.(*Nearest), s, rank, x, y) })
	got := gridValues(t, alg, s, tg)
	sameValues(t, fmt.Sprintf("%s (%d samples)", alg, s.Len()), got, want)
	return got
}

func TestNearestMatchesGDAL(t *testing.T) {
	big := utmSamples(1500, 1000, 4)
	small := utmSamples(80, 1000, 5)
	tg := utmTarget(1000, 60, 33)
	for _, alg := range []string{
		"nearest",
		"nearest:radius=15:nodata=-1",
		"nearest:radius1=40:radius2=10:nodata=-1",
		"nearest:radius1=0:radius2=30:nodata=-1",
		"nearest:radius1=40:radius2=20:angle=35:nodata=-1",
		"nearest:angle=20",
	} {
		checkNearest(t, alg, big, tg)
		checkNearest(t, alg, small, tg)
	}
}

// TestNearestSquareQuirk shows gdal's quadtree search at work: samples beyond the radius (in
// the corners of its square) are taken, and only above 100 samples.
func TestNearestSquareQuirk(t *testing.T) {
	s := utmSamples(1500, 1000, 6)
	tg := utmTarget(1000, 0, 40)
	got := checkNearest(t, "nearest:radius=15:nodata=-1", s, tg)
	beyond := 0
	for i, v := range got {
		x, y := tg.Node(i%tg.Cols, i/tg.Cols, 0, 0)
		for j := range s.X {
			if s.Z[j] == v && math.Hypot(s.X[j]-x, s.Y[j]-y) > 15 {
				beyond++
			}
		}
	}
	if beyond == 0 {
		t.Error("no node took a sample beyond the radius: the square search is not exercised")
	}
}

// TestNearestTies grids a lattice onto the centres of its cells, where four samples are
// equally near: the last in input order wins, or, on gdal's quadtree, the last in its order.
func TestNearestTies(t *testing.T) {
	for _, n := range []int{12, 9} { // 144 samples (quadtree with a radius), 81 (never)
		s := &sample.Samples{}
		for j := range n {
			for i := range n {
				s.Add(451000+10*float64(i), 5401000+10*float64(j), float64(j*n+i))
			}
		}
		tg := raster.NorthUp(451000, 5401000, 451000+10*float64(n-1), 5401000+10*float64(n-1), n-1, n-1)
		for _, alg := range []string{"nearest", "nearest:radius=8", "nearest:radius1=8:radius2=9"} {
			got := checkNearest(t, alg, s, tg)
			// Each node's value is one of its four corners (row 0 is the top).
			for i, v := range got {
				c, j := i%tg.Cols, n-2-i/tg.Cols
				if v != float64(j*n+c) && v != float64(j*n+c+1) && v != float64((j+1)*n+c) && v != float64((j+1)*n+c+1) {
					t.Fatalf("%s: node %d = %g, not a corner", alg, i, v)
				}
			}
		}
	}
}
