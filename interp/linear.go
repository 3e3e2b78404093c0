package interp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// Linear is gdal_grid's linear: barycentric interpolation in the triangle of the samples'
// Delaunay triangulation that holds the node. As in gdal 3.6, a node is in a triangle when its
// barycentric coordinates are all >= -1e-10, and a triangle whose doubled area is below 1e-5
// (in squared CRS units) holds no node. A node in no triangle gets, by Radius: < 0 (default
// -1) the nearest sample found by gdal's growing square search (see gdalNearest.growing); 0
// nodata; > 0 the nearest sample in the square of half-side Radius, nodata when none.
//
// The triangulation is aidw's own (see delaunay), not qhull's: where four or more samples lie
// on one circle (samples on a lattice) the Delaunay triangulation is not unique, and nodes
// inside such a circle may differ from gdal's by the choice of diagonal. aidw's choice, and
// every other one it makes, depends on the samples' coordinates only (see triLocator.value), so
// that tiles compute each node from the samples around it as the whole job does.
type Linear struct {
	Radius      float64
	NodataValue float64
}

var linearDeclaration = Declaration{
	Name: "linear",
	Help: "barycentric interpolation in the Delaunay triangulation of the samples",
	GDAL: true,
	Options: []Option{
		{Name: "radius", Type: TypeFloat, Default: "-1", Field: "Radius",
			Help: "outside the triangulation: < 0 the nearest sample, 0 nodata, > 0 the nearest sample within radius"},
		nodataOption(),
	},
	parse: parseLinear,
}

// linearFirstGuess is the number of samples whose distance at the job's mean density makes
// linear's first halo: the triangles around a node reach a few samples' spacings.
const linearFirstGuess = 16

// Reach implements Reacher: the Delaunay triangles around a node. The triangulation is unique
// (see delaunay), so that a tile finds the job's triangles among its samples, wherever their
// circumcircles lie inside its region.
func (a *Linear) Reach(n int) Reach {
	return Reach{Kind: ReachNearest, K: min(linearFirstGuess, n), Triangles: true}
}

// Name implements Algorithm.
func (a *Linear) Name() string { return "linear" }

// NoData implements Algorithm.
func (a *Linear) NoData() float64 { return a.NodataValue }

func parseLinear(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	a := &Linear{Radius: o.float("radius"), NodataValue: o.nodata()}
	if kv.err != nil {
		return nil, kv.err
	}
	o.warnUnknown()
	return a, nil
}

// The barycentric tolerance and the smallest doubled triangle area of gdal's alg/delaunay.c.
const (
	baryEps         = 1e-10
	degenerateArea2 = 1e-5
)

func (a *Linear) bind(p *Problem, ix *grid.Index) (bound, error) {
	return a.bindContext(context.Background(), p, ix)
}

// bindContext implements contextBinder: the triangulation, seconds on millions of samples,
// stops when ctx is cancelled.
func (a *Linear) bindContext(ctx context.Context, p *Problem, ix *grid.Index) (bound, error) {
	s := p.Samples.Plain() // the triangulation takes every sample's coordinates
	tri, err := delaunay(ctx, s.X, s.Y)
	if err != nil {
		return nil, err
	}
	l := &linearBound{a: a, s: s, tri: tri, loc: newTriLocator(s, tri),
		nn: &gdalNearest{s: s, ix: ix, order: p.newGDALOrder(), nodata: a.NodataValue}}
	// The samples' box and number are the whole job's when the samples are a tile's: gdal's
	// first square and the box rule of node are the job's.
	minX, minY, maxX, maxY := s.Bounds()
	if p.Job != nil {
		minX, minY, maxX, maxY = p.Job.Bounds[0], p.Job.Bounds[1], p.Job.Bounds[2], p.Job.Bounds[3]
	}
	l.r0 = math.Sqrt((maxX - minX) * (maxY - minY) / float64(p.sampleCount()))
	l.box = [4]float64{minX - s.OriginX, minY - s.OriginY, maxX - s.OriginX, maxY - s.OriginY}
	l.near = 1e-9 * ((maxX - minX) + (maxY - minY))
	if p.Job != nil && p.Job.Partial {
		r := p.Job.Rel
		if x0, y0, x1, y1 := s.RelBounds(); x0 < r[0] || y0 < r[1] || x1 > r[2] || y1 > r[3] {
			return nil, fmt.Errorf("linear: a tile's samples reach beyond the job's box %v", r)
		}
		l.cert = &certBox{box: r}
	}
	return l, nil
}

