package interp

import (
	"context"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/testload"
)

// bigOrient is the exact sign of the orientation determinant, in rationals.
func bigOrient(ax, ay, bx, by, cx, cy float64) int {
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	sub := func(a, b float64) *big.Rat { return new(big.Rat).Sub(r(a), r(b)) }
	l := new(big.Rat).Mul(sub(ax, cx), sub(by, cy))
	rr := new(big.Rat).Mul(sub(ay, cy), sub(bx, cx))
	return l.Cmp(rr)
}

// bigIncircle is the exact sign of the in-circle determinant, in rationals.
func bigIncircle(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	sub := func(a, b float64) *big.Rat { return new(big.Rat).Sub(r(a), r(b)) }
	mul := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
	add := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
	adx, ady, bdx, bdy, cdx, cdy := sub(ax, dx), sub(ay, dy), sub(bx, dx), sub(by, dy), sub(cx, dx), sub(cy, dy)
	lift := func(u, v *big.Rat) *big.Rat { return add(mul(u, u), mul(v, v)) }
	cross := func(u1, v1, u2, v2 *big.Rat) *big.Rat { return new(big.Rat).Sub(mul(u1, v2), mul(u2, v1)) }
	det := add(add(mul(lift(adx, ady), cross(bdx, bdy, cdx, cdy)), mul(lift(bdx, bdy), cross(cdx, cdy, adx, ady))),
		mul(lift(cdx, cdy), cross(adx, ady, bdx, bdy)))
	return det.Sign()
}

func TestOrientIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 20000 {
		// Points on or next to a line, at UTM-like and local scales.
		scale := []float64{1, 1e3, 4.5e5}[k%3]
		ax, ay := rng.Float64()*scale, rng.Float64()*scale
		dx, dy := rng.Float64()-0.5, rng.Float64()-0.5
		u, v := rng.Float64()*3-1, rng.Float64()*3-1
		bx, by := ax+u*dx, ay+u*dy
		cx, cy := ax+v*dx, ay+v*dy
		if k%2 == 1 {
			cx = math.Nextafter(cx, math.Inf(1))
		}
		if got, want := orient(ax, ay, bx, by, cx, cy), bigOrient(ax, ay, bx, by, cx, cy); got != want {
			t.Fatalf("orient(%v,%v,%v,%v,%v,%v) = %d, want %d", ax, ay, bx, by, cx, cy, got, want)
		}
	}
}

func TestIncircleIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 20000 {
		// Four points on or next to a circle: incircle's sign is the exact one.
		cx, cy, r := rng.Float64()*1e3, rng.Float64()*1e3, 1+rng.Float64()*100
		p := func() (float64, float64) {
			a := rng.Float64() * 2 * math.Pi
			return cx + r*math.Cos(a), cy + r*math.Sin(a)
		}
		ax, ay := p()
		bx, by := p()
		qx, qy := p()
		dx, dy := p()
		if k%3 == 0 {
			dx, dy = cx+r*(rng.Float64()-0.5), cy+r*(rng.Float64()-0.5)
		}
		if bigOrient(ax, ay, bx, by, qx, qy) <= 0 {
			bx, by, qx, qy = qx, qy, bx, by
		}
		got, want := incircle(ax, ay, bx, by, qx, qy, dx, dy), bigIncircle(ax, ay, bx, by, qx, qy, dx, dy)
		if got != want {
			t.Fatalf("incircle = %d, want %d", got, want)
		}
	}
	// Exactly cocircular points: lattice squares and Pythagorean circles, at inexact decimal
	// scales and far from the origin, where the differences carry rounding errors.
	for k := range 20000 {
		scale := []float64{1, 0.1, 0.01, 3.7}[k%4]
		ox, oy := []float64{0, 451234.5, -0.3}[k%3], []float64{0, 5401234.25, 0.7}[k%3]
		i, j := float64(rng.IntN(200)-100), float64(rng.IntN(200)-100)
		p := func(u, v float64) (float64, float64) { return ox + scale*u, oy + scale*v }
		var xs, ys [4]float64
		if k%2 == 0 {
			for n, c := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				xs[n], ys[n] = p(i+c[0], j+c[1])
			}
		} else {
			for n, c := range [4][2]float64{{5, 0}, {3, 4}, {-4, 3}, {0, -5}} {
				xs[n], ys[n] = p(i+c[0], j+c[1])
			}
		}
		got := incircle(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2], xs[3], ys[3])
		if want := bigIncircle(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2], xs[3], ys[3]); got != want {
			t.Fatalf("incircle of %v %v = %d, want %d", xs, ys, got, want)
		}
	}
}

