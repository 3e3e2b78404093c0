package interp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// triangulation is a Delaunay triangulation of points, as flat arrays: triangle t has the
// vertices tri[3t], tri[3t+1], tri[3t+2] counter-clockwise; half-edge e runs from tri[e] to
// tri[nextHalfedge(e)], and half[e] is the opposite half-edge of the neighbouring triangle, or
// -1 on the convex hull.
type triangulation struct {
	tri, half []int32
}

func (t *triangulation) triangles() int { return len(t.tri) / 3 }

func nextHalfedge(e int32) int32 {
	if e%3 == 2 {
		return e - 2
	}
	return e + 1
}

func prevHalfedge(e int32) int32 {
	if e%3 == 0 {
		return e + 2
	}
	return e - 1
}

// delaunay triangulates the points by a sweep from the centre outwards (the "delaunator"
// scheme: points sorted by distance from a seed triangle's circumcentre, each joined to the
// hull edges it sees, then Lawson flips), with orientation tests exact and in-circle tests
// exact enough (a filter, then double-double arithmetic; a test still undecided there keeps
// the edge, which leaves the triangulation valid). Of coincident points only the first in
// input order becomes a vertex. Fewer than three points, or all on one line, give no
// triangles. Coordinates that are not finite, or whose squared distances overflow float64,
// are an error: the sweep's predicates and circumcentres need finite squares.
func delaunay(x, y []float64) (tr *triangulation, err error) {
	n := len(x)
	if n < 3 {
		return &triangulation{}, nil
	}
	if err := checkSpan(x, y); err != nil {
		return nil, err
	}
	// A degenerate input that slips past the checks must not bring the program down.
	defer func() {
		if r := recover(); r != nil {
			tr, err = nil, fmt.Errorf("triangulation failed on degenerate coordinates: %v", r)
		}
	}()
	i0, i1, i2, ok := seedTriangle(x, y)
	if !ok {
		return &triangulation{}, nil
	}
	if orient(x[i0], y[i0], x[i1], y[i1], x[i2], y[i2]) < 0 {
		i1, i2 = i2, i1
	}
	cx, cy := circumcentre(x[i0], y[i0], x[i1], y[i1], x[i2], y[i2])
	type byDist struct {
		d  float64
		id int32
	}
	order := make([]byDist, n)
	for i := range order {
		dx, dy := x[i]-cx, y[i]-cy
		order[i] = byDist{dx*dx + dy*dy, int32(i)}
	}
	slices.SortFunc(order, func(a, b byDist) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	sw := newSweep(x, y, cx, cy, n)
	sw.seed(i0, i1, i2)
	for k, o := range order {
		i := o.id
		if k > 0 && x[i] == x[order[k-1].id] && y[i] == y[order[k-1].id] || i == i0 || i == i1 || i == i2 {
			continue
		}
		// A point that sees no hull edge repeats a vertex, or (within rounding of the distance
		// order, so within rounding of another point) lies on the hull: it is left out.
		sw.insert(i)
	}
	return &triangulation{tri: sw.tri, half: sw.half}, nil
}

// checkSpan refuses coordinates the sweep cannot compute with: not finite, or spread so wide
// that a squared distance, or a product of two in the in-circle test, overflows.
func checkSpan(x, y []float64) error {
	minX, maxX := math.Inf(1), math.Inf(-1)
	minY, maxY := math.Inf(1), math.Inf(-1)
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			return fmt.Errorf("triangulation: point %d (%g, %g) is not finite", i+1, x[i], y[i])
		}
		minX, maxX = math.Min(minX, x[i]), math.Max(maxX, x[i])
		minY, maxY = math.Min(minY, y[i]), math.Max(maxY, y[i])
	}
	w, h := maxX-minX, maxY-minY
	// in-circle multiplies a squared length by a product of two lengths: the fourth power
	if !(math.Max(w, h) <= 1e75) {
		return fmt.Errorf("triangulation: the points span %g x %g, too wide for float64 arithmetic", w, h)
	}
	return nil
}