// linearBound is Linear bound to a problem.
type linearBound struct {
	a   *Linear
	s   *sample.Samples // in the plain form
	tri *triangulation
	loc *triLocator
	nn  *gdalNearest
	r0  float64 // gdal's first square for the growing search: sqrt(area/n) of the samples' box
	// box is the samples' box relative to the origin (the job's), and near a distance within
	// which of it a node may still be in a triangle by gdal's tolerance (see node).
	box  [4]float64
	near float64
	// cert, for a tile's samples, says to report each node's reach (see triLocator.value).
	cert *certBox
}

// node is the value at (x,y) by triLocator.value. A node farther than near from the samples'
// box is in no triangle: gdal's tolerance reaches no farther than 2e-10 of the largest
// triangle's diameter (the rounding of a triangle too flat to be used aside), and saying so
// spares a tile's node beyond the samples from proving that no sample anywhere changes it.
func (l *linearBound) node(sc *scratch, x, y float64) float64 {
	if x < l.box[0]-l.near || x > l.box[2]+l.near || y < l.box[1]-l.near || y > l.box[3]+l.near {
		return l.outside(sc, -1, x, y, l.r0)
	}
	v, ok, reach := l.loc.value(x, y, l.cert)
	if l.cert != nil {
		if math.IsNaN(reach) {
			reach = math.Inf(1)
		}
		sc.reached(reach * reach)
	}
	if ok {
		return v
	}
	return l.outside(sc, -1, x, y, l.r0)
}

// outside is the value of a node in no triangle, without sample skip (-1: none).
func (l *linearBound) outside(sc *scratch, skip int32, x, y, r0 float64) float64 {
	switch {
	case l.a.Radius == 0:
		return l.a.NodataValue
	case l.a.Radius < 0:
		return l.nn.growing(sc, skip, x, y, r0)
	}
	return l.nn.inSquare(sc, skip, x, y, l.a.Radius)
}

// holdOut implements holdOut: the hole that the held-out sample leaves is triangulated anew
// (see holes), and the growing search starts from the box of the others.
func (l *linearBound) holdOut(context.Context) (nodeWithout, error) {
	h := newHoles(l.s, l.tri, l.loc)
	box := newBoxWithout(l.s)
	n := float64(l.s.Len() - 1)
	return func(sc *scratch, j int32, x, y float64) float64 {
		if v, ok := h.interpolate(j, x, y); ok {
			return v
		}
		return l.outside(sc, j, x, y, math.Sqrt(box.area(j)/n))
	}, nil
}

// holes interpolates in the triangulation of the samples without one of them. Removing a
// vertex from a Delaunay triangulation leaves a hole bounded by its neighbours, which the
// Delaunay triangulation of those neighbours fills (it is the triangulation of the rest
// there); the held-out sample's own place lies in that hole, or outside the new hull when it
// was a hull vertex. A sample that is no vertex (a repeat of an earlier one) changes nothing;
// a vertex with repeats hands its place to the first of them.
type holes struct {
	s   *sample.Samples
	loc *triLocator // of every sample
	// the neighbours of vertex v (each twice where two triangles share it) are
	// link[start[v]:start[v+1]]
	start, link []int32
	// repeat[v] is the next sample in input order at exactly v's place, or -1.
	repeat []int32
}

func newHoles(s *sample.Samples, t *triangulation, loc *triLocator) *holes {
	n := s.Len()
	h := &holes{s: s, loc: loc, start: make([]int32, n+1), link: make([]int32, 2*len(t.tri)),
		repeat: make([]int32, n)}
	for _, v := range t.tri {
		h.start[v+1] += 2
	}
	for v := range n {
		h.start[v+1] += h.start[v]
	}
	fill := slices.Clone(h.start[:n])
	for e, v := range t.tri {
		for _, o := range [2]int32{t.tri[nextHalfedge(int32(e))], t.tri[prevHalfedge(int32(e))]} {
			h.link[fill[v]] = o
			fill[v]++
		}
	}
	byPlace := make([]int32, n)
	for i := range byPlace {
		byPlace[i] = int32(i)
		h.repeat[i] = -1
	}
	slices.SortFunc(byPlace, func(a, b int32) int {
		return cmp.Or(cmp.Compare(s.X[a], s.X[b]), cmp.Compare(s.Y[a], s.Y[b]), cmp.Compare(a, b))
	})
	for k := 1; k < n; k++ {
		a, b := byPlace[k-1], byPlace[k]
		if s.X[a] == s.X[b] && s.Y[a] == s.Y[b] {
			h.repeat[a] = b
		}
	}
	return h
}