// cmpDist orders distances exactly: points at equal distances from a centre (a lattice around a
// lattice point or a cell's centre), and next to them by an ulp, at inexact decimal scales.
func TestCmpDistIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	d2 := func(x, y, cx, cy float64) *big.Rat {
		dx, dy := new(big.Rat).Sub(r(x), r(cx)), new(big.Rat).Sub(r(y), r(cy))
		return new(big.Rat).Add(new(big.Rat).Mul(dx, dx), new(big.Rat).Mul(dy, dy))
	}
	for k := range 20000 {
		scale := []float64{1, 0.1, 0.3, 1e-3}[k%4]
		cx, cy := scale*float64(rng.IntN(100)), scale*float64(rng.IntN(100))
		if k%3 == 0 {
			cx, cy = cx+scale/2, cy+scale/2
		}
		c := [4][2]float64{{5, 0}, {3, 4}, {-4, -3}, {0, 5}}
		a, b := c[rng.IntN(4)], c[rng.IntN(4)]
		ax, ay, bx, by := cx+scale*a[0], cy+scale*a[1], cx+scale*b[0], cy+scale*b[1]
		if k%5 == 0 {
			// an ulp away (not from 0, where the square would underflow)
			if bx != 0 {
				bx = math.Nextafter(bx, math.Inf(1))
			} else {
				by = math.Nextafter(by, math.Inf(1))
			}
		}
		if got, want := cmpDist(ax, ay, bx, by, cx, cy), d2(ax, ay, cx, cy).Cmp(d2(bx, by, cx, cy)); got != want {
			t.Fatalf("cmpDist(%v,%v, %v,%v, %v,%v) = %d, want %d", ax, ay, bx, by, cx, cy, got, want)
		}
	}
}

// incirclePerturbed never says 0, and agrees with itself on the same four points taken in any
// order that keeps the triangle counter-clockwise, and when d and a vertex change places: the
// two triangulations of four cocircular points are told apart consistently.
func TestIncirclePerturbedConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 5000 {
		var xs, ys [4]float64
		i, j := float64(rng.IntN(20)), float64(rng.IntN(20))
		for n, c := range [4][2]float64{{5, 0}, {3, 4}, {-4, 3}, {0, -5}} {
			xs[n], ys[n] = 0.1*(i+c[0]), 0.1*(j+c[1])
		}
		if k%2 == 1 {
			xs, ys = [4]float64{0.1 * i, 0.1 * (i + 1), 0.1 * (i + 1), 0.1 * i}, [4]float64{0.1 * j, 0.1 * j, 0.1 * (j + 1), 0.1 * (j + 1)}
		}
		// (0,1,2,3) counter-clockwise on the circle: the diagonal 0-2 or 1-3
		s02 := incirclePerturbed(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2], xs[3], ys[3])
		if s02 == 0 {
			t.Fatal("incirclePerturbed said 0")
		}
		for r := range 3 {
			a, b, c := r, (r+1)%3, (r+2)%3
			order := [3]int{0, 1, 2}
			if got := incirclePerturbed(xs[order[a]], ys[order[a]], xs[order[b]], ys[order[b]], xs[order[c]], ys[order[c]], xs[3], ys[3]); got != s02 {
				t.Fatalf("rotation %d of the triangle: %d, want %d", r, got, s02)
			}
		}
		// The quadrilateral seen across the diagonal 1-3: triangle (1,2,3) against 0. The
		// diagonal 0-2 is kept (s02 < 0) exactly when 1-3 would be flipped (that test > 0).
		s13 := incirclePerturbed(xs[1], ys[1], xs[2], ys[2], xs[3], ys[3], xs[0], ys[0])
		if s13 != -s02 {
			t.Fatalf("the two diagonals of %v %v: %d and %d, want opposite signs", xs, ys, s02, s13)
		}
	}
}