// seedTriangle picks the point nearest the bounding box's centre, the point nearest it, and the
// point that makes the smallest circumcircle with them (the first in input order on ties).
func seedTriangle(x, y []float64) (i0, i1, i2 int32, ok bool) {
	minX, maxX := slices.Min(x), slices.Max(x)
	minY, maxY := slices.Min(y), slices.Max(y)
	cx, cy := (minX+maxX)/2, (minY+maxY)/2
	nearest := func(px, py float64, skip func(int) bool) int32 {
		best, bestD := int32(-1), math.Inf(1)
		for i := range x {
			if d := sqDist(x[i], y[i], px, py); d < bestD && !skip(i) {
				best, bestD = int32(i), d
			}
		}
		return best
	}
	i0 = nearest(cx, cy, func(int) bool { return false })
	if i0 < 0 {
		return 0, 0, 0, false
	}
	i1 = nearest(x[i0], y[i0], func(i int) bool { return x[i] == x[i0] && y[i] == y[i0] })
	if i1 < 0 {
		return 0, 0, 0, false
	}
	i2, minR := int32(-1), math.Inf(1)
	for i := range x {
		r := circumradius2(x[i0], y[i0], x[i1], y[i1], x[i], y[i])
		if r < minR && orient(x[i0], y[i0], x[i1], y[i1], x[i], y[i]) != 0 {
			i2, minR = int32(i), r
		}
	}
	return i0, i1, i2, i2 >= 0
}

func sqDist(ax, ay, bx, by float64) float64 {
	dx, dy := ax-bx, ay-by
	return dx*dx + dy*dy
}

// circumradius2 is the squared circumradius of a triangle (+Inf or NaN when it is flat).
func circumradius2(ax, ay, bx, by, cx, cy float64) float64 {
	dx, dy := bx-ax, by-ay
	ex, ey := cx-ax, cy-ay
	bl, cl := dx*dx+dy*dy, ex*ex+ey*ey
	d := 0.5 / (dx*ey - dy*ex)
	x, y := (ey*bl-dy*cl)*d, (dx*cl-ex*bl)*d
	return x*x + y*y
}

func circumcentre(ax, ay, bx, by, cx, cy float64) (float64, float64) {
	dx, dy := bx-ax, by-ay
	ex, ey := cx-ax, cy-ay
	bl, cl := dx*dx+dy*dy, ex*ex+ey*ey
	d := 0.5 / (dx*ey - dy*ex)
	return ax + (ey*bl-dy*cl)*d, ay + (dx*cl-ex*bl)*d
}

// sweep is the state of the triangulation while points are added: the triangles so far and
// their convex hull as a doubly linked counter-clockwise cycle of vertices, hashed by angle
// around the centre so that a new point finds the hull edges facing it quickly.
type sweep struct {
	x, y      []float64
	cx, cy    float64
	tri, half []int32
	// hullNext/hullPrev link the hull's vertices (a removed vertex links to itself); hullTri[v]
	// is the half-edge of the triangulation along the hull edge v -> hullNext[v].
	hullNext, hullPrev, hullTri []int32
	hullStart                   int32
	hash                        []int32
	stack                       []int32
}

func newSweep(x, y []float64, cx, cy float64, n int) *sweep {
	maxTri := max(2*n-5, 1)
	hashSize := int(math.Ceil(math.Sqrt(float64(n))))
	sw := &sweep{x: x, y: y, cx: cx, cy: cy,
		tri: make([]int32, 0, 3*maxTri), half: make([]int32, 0, 3*maxTri),
		hullNext: make([]int32, n), hullPrev: make([]int32, n), hullTri: make([]int32, n),
		hash: make([]int32, hashSize)}
	for i := range sw.hash {
		sw.hash[i] = -1
	}
	return sw
}