// interpolate is triLocator.interpolate at (x,y) in the triangulation of every sample but id
// (-1 for none).
func (h *holes) interpolate(id int32, x, y float64) (float64, bool) {
	if id < 0 || h.start[id] == h.start[id+1] {
		return h.loc.interpolate(x, y)
	}
	around := &sample.Samples{OriginX: h.s.OriginX, OriginY: h.s.OriginY}
	add := func(v int32) {
		for k, ax := range around.X {
			if ax == h.s.X[v] && around.Y[k] == h.s.Y[v] {
				return
			}
		}
		around.X, around.Y, around.Z = append(around.X, h.s.X[v]), append(around.Y, h.s.Y[v]), append(around.Z, h.s.Z[v])
	}
	if r := h.repeat[id]; r >= 0 {
		add(r)
	}
	for _, v := range h.link[h.start[id]:h.start[id+1]] {
		add(v)
	}
	tri, err := delaunay(context.Background(), around.X, around.Y) // a vertex's few neighbours
	if err != nil {                                                // the neighbours of a triangulated vertex: cannot happen; no triangle then
		tri = &triangulation{}
	}
	return newTriLocator(around, tri).interpolate(x, y)
}

// triLocator finds the triangle holding a point by walking from a seed triangle: the one found
// for the centre of the point's cell in a bucket grid over the samples, so that walks are a few
// steps long.
type triLocator struct {
	s          *sample.Samples
	t          *triangulation
	minX, minY float64
	cell       float64
	cols, rows int
	seed       []int32
}

func newTriLocator(s *sample.Samples, t *triangulation) *triLocator {
	l := &triLocator{s: s, t: t}
	nt := t.triangles()
	if nt == 0 {
		return l
	}
	// The samples' box: the vertices' but for samples left out within rounding of a vertex
	// (repeats, see delaunay), which move only where the seeds' cells lie.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, x := range s.X {
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, s.Y[i]), max(maxY, s.Y[i])
	}
	// About two triangles per cell.
	l.cell = math.Sqrt((maxX - minX) * (maxY - minY) * 2 / float64(nt))
	l.minX, l.minY = minX, minY
	l.cols = max(1, min(int((maxX-minX)/l.cell)+1, 1<<14))
	l.rows = max(1, min(int((maxY-minY)/l.cell)+1, 1<<14))
	l.seed = seeds(s, t, l)
	return l
}

// seeds gives each of l's cells a triangle to start walks from: the first whose centroid is
// in the cell, else the last one given before it in boustrophedon order (the first given for
// those before any). Where a walk starts does not change what it finds, only how far it goes;
// one pass over the triangles, whose samples' places it reads independently of each other,
// takes a fraction of the time of walking from cell to cell.
func seeds(s *sample.Samples, t *triangulation, l *triLocator) []int32 {
	seed := make([]int32, l.cols*l.rows)
	for i := range seed {
		seed[i] = -1
	}
	inv := 1 / l.cell
	for tr := range int32(t.triangles()) {
		a, b, c := t.tri[3*tr], t.tri[3*tr+1], t.tri[3*tr+2]
		x := (s.X[a] + s.X[b] + s.X[c]) / 3
		y := (s.Y[a] + s.Y[b] + s.Y[c]) / 3
		col := min(max(int((x-l.minX)*inv), 0), l.cols-1)
		row := min(max(int((y-l.minY)*inv), 0), l.rows-1)
		if k := row*l.cols + col; seed[k] < 0 {
			seed[k] = tr
		}
	}
	last, first := int32(-1), int32(-1)
	for r := range l.rows {
		for c := range l.cols {
			col := c
			if r%2 == 1 {
				col = l.cols - 1 - c
			}
			k := r*l.cols + col
			switch {
			case seed[k] >= 0:
				last = seed[k]
				if first < 0 {
					first = last
				}
			case last >= 0:
				seed[k] = last
			}
		}
	}
	for k, tr := range seed {
		if tr < 0 {
			seed[k] = first
		}
	}
	return seed
}