// clearlyOutside says, in plain floating point with a wide margin, that d lies outside the
// circle through the counter-clockwise (a,b,c): it spares most exact evaluations.
func clearlyOutside(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	adx, ady, bdx, bdy, cdx, cdy := ax-dx, ay-dy, bx-dx, by-dy, cx-dx, cy-dy
	al, bl, cl := adx*adx+ady*ady, bdx*bdx+bdy*bdy, cdx*cdx+cdy*cdy
	det := al*(bdx*cdy-cdx*bdy) + bl*(cdx*ady-adx*cdy) + cl*(adx*bdy-bdx*ady)
	perm := al*(math.Abs(bdx*cdy)+math.Abs(cdx*bdy)) + bl*(math.Abs(cdx*ady)+math.Abs(adx*cdy)) +
		cl*(math.Abs(adx*bdy)+math.Abs(bdx*ady))
	return det < -1e-10*perm
}

// checkTriangulation checks a triangulation of the points: counter-clockwise triangles,
// consistent neighbours, the empty-circle property against every point, and the count
// 2v - h - 2 for v vertices of which h on the hull.
func checkTriangulation(t *testing.T, x, y []float64, tr *triangulation) {
	t.Helper()
	vertices := map[int32]bool{}
	hull := 0
	for e := range int32(len(tr.tri)) {
		vertices[tr.tri[e]] = true
		o := tr.half[e]
		if o < 0 {
			hull++
			continue
		}
		if tr.half[o] != e || tr.tri[o] != tr.tri[nextHalfedge(e)] || tr.tri[nextHalfedge(o)] != tr.tri[e] {
			t.Fatalf("half-edge %d and its opposite %d disagree", e, o)
		}
	}
	for k := 0; k < len(tr.tri); k += 3 {
		a, b, c := tr.tri[k], tr.tri[k+1], tr.tri[k+2]
		if bigOrient(x[a], y[a], x[b], y[b], x[c], y[c]) <= 0 {
			t.Fatalf("triangle %d (%d,%d,%d) is not counter-clockwise", k/3, a, b, c)
		}
		for d := range x {
			if clearlyOutside(x[a], y[a], x[b], y[b], x[c], y[c], x[d], y[d]) {
				continue
			}
			if bigIncircle(x[a], y[a], x[b], y[b], x[c], y[c], x[d], y[d]) > 0 {
				t.Fatalf("point %d lies inside the circumcircle of triangle %d", d, k/3)
			}
		}
	}
	if nt, want := tr.triangles(), 2*len(vertices)-hull-2; nt != want {
		t.Errorf("%d triangles for %d vertices (%d on the hull), want %d", nt, len(vertices), hull, want)
	}
}

func TestDelaunayRandom(t *testing.T) {
	s := utmSamples(300, 1000, 8)
	s.MoveOrigin(451500, 5401500)
	tr := mustDelaunay(t, s.X, s.Y)
	checkTriangulation(t, s.X, s.Y, tr)
	used := map[int32]bool{}
	for _, v := range tr.tri {
		used[v] = true
	}
	if len(used) != s.Len() {
		t.Errorf("%d of %d points are vertices", len(used), s.Len())
	}
}

func TestDelaunayLattice(t *testing.T) {
	var x, y []float64
	for j := range 15 {
		for i := range 15 {
			x, y = append(x, 0.1*float64(i)-0.7), append(y, 0.1*float64(j)-0.7) // inexact decimals
		}
	}
	tr := mustDelaunay(t, x, y)
	checkTriangulation(t, x, y, tr)
	if tr.triangles() != 2*14*14 {
		t.Errorf("%d triangles, want %d", tr.triangles(), 2*14*14)
	}
}