// hashKey buckets a point by its pseudo-angle around the centre.
func (sw *sweep) hashKey(px, py float64) int {
	dx, dy := px-sw.cx, py-sw.cy
	p := dx / (math.Abs(dx) + math.Abs(dy))
	a := (1 + p) / 4
	if dy > 0 {
		a = (3 - p) / 4
	}
	if math.IsNaN(a) {
		a = 0
	}
	return int(math.Floor(a*float64(len(sw.hash)))) % len(sw.hash)
}

func (sw *sweep) seed(i0, i1, i2 int32) {
	sw.hullStart = i0
	sw.hullNext[i0], sw.hullNext[i1], sw.hullNext[i2] = i1, i2, i0
	sw.hullPrev[i1], sw.hullPrev[i2], sw.hullPrev[i0] = i0, i1, i2
	sw.hullTri[i0], sw.hullTri[i1], sw.hullTri[i2] = 0, 1, 2
	for _, i := range []int32{i0, i1, i2} {
		sw.hash[sw.hashKey(sw.x[i], sw.y[i])] = i
	}
	sw.addTriangle(i0, i1, i2, -1, -1, -1)
}

// visible says whether the hull edge a -> b faces the point i (i strictly on its right).
func (sw *sweep) visible(a, b, i int32) bool {
	return orient(sw.x[a], sw.y[a], sw.x[b], sw.y[b], sw.x[i], sw.y[i]) < 0
}

// insert adds point i, which lies outside the current hull unless it repeats a vertex.
func (sw *sweep) insert(i int32) {
	px, py := sw.x[i], sw.y[i]
	start := int32(0)
	key := sw.hashKey(px, py)
	for j := range sw.hash {
		start = sw.hash[(key+j)%len(sw.hash)]
		if start != -1 && start != sw.hullNext[start] {
			break
		}
	}
	start = sw.hullPrev[start]
	e := start
	for !sw.visible(e, sw.hullNext[e], i) {
		e = sw.hullNext[e]
		if e == start {
			return // a repeated vertex: no edge faces it
		}
	}
	t := sw.addTriangle(e, i, sw.hullNext[e], -1, -1, sw.hullTri[e])
	sw.hullTri[i] = sw.legalize(t + 2)
	sw.hullTri[e] = t
	next := sw.hullNext[e]
	for q := sw.hullNext[next]; sw.visible(next, q, i); q = sw.hullNext[next] {
		t = sw.addTriangle(next, i, q, sw.hullTri[i], -1, sw.hullTri[next])
		sw.hullTri[i] = sw.legalize(t + 2)
		sw.hullNext[next] = next
		next = q
	}
	if e == start {
		for q := sw.hullPrev[e]; sw.visible(q, e, i); q = sw.hullPrev[e] {
			t = sw.addTriangle(q, i, e, -1, sw.hullTri[e], sw.hullTri[q])
			sw.legalize(t + 2)
			sw.hullTri[q] = t
			sw.hullNext[e] = e
			e = q
		}
	}
	sw.hullStart = e
	sw.hullPrev[i], sw.hullNext[e] = e, i
	sw.hullPrev[next], sw.hullNext[i] = i, next
	sw.hash[sw.hashKey(px, py)] = i
	sw.hash[sw.hashKey(sw.x[e], sw.y[e])] = e
}

func (sw *sweep) addTriangle(i0, i1, i2, a, b, c int32) int32 {
	t := int32(len(sw.tri))
	sw.tri = append(sw.tri, i0, i1, i2)
	sw.half = append(sw.half, -1, -1, -1)
	sw.link(t, a)
	sw.link(t+1, b)
	sw.link(t+2, c)
	return t
}

func (sw *sweep) link(a, b int32) {
	sw.half[a] = b
	if b != -1 {
		sw.half[b] = a
	}
}