// interpolate is value without a reach.
func (l *triLocator) interpolate(x, y float64) (float64, bool) {
	v, ok, _ := l.value(x, y, nil)
	return v, ok
}

// value returns the linear interpolation at (x,y) and true, or false when no triangle takes
// the point as gdal decides it, by a rule that depends on the samples' coordinates only:
//   - a point in the triangulation (edges and vertices included) is tried in the triangles that
//     hold it, in the order of their vertices (see cmpTri): one, two on an edge, all those
//     around a vertex; then, should all be too flat for gdal, in their neighbours, which may
//     take it within gdal's tolerance;
//   - a point outside is tried in the hull's triangles whose outer edge it lies beyond or on
//     the line of, in the same order: they may take it within gdal's tolerance;
//   - a triangle's coordinates are computed from its vertices in one order, the least first
//     (see barycentric).
//
// With c non-nil it returns the point's reach too (see Block.Reach): for a triangulation of
// the samples strictly inside a region that holds the disc of that radius around the point, a
// proof that the whole job's samples give the same value. The job's samples all lie in its box
// (c), and
//   - every triangle tried has the part of its circumcircle inside the box inside the region,
//     so that no sample the region lacks is in its circle: it is one of the whole job's
//     triangles (the triangulation is unique, see delaunay);
//   - those that hold the point cover it all around, so that the job has no other that holds
//     it; or they meet the hull, where the point lies on it (or their neighbours were tried),
//     only at edges beyond which the box has no place outside the region: edges of the job's
//     hull too;
//   - for a point outside, the hull edges it faces are the job's by the same rule, and are all
//     that it faces: the box has no place outside the region where a sample would add one
//     (see wedges).
//
// The outside rule's searches add their own reach.
func (l *triLocator) value(x, y float64, c *certBox) (v float64, ok bool, reach float64) {
	if l.t.triangles() == 0 {
		if c != nil {
			reach = c.farthest(x, y) // no triangle here: only every sample can tell
		}
		return 0, false, reach
	}
	var room [2][32]int32
	tris, hull := room[0][:0], room[1][:0]
	col := min(max(int((x-l.minX)/l.cell), 0), l.cols-1)
	row := min(max(int((y-l.minY)/l.cell), 0), l.rows-1)
	t, e, inside := l.walk(l.seed[row*l.cols+col], x, y)
	if !inside {
		var before, after int32
		tris, hull, before, after = l.beyond(e, x, y, tris, hull)
		v, ok = l.first(tris, x, y)
		if c != nil {
			reach = max(c.circles(l, tris, x, y), c.edges(l, hull, x, y), c.wedges(l, before, after, x, y))
		}
		return v, ok, reach
	}
	tris = l.holding(t, x, y, tris)
	held := len(tris)
	if v, ok = l.first(tris, x, y); !ok {
		tris = l.neighbours(tris)
		v, ok = l.first(tris[held:], x, y)
	}
	if c != nil {
		// Triangles that hold the point on a hull edge (or, when their neighbours were tried,
		// any hull edge of theirs) have the whole job's neighbours there only if no sample lies
		// beyond that edge.
		hull = l.hullEdges(tris[:held], x, y, len(tris) == held, hull)
		reach = max(c.circles(l, tris, x, y), c.edges(l, hull, x, y))
	}
	return v, ok, reach
}

// first is the interpolation in the first of tris that takes (x,y).
func (l *triLocator) first(tris []int32, x, y float64) (float64, bool) {
	for _, t := range tris {
		if v, ok := l.barycentric(t, x, y); ok {
			return v, true
		}
	}
	return 0, false
}

// holding appends to tris the triangles that hold (x,y), given t, which holds it, in the
// order of cmpTri: t alone when the point is inside it; t and its neighbour when it is on an
// edge; every triangle around the vertex it is at.
func (l *triLocator) holding(t int32, x, y float64, tris []int32) []int32 {
	tri, s := l.t.tri, l.s
	var on [3]int32
	n := 0
	for k := int32(0); k < 3; k++ {
		e := 3*t + k
		a, b := tri[e], tri[nextHalfedge(e)]
		if orient(s.X[a], s.Y[a], s.X[b], s.Y[b], x, y) == 0 {
			on[n] = e
			n++
		}
	}
	start := len(tris)
	switch n {
	case 1:
		tris = append(tris, t)
		if o := l.t.half[on[0]]; o >= 0 {
			tris = append(tris, o/3)
		}
	case 2:
		// at the vertex the two edges share: the end of the one, the start of the other
		v := tri[on[0]]
		if nextHalfedge(on[0]) == on[1] {
			v = tri[on[1]]
		}
		tris = l.fan(t, v, tris)
	default:
		tris = append(tris, t)
	}
	l.sortTris(tris[start:])
	return tris
}

