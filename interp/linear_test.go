package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// bruteDelaunay lists the triangles (i,j,k) counter-clockwise whose circumcircle holds no other
// sample: the Delaunay triangulation of samples in general position, by definition.
func bruteDelaunay(s *sample.Samples) [][3]int {
	var tris [][3]int
	n := s.Len()
	for i := range n {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				a, b, c := i, j, k
				switch bigOrient(s.X[a], s.Y[a], s.X[b], s.Y[b], s.X[c], s.Y[c]) {
				case 0:
					continue
				case -1:
					b, c = c, b
				}
				empty := true
				for d := 0; d < n && empty; d++ {
					empty = d == a || d == b || d == c ||
						clearlyOutside(s.X[a], s.Y[a], s.X[b], s.Y[b], s.X[c], s.Y[c], s.X[d], s.Y[d]) ||
						bigIncircle(s.X[a], s.Y[a], s.X[b], s.Y[b], s.X[c], s.Y[c], s.X[d], s.Y[d]) <= 0
				}
				if empty {
					tris = append(tris, [3]int{a, b, c})
				}
			}
		}
	}
	return tris
}

// refLinear is gdal 3.6's linear at (x,y) (GDALGridLinear with alg/delaunay.c): barycentric
// interpolation in a triangle of doubled area >= 1e-5 with every coordinate >= -1e-10; else
// nodata for radius 0, else gdal's nearest on its quadtree: in the square of half-side radius,
// or (radius < 0) in squares growing from sqrt(bbox area/n) by doubling until one holds a
// sample (the smallest square holding one when that area is 0).
func refLinear(a *Linear, s *sample.Samples, tris [][3]int, x, y float64) float64 {
	for _, tr := range tris {
		x1, y1, x2, y2, x3, y3 := s.X[tr[0]], s.Y[tr[0]], s.X[tr[1]], s.Y[tr[1]], s.X[tr[2]], s.Y[tr[2]]
		den := (y2-y3)*(x1-x3) + (x3-x2)*(y1-y3)
		if math.Abs(den) < 1e-5 {
			continue
		}
		l1 := ((y2-y3)*(x-x3) + (x3-x2)*(y-y3)) / den
		l2 := ((y3-y1)*(x-x3) + (x1-x3)*(y-y3)) / den
		l3 := 1 - l1 - l2
		if l1 >= -1e-10 && l2 >= -1e-10 && l3 >= -1e-10 {
			return l1*s.Z[tr[0]] + l2*s.Z[tr[1]] + l3*s.Z[tr[2]]
		}
	}
	if a.Radius == 0 {
		return a.NodataValue
	}
	inSquare := func(i int, h float64) bool { return math.Abs(s.X[i]-x) <= h && math.Abs(s.Y[i]-y) <= h }
	h := a.Radius
	if h < 0 {
		minX, minY, maxX, maxY := s.Bounds()
		h = math.Sqrt((maxX - minX) * (maxY - minY) / float64(s.Len()))
		cheb := math.Inf(1)
		for i := range s.X {
			cheb = math.Min(cheb, math.Max(math.Abs(s.X[i]-x), math.Abs(s.Y[i]-y)))
		}
		if h == 0 {
			h = cheb
		}
		for h < cheb {
			h *= 2
		}
	}
	// Ties go to the last in gdal's quadtree order.
	rank := gdalQuadtreeRanks(s)
	best, bestD2 := -1, math.Inf(1)
	for i := range s.X {
		d2 := math.Pow(s.X[i]-x, 2) + math.Pow(s.Y[i]-y, 2)
		if inSquare(i, h) && (d2 < bestD2 || d2 == bestD2 && rank[i] > rank[best]) {
			best, bestD2 = i, d2
		}
	}
	if best < 0 {
		return a.NodataValue
	}
	return s.Z[best]
}

func checkLinear(t *testing.T, s *sample.Samples, tg raster.Target, algs ...string) {
	t.Helper()
	tris := bruteDelaunay(s)
	for _, alg := range algs {
		a, _, err := ParseAlgorithm(alg)
		if err != nil {
			t.Fatal(err)
		}
		want := refValues(tg, func(x, y float64) float64 { return refLinear(a.(*Linear), s, tris, x, y) })
		sameValues(t, alg, gridValues(t, alg, s, tg), want)
	}
}

