package interp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
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

func TestIncircleSign(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 20000 {
		// Four points on or next to a circle: incircle may say 0 only when it is too close to
		// tell, never the wrong sign.
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
		if got != want && got != 0 {
			t.Fatalf("incircle = %d, want %d", got, want)
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
	tr, err := delaunay(x, y)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