// fan appends to tris the triangles around vertex v of triangle t, t first.
func (l *triLocator) fan(t, v int32, tris []int32) []int32 {
	tri, half := l.t.tri, l.t.half
	g := 3 * t
	for tri[g] != v {
		g++
	}
	tris = append(tris, t)
	limit := len(tri) // a bound on the turns that a valid triangulation never reaches
	// one way round v, across the edges into v, until the hull or t again
	o := half[prevHalfedge(g)]
	for ; o >= 0 && o/3 != t && limit > 0; o, limit = half[prevHalfedge(o)], limit-1 {
		tris = append(tris, o/3)
	}
	if o < 0 {
		// v is on the hull: the other way, across the edges out of v
		for o = half[g]; o >= 0 && limit > 0; o, limit = half[nextHalfedge(o)], limit-1 {
			tris = append(tris, o/3)
		}
	}
	return tris
}

// neighbours appends to tris the neighbours of its triangles that are not among them, in the
// order of cmpTri.
func (l *triLocator) neighbours(tris []int32) []int32 {
	held := len(tris)
	for _, t := range tris[:held] {
		for k := int32(0); k < 3; k++ {
			if o := l.t.half[3*t+k]; o >= 0 && !slices.Contains(tris, o/3) {
				tris = append(tris, o/3)
			}
		}
	}
	l.sortTris(tris[held:])
	return tris
}

// hullEdges appends to hull the hull edges of triangles tris: those (x,y) lies on, or all.
func (l *triLocator) hullEdges(tris []int32, x, y float64, on bool, hull []int32) []int32 {
	tri, s := l.t.tri, l.s
	for _, t := range tris {
		for k := int32(0); k < 3; k++ {
			e := 3*t + k
			if l.t.half[e] >= 0 {
				continue
			}
			a, b := tri[e], tri[nextHalfedge(e)]
			if !on || orient(s.X[a], s.Y[a], s.X[b], s.Y[b], x, y) == 0 {
				hull = append(hull, e)
			}
		}
	}
	return hull
}

// beyond appends to tris the hull triangles whose outer edge (x,y), outside the hull, lies
// beyond or on the line of (a run of the hull, which holds e), in the order of cmpTri, and to
// hull those edges; it returns the hull edges just before and after the run.
func (l *triLocator) beyond(e int32, x, y float64, tris, hull []int32) (_, _ []int32, before, after int32) {
	tri, s := l.t.tri, l.s
	facing := func(e int32) bool {
		a, b := tri[e], tri[nextHalfedge(e)]
		return orient(s.X[a], s.Y[a], s.X[b], s.Y[b], x, y) <= 0
	}
	hull = append(hull, e)
	limit := len(tri) // a bound on the hull's edges
	after = l.nextHull(e)
	for ; after != e && facing(after) && limit > 0; after, limit = l.nextHull(after), limit-1 {
		hull = append(hull, after)
	}
	before = l.prevHull(e)
	for ; before != after && facing(before) && limit > 0; before, limit = l.prevHull(before), limit-1 {
		hull = append(hull, before)
	}
	for _, h := range hull {
		if !slices.Contains(tris, h/3) {
			tris = append(tris, h/3)
		}
	}
	l.sortTris(tris)
	return tris, hull, before, after
}

// nextHull is the hull edge that follows hull edge e (counter-clockwise): turning round e's
// end across the edges out of it until one has no neighbour.
// (Round a vertex inside, which a valid triangulation never gives it, it stops at e.)
func (l *triLocator) nextHull(e int32) int32 {
	g := nextHalfedge(e)
	for limit := len(l.t.tri); l.t.half[g] >= 0; limit-- {
		if limit == 0 {
			return e
		}
		g = nextHalfedge(l.t.half[g])
	}
	return g
}

