package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// The gdal_grid algorithms are checked against brute-force references written in the tests
// from gdal 3.6's definitions (alg/gdalgrid.cpp): straightforward loops over every sample in
// absolute coordinates, while the engine works at a local origin through the index.

// utmSamples returns n samples uniform over a side x side square at UTM scale, in absolute
// coordinates (origin 0), values in [50,150).
func utmSamples(n int, side float64, seed uint64) *sample.Samples {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := &sample.Samples{}
	for range n {
		s.Add(451000+rng.Float64()*side, 5401000+rng.Float64()*side, 50+100*rng.Float64())
	}
	return s
}

// utmTarget is a cols x cols target over the square of utmSamples(_, side, _) widened by
// margin on each side.
func utmTarget(side, margin float64, cols int) raster.Target {
	return raster.NorthUp(451000-margin, 5401000-margin, 451000+side+margin, 5401000+side+margin, cols, cols)
}

func cloneSamples(s *sample.Samples) *sample.Samples {
	return &sample.Samples{X: slices.Clone(s.X), Y: slices.Clone(s.Y), Z: slices.Clone(s.Z), OriginX: s.OriginX, OriginY: s.OriginY}
}

// gridValues grids the samples (a copy moved to the target's centre, as the real flow does)
// with alg on the CPU engine, two workers, and returns the node values row-major.
func gridValues(t *testing.T, alg string, s *sample.Samples, tg raster.Target) []float64 {
	t.Helper()
	a, _, err := ParseAlgorithm(alg)
	if err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	var out []float64
	sink := func(row0, rows int, v []float64) error {
		if row0*tg.Cols != len(out) {
			t.Fatalf("%s: rows %d.. arrive after %d values", alg, row0, len(out))
		}
		out = append(out, v...)
		return nil
	}
	if err := Grid(context.Background(), &CPU{Threads: 2}, &Problem{Samples: local, Target: tg, Alg: a}, sink, nil); err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	return out
}

// refValues evaluates ref at every node's absolute coordinates.
func refValues(tg raster.Target, ref func(x, y float64) float64) []float64 {
	out := make([]float64, 0, tg.Cols*tg.Rows)
	for r := range tg.Rows {
		for c := range tg.Cols {
			out = append(out, ref(tg.Node(c, r, 0, 0)))
		}
	}
	return out
}

// sameValues checks got against want to 1e-9 relative; nodata must match exactly.
func sameValues(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		g, w := got[i], want[i]
		if g == w || math.IsNaN(g) && math.IsNaN(w) || math.Abs(g-w) <= 1e-9*math.Abs(w) {
			continue
		}
		if bad++; bad <= 5 {
			t.Errorf("%s: node %d = %.15g, want %.15g", what, i, g, w)
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d nodes differ", what, bad)
	}
}

// countValue counts the nodes equal to v, to make sure a test exercises what it means to.
func countValue(vals []float64, v float64) int {
	n := 0
	for _, x := range vals {
		if x == v {
			n++
		}
	}
	return n
}

// gdalEllipse is gdal's search-ellipse test of the sample (dx,dy) from the node, as written
// in GDALGridInverseDistanceToAPower & co.
func gdalEllipse(dx, dy, r1, r2, angle float64) bool {
	if a := math.Pi / 180 * angle; a != 0 {
		dx, dy = dx*math.Cos(a)+dy*math.Sin(a), dy*math.Cos(a)-dx*math.Sin(a)
	}
	return r2*r2*dx*dx+r1*r1*dy*dy <= r1*r1*r2*r2
}