// legalize restores the Delaunay condition around half-edge a, the edge facing a newly added
// point, by flipping edges; it returns the half-edge from the new point along the hull.
//
//	      pl                    pl
//	     /||\                  /  \
//	  al/ || \bl            al/    \a
//	   /  ||  \              /      \
//	  /  a||b  \    flip    /___ar___\
//	p0\   ||   /p1   =>   p0\---bl---/p1
//	   \  ||  /              \      /
//	  ar\ || /br             b\    /br
//	     \||/                  \  /
//	      pr                    pr
func (sw *sweep) legalize(a int32) int32 {
	tri, half := sw.tri, sw.half
	stack := sw.stack[:0]
	var ar int32
	for {
		b := half[a]
		a0 := a - a%3
		ar = a0 + (a+2)%3
		if b == -1 {
			if len(stack) == 0 {
				break
			}
			a, stack = stack[len(stack)-1], stack[:len(stack)-1]
			continue
		}
		b0 := b - b%3
		al := a0 + (a+1)%3
		bl := b0 + (b+2)%3
		p0, pr, pl, p1 := tri[ar], tri[a], tri[al], tri[bl]
		if incircle(sw.x[p0], sw.y[p0], sw.x[pr], sw.y[pr], sw.x[pl], sw.y[pl], sw.x[p1], sw.y[p1]) <= 0 {
			if len(stack) == 0 {
				break
			}
			a, stack = stack[len(stack)-1], stack[:len(stack)-1]
			continue
		}
		tri[a], tri[b] = p1, p0
		hbl := half[bl]
		if hbl == -1 {
			// The flipped edge was on the hull seen from the other side: move the hull's reference.
			e := sw.hullStart
			for {
				if sw.hullTri[e] == bl {
					sw.hullTri[e] = a
					break
				}
				if e = sw.hullPrev[e]; e == sw.hullStart {
					break
				}
			}
		}
		sw.link(a, hbl)
		sw.link(b, half[ar])
		sw.link(ar, bl)
		stack = append(stack, b0+(b+1)%3)
	}
	sw.stack = stack
	return ar
}

// epsilon is half the float64 unit roundoff's spacing, Shewchuk's epsilon (2^-53).
const epsilon = 0x1p-53

// Shewchuk's first-stage error bounds ("Adaptive Precision Floating-Point Arithmetic and Fast
// Robust Geometric Predicates", 1997).
const (
	ccwErrBound = (3 + 16*epsilon) * epsilon
	iccErrBound = (10 + 96*epsilon) * epsilon
)

// orient is the sign of the orientation of (a, b, c): +1 when c lies left of a -> b
// (counter-clockwise), -1 right, 0 on the line; exact.
func orient(ax, ay, bx, by, cx, cy float64) int {
	detLeft := float64((ax - cx) * (by - cy))
	detRight := float64((ay - cy) * (bx - cx))
	det := detLeft - detRight
	bound := ccwErrBound * (math.Abs(detLeft) + math.Abs(detRight))
	switch {
	case det > bound:
		return 1
	case -det > bound:
		return -1
	}
	return orientExact(ax, ay, bx, by, cx, cy)
}

// orientExact evaluates the orientation determinant as an exact sum of 16 products.
func orientExact(ax, ay, bx, by, cx, cy float64) int {
	acx, acxt := twoDiff(ax, cx)
	bcy, bcyt := twoDiff(by, cy)
	acy, acyt := twoDiff(ay, cy)
	bcx, bcxt := twoDiff(bx, cx)
	var e expansion
	e.addProducts([2]float64{acx, acxt}, [2]float64{bcy, bcyt})
	e.addProducts([2]float64{-acy, -acyt}, [2]float64{bcx, bcxt})
	return e.sign()
}