// prevHull is the hull edge before hull edge e.
func (l *triLocator) prevHull(e int32) int32 {
	g := prevHalfedge(e)
	for limit := len(l.t.tri); l.t.half[g] >= 0; limit-- {
		if limit == 0 {
			return e
		}
		g = prevHalfedge(l.t.half[g])
	}
	return g
}

// vertices are triangle t's vertices, rotated (the orientation kept) to start at the least in
// (y, x) order: the canonical order in which it is used.
func (l *triLocator) vertices(t int32) [3]int32 {
	s := l.s
	v := [3]int32{l.t.tri[3*t], l.t.tri[3*t+1], l.t.tri[3*t+2]}
	least := func(a, b int32) bool { return cmpPoint(s.X[a], s.Y[a], s.X[b], s.Y[b]) < 0 }
	switch {
	case least(v[1], v[0]) && least(v[1], v[2]):
		return [3]int32{v[1], v[2], v[0]}
	case least(v[2], v[0]) && least(v[2], v[1]):
		return [3]int32{v[2], v[0], v[1]}
	}
	return v
}

// cmpTri orders triangles by their vertices in canonical order (see vertices), compared in
// (y, x) order: an order of the samples' coordinates alone.
func (l *triLocator) cmpTri(t, u int32) int {
	s := l.s
	a, b := l.vertices(t), l.vertices(u)
	for k := range a {
		if c := cmpPoint(s.X[a[k]], s.Y[a[k]], s.X[b[k]], s.Y[b[k]]); c != 0 {
			return c
		}
	}
	return 0
}

func (l *triLocator) sortTris(tris []int32) {
	if len(tris) > 1 {
		slices.SortFunc(tris, l.cmpTri)
	}
}

// barycentric is gdal's test and interpolation in triangle t: coefficients as
// GDALTriangulationComputeBarycentricCoefficients computes them, the point accepted when every
// coordinate is within [-1e-10, 1+1e-10]. The vertices are taken in canonical order (see
// vertices), on which the rounding depends.
func (l *triLocator) barycentric(t int32, x, y float64) (float64, bool) {
	s := l.s
	v := l.vertices(t)
	i1, i2, i3 := v[0], v[1], v[2]
	x1, y1, x2, y2, x3, y3 := s.X[i1], s.Y[i1], s.X[i2], s.Y[i2], s.X[i3], s.Y[i3]
	den := float64((y2-y3)*(x1-x3)) + float64((x3-x2)*(y1-y3))
	if math.Abs(den) < degenerateArea2 {
		return 0, false
	}
	l1 := float64((y2-y3)/den*(x-x3)) + float64((x3-x2)/den*(y-y3))
	l2 := float64((y3-y1)/den*(x-x3)) + float64((x1-x3)/den*(y-y3))
	l3 := 1 - l1 - l2
	for _, v := range [3]float64{l1, l2, l3} {
		if v < -baryEps || v > 1+baryEps {
			return 0, false
		}
	}
	return l1*s.Z[i1] + l2*s.Z[i2] + l3*s.Z[i3], true
}

// walk moves from triangle t towards (x,y) across edges the point lies beyond, trying the
// edges in a rotating order (which cannot cycle). It returns a triangle that holds the point
// (edges included), -1 and true, or a hull triangle, the outer edge the point lies beyond and
// false.
func (l *triLocator) walk(t int32, x, y float64) (int32, int32, bool) {
	tri, half, s := l.t.tri, l.t.half, l.s
	limit := 64 + 8*int(math.Sqrt(float64(l.t.triangles())))
	from := int32(-1)
	for step := 0; step < limit; step++ {
		moved := false
		for k := range 3 {
			e := 3*t + int32((step+k)%3)
			o := half[e]
			if o == from && o >= 0 {
				continue
			}
			a, b := tri[e], tri[nextHalfedge(e)]
			if orient(s.X[a], s.Y[a], s.X[b], s.Y[b], x, y) < 0 {
				if o < 0 {
					return t, e, false
				}
				from, t, moved = e, o/3, true
				break
			}
		}
		if !moved {
			return t, -1, true
		}
	}
	return l.scan(x, y)
}