func TestLinearMatchesGDAL(t *testing.T) {
	s := utmSamples(40, 1000, 9)
	// The target reaches well beyond the samples' hull, so that every outside rule acts.
	tg := utmTarget(1000, 300, 40)
	checkLinear(t, s, tg, "linear", "linear:radius=0:nodata=-1", "linear:radius=90:nodata=-1", "linear:radius=-5")
	v := gridValues(t, "linear:radius=0:nodata=-1", s, tg)
	if inside := len(v) - countValue(v, -1); inside < len(v)/4 || inside > len(v)*3/4 {
		t.Errorf("%d of %d nodes inside the hull; the test should have plenty of both", inside, len(v))
	}
}

// TestLinearCollinear: samples on a line have no triangle, so that every node is outside.
func TestLinearCollinear(t *testing.T) {
	for _, slope := range []float64{0, 0.5} {
		s := &sample.Samples{}
		for i := range 25 {
			s.Add(451000+40*float64(i), 5401000+40*slope*float64(i), float64(i))
		}
		tg := raster.NorthUp(450900, 5400900, 452100, 5402100, 23, 23)
		checkLinear(t, s, tg, "linear", "linear:radius=0:nodata=-1", "linear:radius=50:nodata=-1")
	}
}

// TestLinearDuplicates: of coincident samples the first in input order is the vertex.
func TestLinearDuplicates(t *testing.T) {
	s := utmSamples(30, 1000, 10)
	tg := utmTarget(1000, 0, 10)
	// Samples at nodes, then copies with other values.
	for _, cr := range [][2]int{{2, 3}, {5, 5}, {7, 1}} {
		x, y := tg.Node(cr[0], cr[1], 0, 0)
		s.Add(x, y, 500)
		s.Add(x, y, 900)
	}
	got := gridValues(t, "linear", s, tg)
	for _, cr := range [][2]int{{2, 3}, {5, 5}, {7, 1}} {
		if v := got[cr[1]*tg.Cols+cr[0]]; math.Abs(v-500) > 1e-9 {
			t.Errorf("node %v = %g, want the first duplicate's 500", cr, v)
		}
	}
}

// TestLinearFlatTriangle: gdal ignores triangles of doubled area below 1e-5, so a node inside
// one takes the nearest sample instead.
func TestLinearFlatTriangle(t *testing.T) {
	s := utmSamples(30, 1000, 11)
	tg := utmTarget(1000, 0, 10)
	x, y := tg.Node(4, 4, 0, 0)
	s.Add(x-5e-4, y-5e-4, 1)
	s.Add(x+5e-4, y-5e-4, 2)
	s.Add(x, y+4e-4, 3)
	checkLinear(t, s, tg, "linear")
	if v := gridValues(t, "linear", s, tg)[4*tg.Cols+4]; v != 3 {
		t.Errorf("node in the flat triangle = %g, want its nearest vertex's 3", v)
	}
}

// TestLinearLarge checks the triangle location on more samples than a brute-force
// triangulation allows: every node inside the hull against an interpolation in the triangle
// that holds it, found among all triangles.
func TestLinearLarge(t *testing.T) {
	s := utmSamples(8000, 1000, 12)
	tg := utmTarget(1000, 10, 40)
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	tr := mustDelaunay(t, local.X, local.Y)
	got := gridValues(t, "linear:radius=0:nodata=-1e9", s, tg)
	inside := 0
	ox, oy := tg.Centre()
	for i, v := range got {
		x, y := tg.Node(i%tg.Cols, i/tg.Cols, ox, oy)
		want := -1e9
		for k := 0; k < len(tr.tri); k += 3 {
			a, b, c := tr.tri[k], tr.tri[k+1], tr.tri[k+2]
			if orient(local.X[a], local.Y[a], local.X[b], local.Y[b], x, y) >= 0 &&
				orient(local.X[b], local.Y[b], local.X[c], local.Y[c], x, y) >= 0 &&
				orient(local.X[c], local.Y[c], local.X[a], local.Y[a], x, y) >= 0 {
				w := refLinear(&Linear{}, local, [][3]int{{int(a), int(b), int(c)}}, x, y)
				want = w
				break
			}
		}
		if want != -1e9 {
			inside++
		}
		if math.Abs(v-want) > 1e-9*math.Abs(want) {
			t.Fatalf("node %d = %g, want %g", i, v, want)
		}
	}
	if inside < len(got)/2 {
		t.Errorf("only %d nodes inside", inside)
	}
}