func TestDelaunayDuplicatesAndCircles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var x, y []float64
	for k := range 60 {
		a := 2 * math.Pi * float64(k) / 60
		x, y = append(x, 100*math.Cos(a)), append(y, 100*math.Sin(a))
	}
	x, y = append(x, 0), append(y, 0)
	for range 40 {
		i := rng.IntN(len(x))
		x, y = append(x, x[i]), append(y, y[i])
	}
	tr := mustDelaunay(t, x, y)
	checkTriangulation(t, x, y, tr)
	for _, v := range tr.tri {
		if v >= 61 {
			t.Fatalf("vertex %d repeats an earlier point; the first should be kept", v)
		}
	}
}

func TestDelaunayDegenerate(t *testing.T) {
	line := func(n int, dx, dy float64) ([]float64, []float64) {
		var x, y []float64
		for i := range n {
			x, y = append(x, 3+dx*float64(i)), append(y, -2+dy*float64(i))
		}
		return x, y
	}
	cases := map[string][2][]float64{
		"empty":      {nil, nil},
		"two":        {{0, 1}, {0, 1}},
		"one point":  {{5, 5, 5, 5}, {1, 1, 1, 1}},
		"horizontal": func() [2][]float64 { x, y := line(20, 1, 0); return [2][]float64{x, y} }(),
		"diagonal":   func() [2][]float64 { x, y := line(20, 0.5, -0.25); return [2][]float64{x, y} }(),
	}
	for name, c := range cases {
		if tr := mustDelaunay(t, c[0], c[1]); tr.triangles() != 0 {
			t.Errorf("%s: %d triangles, want none", name, tr.triangles())
		}
	}
	// A line and one point off it.
	x, y := line(20, 1, 0)
	x, y = append(x, 10), append(y, 5)
	tr := mustDelaunay(t, x, y)
	checkTriangulation(t, x, y, tr)
	if tr.triangles() != 19 {
		t.Errorf("%d triangles for a line of 20 and a point, want 19", tr.triangles())
	}
	if !slices.Contains(tr.tri, 20) {
		t.Error("the point off the line is not a vertex")
	}
}