// incircle is positive when d lies inside the circle through the counter-clockwise triangle
// (a, b, c), negative outside; 0 when on it or too close to tell in double-double arithmetic.
func incircle(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	adx, ady := ax-dx, ay-dy
	bdx, bdy := bx-dx, by-dy
	cdx, cdy := cx-dx, cy-dy
	bc := float64(bdx*cdy) - float64(cdx*bdy)
	ca := float64(cdx*ady) - float64(adx*cdy)
	ab := float64(adx*bdy) - float64(bdx*ady)
	alift := float64(adx*adx) + float64(ady*ady)
	blift := float64(bdx*bdx) + float64(bdy*bdy)
	clift := float64(cdx*cdx) + float64(cdy*cdy)
	det := float64(alift*bc) + float64(blift*ca) + float64(clift*ab)
	perm := (math.Abs(bdx*cdy)+math.Abs(cdx*bdy))*alift +
		(math.Abs(cdx*ady)+math.Abs(adx*cdy))*blift +
		(math.Abs(adx*bdy)+math.Abs(bdx*ady))*clift
	switch bound := iccErrBound * perm; {
	case det > bound:
		return 1
	case -det > bound:
		return -1
	}
	return incircleDD(ax, ay, bx, by, cx, cy, dx, dy, perm)
}

// incircleDD evaluates the in-circle determinant in double-double arithmetic from exact
// differences; what stays within its error bound counts as on the circle.
func incircleDD(ax, ay, bx, by, cx, cy, dx, dy, perm float64) int {
	adx, ady := ddDiff(ax, dx), ddDiff(ay, dy)
	bdx, bdy := ddDiff(bx, dx), ddDiff(by, dy)
	cdx, cdy := ddDiff(cx, dx), ddDiff(cy, dy)
	lift := func(u, v dd) dd { return u.mul(u).add(v.mul(v)) }
	cross := func(u1, v1, u2, v2 dd) dd { return u1.mul(v2).sub(u2.mul(v1)) }
	det := lift(adx, ady).mul(cross(bdx, bdy, cdx, cdy)).
		add(lift(bdx, bdy).mul(cross(cdx, cdy, adx, ady))).
		add(lift(cdx, cdy).mul(cross(adx, ady, bdx, bdy)))
	v := det.hi + det.lo
	switch bound := 0x1p-96 * perm; {
	case v > bound:
		return 1
	case -v > bound:
		return -1
	}
	return 0
}

// twoSum returns a+b and its rounding error.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bv := s - a
	av := s - bv
	return s, (a - av) + (b - bv)
}

// twoDiff returns a-b and its rounding error.
func twoDiff(a, b float64) (d, e float64) {
	d = a - b
	bv := a - d
	av := d + bv
	return d, (a - av) + (bv - b)
}

// twoProduct returns a*b and its rounding error.
func twoProduct(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

// expansion is an exact sum of up to 16 non-overlapping float64 components in increasing
// magnitude (Shewchuk's grow-expansion with zero elimination).
type expansion struct {
	c [16]float64
	n int
}

func (e *expansion) add(b float64) {
	q := b
	m := 0
	for _, c := range e.c[:e.n] {
		var h float64
		q, h = twoSum(q, c)
		if h != 0 {
			e.c[m] = h
			m++
		}
	}
	if q != 0 {
		e.c[m] = q
		m++
	}
	e.n = m
}

// addProducts adds the exact product of the two-component numbers u and v.
func (e *expansion) addProducts(u, v [2]float64) {
	for _, a := range u {
		for _, b := range v {
			p, pe := twoProduct(a, b)
			e.add(pe)
			e.add(p)
		}
	}
}

func (e *expansion) sign() int {
	if e.n == 0 {
		return 0
	}
	if e.c[e.n-1] > 0 {
		return 1
	}
	return -1
}

// dd is a double-double number hi+lo.
type dd struct{ hi, lo float64 }

func ddDiff(a, b float64) dd { d, e := twoDiff(a, b); return dd{d, e} }

func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	e += a.lo + b.lo
	hi, lo := twoSum(s, e)
	return dd{hi, lo}
}

func (a dd) sub(b dd) dd { return a.add(dd{-b.hi, -b.lo}) }

func (a dd) mul(b dd) dd {
	p, e := twoProduct(a.hi, b.hi)
	e += a.hi*b.lo + a.lo*b.hi
	hi, lo := twoSum(p, e)
	return dd{hi, lo}
}