// reachCloud is samples in a disc (its hull's edges run every way) with a lattice patch in it
// (cocircular squares) and repeats, relative to the origin (0, 0).
func reachCloud(rng *rand.Rand) *sample.Samples {
	s := &sample.Samples{}
	for range 400 {
		a, r := 2*math.Pi*rng.Float64(), 100*math.Sqrt(rng.Float64())
		s.Add(math.Round(r*math.Cos(a)*8)/8, math.Round(r*math.Sin(a)*8)/8, 100*rng.Float64())
	}
	for j := range 8 {
		for i := range 8 {
			s.Add(-30+5*float64(i), -10+5*float64(j), 100*rng.Float64())
		}
	}
	for range 20 {
		k := rng.IntN(s.Len())
		s.Add(s.X[k], s.Y[k], 100*rng.Float64())
	}
	return s
}

// A node's reach is a proof: computed from the samples strictly inside a region whose edge is
// farther from it than its reach, its value is the whole job's, bit for bit, inside the
// samples' hull, on it and outside. The nodes lie on a grid through the lattice's lines, out to
// beyond the samples.
func TestLinearReachProves(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	s := reachCloud(rng)
	x0, y0, x1, y1 := s.Bounds()
	tg := raster.NorthUp(-121.25, -121.25, 121.25, 121.25, 97, 97) // nodes every 2.5, on 0
	for _, alg := range []string{"linear", "linear:radius=0:nodata=-1", "linear:radius=7"} {
		a, _, err := ParseAlgorithm(alg)
		if err != nil {
			t.Fatal(err)
		}
		whole := &Problem{Samples: s, Target: tg, Alg: a}
		bw, err := a.(*Linear).bind(whole, testIndex(t, whole))
		if err != nil {
			t.Fatal(err)
		}
		proved, inside, outside := 0, 0, 0
		for range 40 {
			cx, cy, h := 240*rng.Float64()-120, 240*rng.Float64()-120, 15+100*rng.Float64()
			region := [4]float64{cx - h, cy - h, cx + h, cy + h}
			part := &sample.Samples{}
			for i := range s.X {
				if s.X[i] > region[0] && s.X[i] < region[2] && s.Y[i] > region[1] && s.Y[i] < region[3] {
					part.Add(s.X[i], s.Y[i], s.Z[i])
				}
			}
			p := &Problem{Samples: part, Target: tg, Alg: a,
				Job: &Job{N: s.Len(), Bounds: [4]float64{x0, y0, x1, y1}, Rel: [4]float64{x0, y0, x1, y1}, Partial: true}}
			bp, err := a.(*Linear).bind(p, testIndex(t, p))
			if err != nil {
				t.Fatal(err)
			}
			sc, scw := &scratch{}, &scratch{}
			for r := range tg.Rows {
				for c := range tg.Cols {
					x, y := tg.Node(c, r, 0, 0)
					sc.reach2 = 0
					got := bp.node(sc, x, y)
					edge := min(x-region[0], region[2]-x, y-region[1], region[3]-y)
					if !(math.Sqrt(sc.reach2) < edge) {
						continue
					}
					proved++
					want := bw.node(scw, x, y)
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s: node (%g, %g), reach %g inside %v: %v from the region's samples, %v from all",
							alg, x, y, math.Sqrt(sc.reach2), region, got, want)
					}
					if _, ok := bw.(*linearBound).loc.interpolate(x, y); ok {
						inside++
					} else if x > x0 && x < x1 && y > y0 && y < y1 {
						outside++ // outside the hull, inside the box
					}
				}
			}
		}
		t.Logf("%s: %d nodes proved, %d in a triangle, %d outside the hull in the samples' box", alg, proved, inside, outside)
		if inside < 1000 || outside < 50 {
			t.Errorf("%s: too few nodes proved for a test", alg)
		}
	}
}