// refQuadrants is gdal's per-quadrant pick, written plainly: candidates (ID, key) by quadrant
// sorted by key, taken round-robin from quadrants 0..3 while any remains under maxPer, until
// maxTotal (0: no limit). It returns the picked IDs in order and the count per quadrant.
func refQuadrants(s *sample.Samples, x, y float64, ids []int, key func(int) float64, maxPer, maxTotal int) ([]int, [4]int) {
	var quads [4][]int
	for _, i := range ids {
		q := 0
		if s.X[i]-x >= 0 {
			q++
		}
		if s.Y[i]-y >= 0 {
			q += 2
		}
		quads[q] = append(quads[q], i)
	}
	for q := range quads {
		slices.SortStableFunc(quads[q], func(a, b int) int {
			switch ka, kb := key(a), key(b); {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
	}
	var picked []int
	var count [4]int
	for {
		took := false
		for q := range quads {
			if count[q] < len(quads[q]) && (maxPer == 0 || count[q] < maxPer) {
				picked = append(picked, quads[q][count[q]])
				count[q]++
				took = true
				if maxTotal > 0 && len(picked) >= maxTotal {
					return picked, count
				}
			}
		}
		if !took {
			return picked, count
		}
	}
}

func TestOptionWarningsAndDefaults(t *testing.T) {
	cases := []struct {
		alg   string
		want  Algorithm
		warns []string
	}{
		{"invdist", &InvDist{Power: 2, FarField: true}, nil},
		{"invdist:radius=80:foo=1:bar=2", &InvDist{Power: 2, Radius1: 80, Radius2: 80, FarField: true},
			[]string{"Option radius ignored", "Option foo ignored", "Option bar ignored"}},
		{"invdistnn", &InvDistNN{Power: 2, Radius: 1, MaxPoints: 12}, nil},
		// gdal 3.6 hands invdist with per-quadrant keys to invdistnn, dropping those keys.
		{"invdist:radius1=50:radius2=50:max_points_per_quadrant=2:foo=1", &InvDistNN{Power: 2, Radius: 50, MaxPoints: 12}, nil},
		{"invdist:min_points_per_quadrant=1", &InvDistNN{Power: 2, Radius: 1, MaxPoints: 12}, nil},
		{"average:max_points=5", &Average{MaxPoints: 5},
			[]string{"max_points is ignored unless one of min_points_per_quadrant or max_points_per_quadrant is >= 1"}},
		{"average:radius=9:max_points=5:min_points_per_quadrant=1", &Average{Radius1: 9, Radius2: 9, MaxPoints: 5,
			QuadrantLimits: QuadrantLimits{MinPerQuadrant: 1}}, nil},
		{"nearest:radius=-0:nodata=-9999:max_points=3", &Nearest{NodataValue: -9999}, []string{"Option max_points ignored"}},
		{"count:radius1=4:radius2=3:angle=10:min_points=12.0", &Metric{Kind: Count, Radius1: 4, Radius2: 3, Angle: 10, MinPoints: 12}, nil},
		{"average_distance_pts:max_points=1", &Metric{Kind: AverageDistancePts}, []string{"Option max_points ignored"}},
		{"linear:power=3", &Linear{Radius: -1}, []string{"Option power ignored"}},
	}
	for _, c := range cases {
		a, warns, err := ParseAlgorithm(c.alg)
		if err != nil {
			t.Errorf("%s: %v", c.alg, err)
			continue
		}
		if !equalAlgorithms(a, c.want) {
			t.Errorf("%s: parsed %+v, want %+v", c.alg, a, c.want)
		}
		if !slices.Equal(warns, c.warns) {
			t.Errorf("%s: warnings %q, want %q", c.alg, warns, c.warns)
		}
	}
}

func equalAlgorithms(a, b Algorithm) bool {
	switch a := a.(type) {
	case *InvDist:
		b, ok := b.(*InvDist)
		return ok && *a == *b
	case *InvDistNN:
		b, ok := b.(*InvDistNN)
		return ok && *a == *b
	case *Average:
		b, ok := b.(*Average)
		return ok && *a == *b
	case *Nearest:
		b, ok := b.(*Nearest)
		return ok && *a == *b
	case *Metric:
		b, ok := b.(*Metric)
		return ok && *a == *b
	case *Linear:
		b, ok := b.(*Linear)
		return ok && *a == *b
	}
	return false
}

func TestOptionErrors(t *testing.T) {
	cases := map[string]string{
		"invdist:power=-2":        "power",
		"invdist:smoothing=-1":    "smoothing",
		"invdist:power=abc":       "power",
		"invdist:radius1=-5":      "radius1",
		"invdist:angle=nan":       "angle",
		"invdist:max_points=2.5":  "max_points",
		"invdist:min_points=-1":   "min_points",
		"invdistnn:radius=0":      "Radius value should be strictly positive",
		"invdistnn:max_points=-3": "max_points",
		"invdist:radius1=2:radius2=3:min_points_per_quadrant=1":   "radius1 != radius2 not supported",
		"invdist:radius=2:angle=5:max_points_per_quadrant=1":      "angle != 0 not supported",
		"average:min_points_per_quadrant=1":                       "Radius value should be strictly positive when per quadrant",
		"average:radius=5:angle=3:max_points_per_quadrant=1":      "angle != 0 not supported when per quadrant",
		"minimum:radius1=5:radius2=0:max_points_per_quadrant=1":   "Radius value should be strictly positive",
		"average_distance_pts:radius=5:min_points_per_quadrant=1": "Algorithm average_distance_pts not supported",
		"nearest:radius=inf":                                            "radius",
		"linear:radius=x":                                               "radius",
		"count:min_points_per_quadrant=1.5:radius=3":                    "min_points_per_quadrant",
		"range:max_points_per_quadrant=-1:radius=3":                     "max_points_per_quadrant",
		"average_distance:radius=1:radius1=2:radius2=3:min_points=1e10": "min_points",
	}
	for alg, want := range cases {
		_, _, err := ParseAlgorithm(alg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", alg, err, want)
		}
	}
}

// TestQuadtreeOrder checks gdal's quadtree order on a case worked by hand from
// cpl_quad_tree.cpp: the ninth sample splits the full root (bucket of 8) of the box
// [0,100] x [0,1] into quarters [0,30.25], [24.75,55], [45,75.25], [69.75,100] (split ratio
// 0.55, twice across x), and the walk visits them in that order.
func TestQuadtreeOrder(t *testing.T) {
	s := &sample.Samples{}
	for _, p := range [][2]float64{{100, 1}, {0, 0}, {90, .5}, {80, .5}, {10, .5}, {50, .5}, {20, .5}, {60, .5}, {27, .5}} {
		s.Add(p[0], p[1], 0)
	}
	rank := gdalQuadtreeRanks(s)
	walk := make([]int32, len(rank))
	for i, r := range rank {
		walk[r] = int32(i)
	}
	if want := []int32{1, 4, 6, 8, 5, 7, 0, 2, 3}; !slices.Equal(walk, want) {
		t.Errorf("quadtree walk %v, want %v", walk, want)
	}
	// Up to 8 samples stay in the root, in input order.
	s.X, s.Y, s.Z = s.X[:8], s.Y[:8], s.Z[:8]
	if rank := gdalQuadtreeRanks(s); !slices.Equal(rank, []int32{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("ranks of 8 samples %v, want input order", rank)
	}
}

// TestQuadtreeOrderIsAPermutation checks the build on many samples, coincident ones included
// (a node of zero size never splits).
func TestQuadtreeOrderIsAPermutation(t *testing.T) {
	s := utmSamples(5000, 1000, 3)
	for i := range 300 {
		s.X[i], s.Y[i] = s.X[0], s.Y[0]
	}
	rank := gdalQuadtreeRanks(s)
	seen := make([]bool, len(rank))
	for _, r := range rank {
		if r < 0 || int(r) >= len(rank) || seen[r] {
			t.Fatalf("rank %d out of range or repeated", r)
		}
		seen[r] = true
	}
}

func TestPickQuadrants(t *testing.T) {
	s := utmSamples(400, 100, 5)
	s.MoveOrigin(451050, 5401050)
	nb := make([]grid.Neighbor, s.Len())
	ids := make([]int, s.Len())
	for i := range nb {
		nb[i] = grid.Neighbor{ID: int32(i), D2: s.X[i]*s.X[i] + s.Y[i]*s.Y[i]}
		ids[i] = i
	}
	order := newGDALOrder(s)
	for _, c := range []struct{ maxPer, maxTotal int }{{0, 0}, {3, 0}, {5, 7}, {0, 10}, {40, 0}} {
		sc := &scratch{}
		cand := slices.Clone(nb)
		pick := pickQuadrants(sc, cand, s, 0, 0, QuadrantLimits{MaxPerQuadrant: c.maxPer}, c.maxTotal, order)
		var got []int
		for _, j := range pick.Order {
			got = append(got, int(cand[j].ID))
		}
		want, count := refQuadrants(s, 0, 0, ids, func(i int) float64 { return nb[i].D2 }, c.maxPer, c.maxTotal)
		if !slices.Equal(got, want) || pick.PerQuadrant != count {
			t.Errorf("maxPer %d max %d: picked %v %v, want %v %v", c.maxPer, c.maxTotal, got, pick.PerQuadrant, want, count)
		}
	}
}
