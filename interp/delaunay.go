package interp

import (
	"cmp"
	"context"
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
// hull edges it sees, then Lawson flips), with exact orientation and in-circle tests.
//
// The triangulation is unique, so that it depends on the set of points only, never on their
// order or on which other points were triangulated with them (tiles triangulate the samples
// near each tile and must find the whole job's triangles there): where four or more points lie
// on one circle (a lattice), the in-circle test breaks the tie by a symbolic perturbation that
// depends on the points' coordinates alone (see incirclePerturbed); of coincident points only
// the first in input order becomes a vertex (the samples' order is the job's, canonical or the
// input's, in which a tile keeps its samples). Fewer than three points, or all on one line, give
// no triangles. Coordinates that are not finite, or whose squared distances overflow float64,
// are an error: the sweep's predicates and circumcentres need finite squares.
//
// A cancelled ctx stops it within delaunayCheck points of the sweep or comparisons of the
// sort, or a pass over the points, and is returned: on 1e7 samples it ran for seconds.
func delaunay(ctx context.Context, x, y []float64) (tr *triangulation, err error) {
	n := len(x)
	if n < 3 {
		return &triangulation{}, nil
	}
	if err := checkSpan(x, y); err != nil {
		return nil, err
	}
	// A degenerate input that slips past the checks must not bring the program down; a
	// cancelled sort ends by a panic of its comparison (sortStopped).
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(sortStopped); ok {
				tr, err = nil, s.err
				return
			}
			tr, err = nil, fmt.Errorf("triangulation failed on degenerate coordinates: %v", r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	i0, i1, i2, ok := seedTriangle(x, y)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
	// The sweep needs each point at least as far from the centre as every point before it
	// (then it lies outside their hull, or repeats one of them): distances that rounding cannot
	// tell apart are compared exactly.
	looks := 0
	slices.SortFunc(order, func(a, b byDist) int {
		if looks++; looks%delaunayCheck == 0 {
			if err := ctx.Err(); err != nil {
				panic(sortStopped{err})
			}
		}
		if math.Abs(a.d-b.d) > 4e-15*max(a.d, b.d) {
			return cmp.Compare(a.d, b.d)
		}
		if c := cmpDist(x[a.id], y[a.id], x[b.id], y[b.id], cx, cy); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	// The sweep runs on the points relabelled in its order, k for order[k], so that the points
	// it meets together (those near the hull as it grows) lie together in memory; the
	// predicates see the same coordinates, so the triangles are the same, labelled back after.
	sx, sy, ids := make([]float64, n), make([]float64, n), make([]int32, n)
	var s0, s1, s2 int32
	for k, o := range order {
		sx[k], sy[k], ids[k] = x[o.id], y[o.id], o.id
		switch o.id {
		case i0:
			s0 = int32(k)
		case i1:
			s1 = int32(k)
		case i2:
			s2 = int32(k)
		}
	}
	order = nil // ids has what the rest needs of it
	sw := newSweep(sx, sy, cx, cy, n)
	sw.seed(s0, s1, s2)
	for k := range int32(n) {
		if k%delaunayCheck == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if k > 0 && sx[k] == sx[k-1] && sy[k] == sy[k-1] || k == s0 || k == s1 || k == s2 {
			continue
		}
		// A point as far from the centre as every point before it lies outside their hull, or
		// repeats one of them, and then sees no hull edge and is left out. (Only the seed's
		// vertices come first out of that order, at the rounded centre's distances: a point
		// within rounding of one of them could be left out too.)
		sw.insert(k)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tri, half := spatialOrder(sw.tri, sw.half, sx, sy)
	for j, k := range tri {
		tri[j] = ids[k]
	}
	return &triangulation{tri: tri, half: half}, nil
}

// delaunayCheck is how many points the sweep inserts, or comparisons its sort makes, between
// looks at the context: a few milliseconds of work.
const delaunayCheck = 1 << 14

// sortStopped ends the sort of a cancelled triangulation, from its comparison.
type sortStopped struct{ err error }

// spatialOrder returns the triangles (tri, half) of the points (x, y) renumbered in the
// row-major order of the cells of their centroids, about 8 triangles a cell, so that the
// triangles a walk through the triangulation meets, and those of the next node of a row, lie
// together in memory. The triangles stay the same. It copies them: a permutation in place
// follows its cycles from one random place to the next, a fifth of linear's time on a million
// samples, where the copy's writes go at random but independently of each other.
func spatialOrder(tri, half []int32, x, y []float64) (_, _ []int32) {
	nt := len(tri) / 3
	if nt < 2 {
		return tri, half
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range x {
		minX, maxX = min(minX, x[i]), max(maxX, x[i])
		minY, maxY = min(minY, y[i]), max(maxY, y[i])
	}
	cell := math.Sqrt((maxX - minX) * (maxY - minY) * 8 / float64(nt))
	if !(cell > 0) {
		return tri, half
	}
	cols := max(1, min(int((maxX-minX)/cell)+1, 1<<12))
	rows := max(1, min(int((maxY-minY)/cell)+1, 1<<12))
	to := make([]int32, nt) // each triangle's cell, then its new number
	count := make([]int32, cols*rows+1)
	for t := range nt {
		a, b, c := tri[3*t], tri[3*t+1], tri[3*t+2]
		col := min(max(int(((x[a]+x[b]+x[c])/3-minX)/cell), 0), cols-1)
		row := min(max(int(((y[a]+y[b]+y[c])/3-minY)/cell), 0), rows-1)
		to[t] = int32(row*cols + col)
		count[to[t]+1]++
	}
	for k := 1; k < len(count); k++ {
		count[k] += count[k-1]
	}
	for t, k := range to {
		to[t] = count[k]
		count[k]++
	}
	tri2, half2 := make([]int32, len(tri)), make([]int32, len(half))
	for t, u := range to {
		for k := range int32(3) {
			e := 3*int32(t) + k
			tri2[3*u+k] = tri[e]
			half2[3*u+k] = -1
			if h := half[e]; h >= 0 {
				half2[3*u+k] = 3*to[h/3] + h%3
			}
		}
	}
	return tri2, half2
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
		if incirclePerturbed(sw.x[p0], sw.y[p0], sw.x[pr], sw.y[pr], sw.x[pl], sw.y[pl], sw.x[p1], sw.y[p1]) < 0 {
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
// (a, b, c), negative outside, 0 on it; exact (as orient, unless products of differences of
// coordinates underflow: differences below about 1e-75).
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
	return incircleExact(ax, ay, bx, by, cx, cy, dx, dy)
}

// incircleExact evaluates the in-circle determinant exactly, in expansions, from the exact
// differences of the coordinates.
func incircleExact(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	var r exactRoom
	adx, ady := r.diff(ax, dx), r.diff(ay, dy)
	bdx, bdy := r.diff(bx, dx), r.diff(by, dy)
	cdx, cdy := r.diff(cx, dx), r.diff(cy, dy)
	lift := func(u, v []float64) []float64 { return r.sum(r.mul(u, u), r.mul(v, v)) }
	cross := func(u1, v1, u2, v2 []float64) []float64 { return r.sum(r.mul(u1, v2), negExpansion(r.mul(u2, v1))) }
	det := r.sum(r.sum(r.mul(lift(adx, ady), cross(bdx, bdy, cdx, cdy)), r.mul(lift(bdx, bdy), cross(cdx, cdy, adx, ady))),
		r.mul(lift(cdx, cdy), cross(adx, ady, bdx, bdy)))
	return signExpansion(det)
}

// incirclePerturbed is incircle with its ties broken, never 0 for a counter-clockwise triangle
// (a, b, c): the points are taken as lifted to the paraboloid z = x² + y² (on which the
// Delaunay triangles are the lower hull's faces) and then raised by tiny amounts, each point's
// infinitely smaller than that of any point before it in (y, x) order. The determinant is
// linear in each height, so where it is 0 its sign is that of its derivative in the height of
// the first point, in that order, whose derivative is not 0: d's is -orient(a, b, c), never 0.
// The perturbed points are in general position, and their triangulation is unique; as it
// depends on the coordinates alone, any subset of the points triangulates the same way
// wherever the perturbation decides.
func incirclePerturbed(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	if s := incircle(ax, ay, bx, by, cx, cy, dx, dy); s != 0 {
		return s
	}
	type lifted struct{ x, y float64 }
	pts := [4]lifted{{ax, ay}, {bx, by}, {cx, cy}, {dx, dy}}
	// derivative of the determinant in the height of each point
	deriv := [4]func() int{
		func() int { return orient(bx, by, cx, cy, dx, dy) },
		func() int { return orient(cx, cy, ax, ay, dx, dy) },
		func() int { return orient(ax, ay, bx, by, dx, dy) },
		func() int { return -orient(ax, ay, bx, by, cx, cy) },
	}
	idx := [4]int{0, 1, 2, 3}
	slices.SortFunc(idx[:], func(i, j int) int { return cmpPoint(pts[i].x, pts[i].y, pts[j].x, pts[j].y) })
	for _, i := range idx {
		if s := deriv[i](); s != 0 {
			return s
		}
	}
	return 0 // (a, b, c) on one line: no triangle
}

// cmpPoint orders points by y, then x: the order of the perturbation of incirclePerturbed.
func cmpPoint(ax, ay, bx, by float64) int {
	return cmp.Or(cmp.Compare(ay, by), cmp.Compare(ax, bx))
}

// cmpDist compares the squared distances of a and of b from c, exactly.
func cmpDist(ax, ay, bx, by, cx, cy float64) int {
	adx, adxe := twoDiff(ax, cx)
	ady, adye := twoDiff(ay, cy)
	bdx, bdxe := twoDiff(bx, cx)
	bdy, bdye := twoDiff(by, cy)
	if adxe == 0 && adye == 0 && bdxe == 0 && bdye == 0 {
		// The differences are exact (the common case of lattices): eight exact products' terms.
		var e expansion
		for _, d := range [4][2]float64{{adx, adx}, {ady, ady}, {-bdx, bdx}, {-bdy, bdy}} {
			p, pe := twoProduct(d[0], d[1])
			e.add(pe)
			e.add(p)
		}
		return e.sign()
	}
	var r exactRoom
	u, v := r.diff(ax, cx), r.diff(ay, cy)
	da := r.sum(r.mul(u, u), r.mul(v, v))
	u, v = r.diff(bx, cx), r.diff(by, cy)
	db := r.sum(r.mul(u, u), r.mul(v, v))
	return signExpansion(r.sum(da, negExpansion(db)))
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

// The expansions of any length below are slices of non-overlapping components in increasing
// magnitude, without zeros (Shewchuk's arithmetic); an empty slice is 0. They serve the exact
// tests, which the filters leave to them rarely, but on lattices often: where the differences
// of coordinates are exact, as there, they stay short.

// exactRoom is where one exact evaluation cuts its expansions from: a small array, so that the
// short expansions of lattices cost no allocation, then the heap.
type exactRoom struct {
	buf [512]float64
	n   int
}

// take returns an empty expansion with room for k components.
func (r *exactRoom) take(k int) []float64 {
	if r.n+k > len(r.buf) {
		return make([]float64, 0, k)
	}
	s := r.buf[r.n : r.n : r.n+k]
	r.n += k
	return s
}

// diff is a-b.
func (r *exactRoom) diff(a, b float64) []float64 {
	d, e := twoDiff(a, b)
	h := r.take(2)
	if e != 0 {
		h = append(h, e)
	}
	if d != 0 {
		h = append(h, d)
	}
	return h
}

// sum is e+f.
func (r *exactRoom) sum(e, f []float64) []float64 {
	return sumInto(e, f, r.take(len(e)+len(f)))
}

// mul is e*f: the sum of e scaled by each component of f, summed alternately into two
// buffers.
func (r *exactRoom) mul(e, f []float64) []float64 {
	size := 2 * len(e) * len(f)
	acc, spare := r.take(size), r.take(size)
	scaled := r.take(2 * len(e))
	for _, b := range f {
		next := sumInto(acc, scaleInto(e, b, scaled[:0]), spare[:0])
		acc, spare = next, acc
	}
	return acc
}

// growExpansion adds b to e in place (Shewchuk's grow_expansion_zeroelim); e has room for one
// more component.
func growExpansion(e []float64, b float64) []float64 {
	q, m := b, 0
	for _, c := range e {
		var h float64
		q, h = twoSum(q, c)
		if h != 0 {
			e[m] = h
			m++
		}
	}
	e = e[:m]
	if q != 0 {
		e = append(e, q)
	}
	return e
}

// sumInto is e+f (Shewchuk's expansion_sum_zeroelim) into h, which has room for both and
// shares no memory with them.
func sumInto(e, f, h []float64) []float64 {
	h = append(h[:0], e...)
	for _, b := range f {
		h = growExpansion(h, b)
	}
	return h
}

// scaleInto is e*b (Shewchuk's scale_expansion_zeroelim) into h, which has room for 2*len(e).
func scaleInto(e []float64, b float64, h []float64) []float64 {
	h = h[:0]
	if len(e) == 0 || b == 0 {
		return h
	}
	q, hh := twoProduct(e[0], b)
	if hh != 0 {
		h = append(h, hh)
	}
	for _, c := range e[1:] {
		p1, p0 := twoProduct(c, b)
		sum, h0 := twoSum(q, p0)
		if h0 != 0 {
			h = append(h, h0)
		}
		var h1 float64
		q, h1 = fastTwoSum(p1, sum)
		if h1 != 0 {
			h = append(h, h1)
		}
	}
	if q != 0 {
		h = append(h, q)
	}
	return h
}

// negExpansion negates e in place.
func negExpansion(e []float64) []float64 {
	for i := range e {
		e[i] = -e[i]
	}
	return e
}

// signExpansion is the sign of e: that of its largest component.
func signExpansion(e []float64) int {
	if len(e) == 0 {
		return 0
	}
	if e[len(e)-1] > 0 {
		return 1
	}
	return -1
}

// fastTwoSum returns a+b and its rounding error, for |a| >= |b| (or a = 0).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	return s, b - (s - a)
}