// mustDelaunay triangulates points the triangulation accepts.
func mustDelaunay(t *testing.T, x, y []float64) *triangulation {
	t.Helper()
	tr, err := delaunay(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// triangleSet is the triangles of tr by their vertices' coordinates, each rotated to start at
// its least vertex in (y, x) order: comparable between triangulations of different point lists.
func triangleSet(x, y []float64, tr *triangulation) map[[6]float64]bool {
	set := map[[6]float64]bool{}
	for k := 0; k < len(tr.tri); k += 3 {
		v := [3]int32{tr.tri[k], tr.tri[k+1], tr.tri[k+2]}
		for v[0] != minVertex(x, y, v) {
			v = [3]int32{v[1], v[2], v[0]}
		}
		set[[6]float64{x[v[0]], y[v[0]], x[v[1]], y[v[1]], x[v[2]], y[v[2]]}] = true
	}
	return set
}

func minVertex(x, y []float64, v [3]int32) int32 {
	m := v[0]
	for _, i := range v[1:] {
		if cmpPoint(x[i], y[i], x[m], y[m]) < 0 {
			m = i
		}
	}
	return m
}

// latticeCloud is a lattice of cocircular squares at an inexact decimal step, far from the
// origin, with some random points among them and repeats of both.
func latticeCloud(rng *rand.Rand) (x, y []float64) {
	for j := range 12 {
		for i := range 12 {
			x, y = append(x, 1234.5+0.1*float64(i)), append(y, -77.3+0.1*float64(j))
		}
	}
	for range 15 {
		x, y = append(x, 1234.5+1.1*rng.Float64()), append(y, -77.3+1.1*rng.Float64())
	}
	for range 10 {
		i := rng.IntN(len(x))
		x, y = append(x, x[i]), append(y, y[i])
	}
	return x, y
}

// The triangulation of points with many cocircular quadruples is unique: the same triangles
// whatever the points' order, each with no point inside its perturbed circle; and a subset's
// triangles whose circles lie inside the subset's region are the whole set's.
func TestDelaunayUnique(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := latticeCloud(rng)
	tr := mustDelaunay(t, x, y)
	checkTriangulation(t, x, y, tr)
	want := triangleSet(x, y, tr)
	for tri := range want {
		for d := range x {
			if x[d] == tri[0] && y[d] == tri[1] || x[d] == tri[2] && y[d] == tri[3] || x[d] == tri[4] && y[d] == tri[5] {
				continue // a vertex, or a repeat of one
			}
			if s := incirclePerturbed(tri[0], tri[1], tri[2], tri[3], tri[4], tri[5], x[d], y[d]); s > 0 {
				t.Fatalf("point %d lies inside the perturbed circle of %v", d, tri)
			}
		}
	}
	for range 10 {
		perm := rng.Perm(len(x))
		px, py := make([]float64, len(x)), make([]float64, len(x))
		for i, p := range perm {
			px[i], py[i] = x[p], y[p]
		}
		got := triangleSet(px, py, mustDelaunay(t, px, py))
		if !maps.Equal(got, want) {
			t.Fatalf("a permutation of the points gives %d triangles, %d of them others", len(got), countMissing(got, want))
		}
	}
	inside := 0
	for range 30 {
		x0, y0 := 1234.5+rng.Float64()*0.8-0.1, -77.3+rng.Float64()*0.8-0.1
		region := [4]float64{x0, y0, x0 + 0.2 + rng.Float64()*0.5, y0 + 0.2 + rng.Float64()*0.5}
		var sx, sy []float64
		for i := range x {
			if x[i] > region[0] && x[i] < region[2] && y[i] > region[1] && y[i] < region[3] {
				sx, sy = append(sx, x[i]), append(sy, y[i])
			}
		}
		for tri := range triangleSet(sx, sy, mustDelaunay(t, sx, sy)) {
			cx, cy := circumcentre(tri[0], tri[1], tri[2], tri[3], tri[4], tri[5])
			r := math.Hypot(tri[0]-cx, tri[1]-cy) * (1 + 1e-9)
			if cx-r > region[0] && cx+r < region[2] && cy-r > region[1] && cy+r < region[3] {
				inside++
				if !want[tri] {
					t.Fatalf("triangle %v of the points in %v is not the whole set's", tri, region)
				}
			}
		}
	}
	if inside < 100 {
		t.Fatalf("only %d triangles with their circles inside the regions: a weak test", inside)
	}
}

func countMissing(got, want map[[6]float64]bool) int {
	n := 0
	for k := range got {
		if !want[k] {
			n++
		}
	}
	return n
}

// The triangulation looks at the context as it works: at least once every delaunayCheck
// points of its sweep (and comparisons of its sort), so that an interrupt at any of its looks
// stops it with the context's error, where it used to run to the end (seconds on 1e7 points).
func TestDelaunayStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 1 << 16
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64()*1000, rng.Float64()*1000
	}
	all := testload.DoneAt(0)
	if _, err := delaunay(all, x, y); err != nil {
		t.Fatal(err)
	}
	looks := all.Looks()
	// the sort's comparisons (n log n) alone give more than n/delaunayCheck looks
	if looks < 2*n/delaunayCheck {
		t.Fatalf("%d looks at the context for %d points, want at least %d", looks, n, 2*n/delaunayCheck)
	}
	for _, at := range []int{1, 2, looks / 4, looks / 2, looks - 1, looks} {
		if tr, err := delaunay(testload.DoneAt(at), x, y); err != context.Canceled || tr != nil {
			t.Errorf("interrupted at look %d of %d: %v, want context.Canceled and no triangulation", at, looks, err)
		}
	}
}