// scan finds the triangle holding (x,y) by testing every triangle: the walk's fallback, which
// exact orientations should never need.
func (l *triLocator) scan(x, y float64) (int32, int32, bool) {
	tri, half, s := l.t.tri, l.t.half, l.s
	outside := int32(0)
	for t := range int32(l.t.triangles()) {
		in := true
		for k := int32(0); k < 3; k++ {
			e := 3*t + k
			a, b := tri[e], tri[nextHalfedge(e)]
			if orient(s.X[a], s.Y[a], s.X[b], s.Y[b], x, y) < 0 {
				in = false
				if half[e] < 0 {
					outside = e
				}
			}
		}
		if in {
			return t, -1, true
		}
	}
	return outside / 3, outside, false
}

// certBox is the job's samples' box (relative to the origin, exact), which bounds where
// samples that a tile did not load may lie.
type certBox struct {
	box [4]float64
}

// circles is the largest distance from (x,y) to a point of the box inside the circumcircle of
// one of tris, with a margin for its rounding; +Inf for a triangle so flat that its circle is
// not known so. Only the box can hold samples: a triangle along the samples' edge (a sliver of
// the hull, its circle wide outside) needs only what of its circle lies inside.
func (c *certBox) circles(l *triLocator, tris []int32, x, y float64) float64 {
	s := l.s
	reach := 0.0
	for _, t := range tris {
		a, b, v := l.t.tri[3*t], l.t.tri[3*t+1], l.t.tri[3*t+2]
		ax, ay := s.X[a], s.Y[a]
		dx, dy := s.X[b]-ax, s.Y[b]-ay
		ex, ey := s.X[v]-ax, s.Y[v]-ay
		bl, cl := dx*dx+dy*dy, ex*ex+ey*ey
		den := dx*ey - dy*ex
		// the rounding of den, relative: beyond 1e-6 the centre is not known well enough
		errDen := 8 * epsilon * (math.Abs(dx*ey) + math.Abs(dy*ex)) / math.Abs(den)
		if !(errDen < 1e-6) {
			return math.Inf(1)
		}
		ux := (ey*bl - dy*cl) * 0.5 / den
		uy := (dx*cl - ex*bl) * 0.5 / den
		r := math.Hypot(ux, uy)
		// the rounding of the centre (each coordinate), from that of the numerators and of den:
		// the circle grown by it holds the true one
		errC := 8*epsilon*(math.Abs(ey*bl)+math.Abs(dy*cl)+math.Abs(dx*cl)+math.Abs(ex*bl))*0.5/math.Abs(den) + 2*r*errDen
		reach = max(reach, c.inDisc(x, y, ax+ux, ay+uy, r+4*errC))
	}
	return reach
}

// inDisc is the largest distance from (px,py) to a point of the box inside the disc of centre
// (cx,cy) and radius r (0 when they do not meet), with a small margin for its rounding. The
// farthest point of the disc, opposite the point, when it is in the box; else a corner of the
// box inside the disc, or an end of the chord that an edge of the box makes in it: the part of
// the disc inside the box is convex, and the distance is largest at its boundary's corners
// where not on an arc through the farthest point.
func (c *certBox) inDisc(px, py, cx, cy, r float64) float64 {
	b := c.box
	in := func(x, y float64) bool { return x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3] }
	far := 0.0
	if d := math.Hypot(cx-px, cy-py); d == 0 || in(cx+r*(cx-px)/d, cy+r*(cy-py)/d) {
		far = d + r
	} else {
		at := func(x, y float64) { far = max(far, math.Hypot(x-px, y-py)) }
		// chords along the vertical edges (x fixed), then the horizontal ones
		for _, ex := range [2]float64{b[0], b[2]} {
			if h := r*r - (ex-cx)*(ex-cx); h >= 0 {
				if lo, hi := max(b[1], cy-math.Sqrt(h)), min(b[3], cy+math.Sqrt(h)); lo <= hi {
					at(ex, lo)
					at(ex, hi)
				}
			}
		}
		for _, ey := range [2]float64{b[1], b[3]} {
			if h := r*r - (ey-cy)*(ey-cy); h >= 0 {
				if lo, hi := max(b[0], cx-math.Sqrt(h)), min(b[2], cx+math.Sqrt(h)); lo <= hi {
					at(lo, ey)
					at(hi, ey)
				}
			}
		}
	}
	scale := max(math.Abs(b[0]), math.Abs(b[1]), math.Abs(b[2]), math.Abs(b[3]), math.Abs(px), math.Abs(py))
	return far*(1+1e-9) + 1e-9*scale
}

