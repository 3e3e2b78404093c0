package interp

import (
	"cmp"
	"context"
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
// inside such a circle may differ from gdal's by the choice of diagonal.
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
	s := p.Samples.Plain() // the triangulation takes every sample's coordinates
	tri, err := delaunay(s.X, s.Y)
	if err != nil {
		return nil, err
	}
	l := &linearBound{a: a, s: s, tri: tri, loc: newTriLocator(s, tri),
		nn: &gdalNearest{s: s, ix: ix, order: p.newGDALOrder(), nodata: a.NodataValue}}
	minX, minY, maxX, maxY := s.Bounds()
	l.r0 = math.Sqrt((maxX - minX) * (maxY - minY) / float64(s.Len()))
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
}

func (l *linearBound) node(sc *scratch, x, y float64) float64 {
	if v, ok := l.loc.interpolate(x, y); ok {
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
	tri, err := delaunay(around.X, around.Y)
	if err != nil { // the neighbours of a triangulated vertex: cannot happen; no triangle then
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
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, v := range t.tri {
		minX, maxX = min(minX, s.X[v]), max(maxX, s.X[v])
		minY, maxY = min(minY, s.Y[v]), max(maxY, s.Y[v])
	}
	// About two triangles per cell.
	l.cell = math.Sqrt((maxX - minX) * (maxY - minY) * 2 / float64(nt))
	l.minX, l.minY = minX, minY
	l.cols = max(1, min(int((maxX-minX)/l.cell)+1, 1<<14))
	l.rows = max(1, min(int((maxY-minY)/l.cell)+1, 1<<14))
	l.seed = make([]int32, l.cols*l.rows)
	tri := int32(0)
	for r := range l.rows {
		for c := range l.cols {
			col := c
			if r%2 == 1 {
				col = l.cols - 1 - c // boustrophedon: each walk starts next to the last
			}
			tri, _ = l.walk(tri, l.minX+(float64(col)+0.5)*l.cell, l.minY+(float64(r)+0.5)*l.cell)
			l.seed[r*l.cols+col] = tri
		}
	}
	return l
}

// interpolate returns the linear interpolation at (x,y) and true, or false when no triangle
// holds the point as gdal decides it.
func (l *triLocator) interpolate(x, y float64) (float64, bool) {
	if l.t.triangles() == 0 {
		return 0, false
	}
	c := min(max(int((x-l.minX)/l.cell), 0), l.cols-1)
	r := min(max(int((y-l.minY)/l.cell), 0), l.rows-1)
	t, inside := l.walk(l.seed[r*l.cols+c], x, y)
	if v, ok := l.barycentric(t, x, y); ok {
		return v, true
	}
	if !inside {
		return 0, false
	}
	// The point is in a triangle too flat for gdal; gdal still takes it within tolerance of a
	// neighbour.
	for k := int32(0); k < 3; k++ {
		if o := l.t.half[3*t+k]; o >= 0 {
			if v, ok := l.barycentric(o/3, x, y); ok {
				return v, true
			}
		}
	}
	return 0, false
}

// barycentric is gdal's test and interpolation in triangle t: coefficients as
// GDALTriangulationComputeBarycentricCoefficients computes them, the point accepted when every
// coordinate is within [-1e-10, 1+1e-10].
func (l *triLocator) barycentric(t int32, x, y float64) (float64, bool) {
	s := l.s
	i1, i2, i3 := l.t.tri[3*t], l.t.tri[3*t+1], l.t.tri[3*t+2]
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
// edges in a rotating order (which cannot cycle). It returns the triangle holding the point
// and true, or the hull triangle whose outer edge the point lies beyond and false.
func (l *triLocator) walk(t int32, x, y float64) (int32, bool) {
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
					return t, false
				}
				from, t, moved = e, o/3, true
				break
			}
		}
		if !moved {
			return t, true
		}
	}
	return l.scan(x, y)
}

// scan finds the triangle holding (x,y) by testing every triangle: the walk's fallback, which
// exact orientations should never need.
func (l *triLocator) scan(x, y float64) (int32, bool) {
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
					outside = t
				}
			}
		}
		if in {
			return t, true
		}
	}
	return outside, false
}
