package interp

import (
	"context"
	"math"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// Nearest is gdal_grid's nearest: the value of the nearest sample, or nodata when none is in
// the search area. gdal 3.6 has two searches, and aidw follows both:
//   - above 100 samples, without rotation and with a radius (its quadtree): the nearest sample
//     in the square of half-side max(Radius1,Radius2) around the node, so up to sqrt(2) times
//     the radius away, ties going to the last in gdal's quadtree order;
//   - otherwise the nearest sample inside the search ellipse (every sample when both radii
//     are 0), ties going to the last in input order.
type Nearest struct {
	Radius1, Radius2, Angle float64
	NodataValue             float64
}

var nearestDeclaration = Declaration{
	Name:    "nearest",
	Help:    "the value of the nearest sample in the search ellipse",
	GDAL:    true,
	Options: options(ellipseOptions(), []Option{nodataOption()}),
	parse:   parseNearest,
}

// Reach implements Reacher: the nearest sample, or the search ellipse.
func (a *Nearest) Reach(n int) Reach {
	if a.Radius1 == 0 && a.Radius2 == 0 {
		return Reach{Kind: ReachNearest, K: 1}
	}
	return ellipseReach(n, a.Radius1, a.Radius2, a.Angle, false)
}

// Name implements Algorithm.
func (a *Nearest) Name() string { return "nearest" }

// NoData implements Algorithm.
func (a *Nearest) NoData() float64 { return a.NodataValue }

func parseNearest(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	a := &Nearest{}
	a.Radius1, a.Radius2 = o.radii()
	a.Angle = o.float("angle")
	a.NodataValue = o.nodata()
	if kv.err != nil {
		return nil, kv.err
	}
	o.warnUnknown()
	return a, nil
}

func (a *Nearest) bind(p *Problem, ix *grid.Index) (bound, error) {
	nn := &gdalNearest{s: p.Samples, ix: ix, order: p.newGDALOrder(), nodata: a.NodataValue}
	n := p.sampleCount()
	return &skipping{f: a.search(nn, n), less: func(context.Context) (nodeWithout, error) { return a.search(nn, n-1), nil }}, nil
}

// search is gdal's search for n samples: on its quadtree above 100.
func (a *Nearest) search(nn *gdalNearest, n int) nodeWithout {
	area := searchArea{R1: a.Radius1, R2: a.Radius2, Angle: a.Angle}
	switch {
	case area.all():
		return nn.all
	case UsesQuadtree(n, a.Radius1, a.Radius2, a.Angle):
		h := area.half()
		return func(sc *scratch, skip int32, x, y float64) float64 { return nn.inSquare(sc, skip, x, y, h) }
	}
	return func(sc *scratch, skip int32, x, y float64) float64 { return nn.inEllipse(sc, skip, x, y, area) }
}

// gdalNearest holds gdal's nearest-sample searches, which linear uses outside the hull too.
// Each leaves out sample skip (-1: none).
type gdalNearest struct {
	s      *sample.Samples
	ix     *grid.Index
	order  *gdalOrder
	nodata float64
}

// all is the nearest of every sample, the last in input order on ties.
func (nn *gdalNearest) all(sc *scratch, skip int32, x, y float64) float64 {
	sc.nb = sc.knn(nn.ix, x, y, 2, math.Inf(1), skip)
	if len(sc.nb) == 0 {
		return nn.nodata
	}
	if len(sc.nb) == 1 || sc.nb[1].D2 > sc.nb[0].D2 {
		return nn.s.Z[sc.nb[0].ID]
	}
	sc.nb = sc.within(nn.ix, x, y, sc.nb[0].D2, skip)
	return nn.s.Z[sc.nb[len(sc.nb)-1].ID]
}

// inEllipse is gdal's search without its quadtree: the nearest sample in the ellipse, the
// last in input order on ties, with distances taken after rotation as gdal takes them.
func (nn *gdalNearest) inEllipse(sc *scratch, skip int32, x, y float64, area searchArea) float64 {
	sc.nb = without(area.collect(nn.ix, x, y, sc.nb), skip)
	var c, s float64
	rotated := false
	if a := toRadiansGDAL * area.Angle; a != 0 {
		rotated, c, s = true, math.Cos(a), math.Sin(a)
	}
	best, bestD2 := int32(-1), math.MaxFloat64
	for _, nb := range sc.nb {
		d2 := nb.D2
		if rotated {
			sx, sy := nn.s.XY(nb.ID)
			dx, dy := sx-x, sy-y
			rx := float64(dx*c) + float64(dy*s)
			ry := float64(dy*c) - float64(dx*s)
			d2 = float64(rx*rx) + float64(ry*ry)
		}
		if d2 < bestD2 || d2 == bestD2 && nb.ID > best {
			best, bestD2 = nb.ID, d2
		}
	}
	if best < 0 {
		return nn.nodata
	}
	return nn.s.Z[best]
}

// inSquare is gdal's quadtree search: the nearest sample in the square of half-side h, the
// last in gdal's quadtree order on ties; nodata when the square is empty.
func (nn *gdalNearest) inSquare(sc *scratch, skip int32, x, y, h float64) float64 {
	// Every sample of the square is within the circle of radius h*sqrt(2).
	sc.nb = sc.knn(nn.ix, x, y, 2, 2*(h*h), skip)
	if len(sc.nb) == 0 {
		return nn.nodata
	}
	first := sc.nb[0]
	unique := len(sc.nb) == 1 || sc.nb[1].D2 > first.D2
	if unique && inSquare(nn.s, first.ID, x, y, h) {
		return nn.s.Z[first.ID]
	}
	sc.nb = sc.within(nn.ix, x, y, 2*(h*h), skip)
	best, bestD2, tie := int32(-1), math.MaxFloat64, false
	for _, nb := range sc.nb {
		switch {
		case !inSquare(nn.s, nb.ID, x, y, h):
		case nb.D2 < bestD2:
			best, bestD2, tie = nb.ID, nb.D2, false
		case nb.D2 == bestD2:
			tie = true
		}
	}
	if best < 0 {
		return nn.nodata
	}
	if tie {
		for _, nb := range sc.nb {
			if nb.D2 == bestD2 && inSquare(nn.s, nb.ID, x, y, h) && nn.order.compare(nb.ID, best) > 0 {
				best = nb.ID
			}
		}
	}
	return nn.s.Z[best]
}

// growing is gdal's search with no radius on its quadtree: squares of half-side r0, 2*r0,
// 4*r0, ... until one holds a sample, then the nearest in that square. gdal's r0, for linear,
// is sqrt(area/n) of the samples' bounding box.
func (nn *gdalNearest) growing(sc *scratch, skip int32, x, y, r0 float64) float64 {
	sc.nb = sc.knn(nn.ix, x, y, 1, math.Inf(1), skip)
	if len(sc.nb) == 0 {
		return nn.nodata
	}
	// The sample nearest in the square metric is within sqrt(2) times the nearest distance.
	d2 := sc.nb[0].D2
	sc.nb = sc.within(nn.ix, x, y, 2*d2, skip)
	c := math.Inf(1)
	for _, nb := range sc.nb {
		sx, sy := nn.s.XY(nb.ID)
		c = min(c, max(math.Abs(sx-x), math.Abs(sy-y)))
	}
	h := r0
	if !(h > 0) {
		// gdal never reaches this (it cannot triangulate such samples): take the smallest square.
		h = c
	}
	for h < c {
		h *= 2
	}
	return nn.inSquare(sc, skip, x, y, h)
}