// farthest is the largest distance from (px,py) to a point of the box that lies on the right
// of every line given (x0, y0, x1, y1) (strictly for those marked strict, else on the line
// too): 0 when there is none. The region a sample outside a tile's must not lie in for the
// tile's hull to be the job's there (see edges and wedges) is such a part of the box; a small
// margin covers the rounding of the corners where lines cut it.
func (c *certBox) farthest(px, py float64, lines ...halfPlane) float64 {
	b := c.box
	var room [2][12][2]float64
	poly := append(room[0][:0], [2]float64{b[0], b[1]}, [2]float64{b[2], b[1]}, [2]float64{b[2], b[3]}, [2]float64{b[0], b[3]})
	for k, h := range lines {
		poly = h.clip(poly, room[(k+1)%2][:0])
	}
	far := 0.0
	for _, q := range poly {
		far = max(far, math.Hypot(q[0]-px, q[1]-py))
	}
	scale := max(math.Abs(b[0]), math.Abs(b[1]), math.Abs(b[2]), math.Abs(b[3]), math.Abs(px), math.Abs(py))
	return far*(1+1e-9) + 1e-9*scale
}

// halfPlane is the part of the plane on the right of the line from (x0, y0) to (x1, y1),
// strictly or with the line.
type halfPlane struct {
	x0, y0, x1, y1 float64
	strict         bool
}

// clip appends to out the vertices of the convex polygon poly cut by h (Sutherland-Hodgman),
// each vertex placed by the exact orientation: a box's edge exactly on a strict half-plane's
// line, as the hull's edge is where it runs along the samples' box, leaves nothing.
func (h halfPlane) clip(poly [][2]float64, out [][2]float64) [][2]float64 {
	keep := func(q [2]float64) bool {
		o := orient(h.x0, h.y0, h.x1, h.y1, q[0], q[1])
		return o < 0 || o == 0 && !h.strict
	}
	side := func(q [2]float64) float64 { return (h.x1-h.x0)*(q[1]-h.y0) - (h.y1-h.y0)*(q[0]-h.x0) }
	for i, cur := range poly {
		prev := poly[(i+len(poly)-1)%len(poly)]
		if keep(prev) != keep(cur) {
			sp, sc := side(prev), side(cur)
			f := 0.5 // the sides rounded alike: the crossing is within rounding of both
			if sp != sc {
				f = min(max(sp/(sp-sc), 0), 1)
			}
			out = append(out, [2]float64{prev[0] + f*(cur[0]-prev[0]), prev[1] + f*(cur[1]-prev[1])})
		}
		if keep(cur) {
			out = append(out, cur)
		}
	}
	return out
}

// beyondEdge is the half-plane beyond hull edge e (on its right), without its line.
func (l *triLocator) beyondEdge(e int32) halfPlane {
	a, b := l.t.tri[e], l.t.tri[nextHalfedge(e)]
	return halfPlane{l.s.X[a], l.s.Y[a], l.s.X[b], l.s.Y[b], true}
}

// edges is the reach that proves hull edges to be the job's: no sample beyond the line of any
// outside the region, so that every sample lies on its inner side or on it (a sample on the
// line outside the edge leaves it an edge of the hull).
func (c *certBox) edges(l *triLocator, hull []int32, x, y float64) float64 {
	reach := 0.0
	for _, e := range hull {
		reach = max(reach, c.farthest(x, y, l.beyondEdge(e)))
	}
	return reach
}

// wedges is the reach that proves, for a point outside the hull, that the hull edges it faces
// (between hull edges before and after) are all those of the job that it faces: a sample could
// add another only at the run's ends, beyond the hull edge before (after) and such that the new
// edge from it to the run's first vertex (from the last to it) faces the point.
func (c *certBox) wedges(l *triLocator, before, after int32, x, y float64) float64 {
	u := l.beyondEdge(before) // ends at the run's first vertex
	w := l.beyondEdge(after)  // starts at its last
	// A sample on the line of the hull edge before (after) lies beyond that edge's end, which
	// stays on the hull between; one on the line through the point and the run's end makes an
	// edge whose line passes through the point, which the point faces too.
	return max(c.farthest(x, y, u, halfPlane{u.x1, u.y1, x, y, false}),
		c.farthest(x, y, w, halfPlane{x, y, w.x0, w.y0, false}))
}
