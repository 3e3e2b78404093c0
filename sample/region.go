package sample

import "math"

// Region is where samples are kept: gdal_grid's -spat rectangle intersected with its -clipsrc
// geometry. gdal_grid keeps a point when it is Within that geometry, i.e. strictly inside:
// points on the boundary are dropped.
type Region struct {
	Rect  *[4]float64 // xmin ymin xmax ymax
	Polys []Polygon   // a multipolygon; nil when there is no clip geometry
	BBox  [4]float64  // bounding box of the region: the spatial filter handed to OGR
}

// Polygon is an exterior ring followed by its holes; a ring is x0,y0,x1,y1,... closed or not.
type Polygon [][]float64

// Within reports whether (x,y) is strictly inside the region, as OGR's Within.
func (r *Region) Within(x, y float64) bool {
	if r.Rect != nil && !(x > r.Rect[0] && x < r.Rect[2] && y > r.Rect[1] && y < r.Rect[3]) {
		return false
	}
	if r.Polys == nil {
		return true
	}
	for _, p := range r.Polys {
		if p.Locate(x, y) > 0 {
			return true
		}
	}
	return false
}

// Touches reports whether (x,y) is inside or on the boundary: what an OGR spatial filter
// keeps, and so what OGR's layer extent covers.
func (r *Region) Touches(x, y float64) bool {
	if r.Rect != nil && !(x >= r.Rect[0] && x <= r.Rect[2] && y >= r.Rect[1] && y <= r.Rect[3]) {
		return false
	}
	if r.Polys == nil {
		return true
	}
	for _, p := range r.Polys {
		if p.Locate(x, y) >= 0 {
			return true
		}
	}
	return false
}

// Locate returns 1 inside the Polygon, 0 on its boundary, -1 outside.
func (p Polygon) Locate(x, y float64) int {
	if len(p) == 0 {
		return -1
	}
	loc := locateRing(p[0], x, y)
	if loc <= 0 {
		return loc
	}
	for _, hole := range p[1:] {
		switch locateRing(hole, x, y) {
		case 1:
			return -1
		case 0:
			return 0
		}
	}
	return 1
}

// locateRing is the crossing-number test with the point-on-edge cases made explicit so that
// boundary points are told apart from inside ones.
func locateRing(r []float64, x, y float64) int {
	n := len(r) / 2
	inside := false
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		ax, ay, bx, by := r[2*j], r[2*j+1], r[2*i], r[2*i+1]
		if (ay > y) != (by > y) {
			cross := (bx-ax)*(y-ay) - (x-ax)*(by-ay)
			if cross == 0 {
				return 0
			}
			if (cross > 0) == (by > ay) {
				inside = !inside
			}
			continue
		}
		if ay == y && by == y && x >= math.Min(ax, bx) && x <= math.Max(ax, bx) {
			return 0
		}
		if ax == x && ay == y {
			return 0
		}
	}
	if inside {
		return 1
	}
	return -1
}

func (p Polygon) Bounds() [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, ring := range p {
		for i := 0; i+1 < len(ring); i += 2 {
			b[0], b[2] = math.Min(b[0], ring[i]), math.Max(b[2], ring[i])
			b[1], b[3] = math.Min(b[1], ring[i+1]), math.Max(b[3], ring[i+1])
		}
	}
	return b
}

// Filter is what every reader applies to each sample in its one pass: gdal_grid's -spat and
// -clipsrc (Region, nil for none) and the z transform z' = (z + ZIncrease) * ZMultiply
// (-z_increase, -z_multiply). Readers drop, and count, samples whose coordinates or
// transformed value are not finite.
type Filter struct {
	Region               *Region
	ZIncrease, ZMultiply float64
}

// Z is the transformed value.
func (f *Filter) Z(z float64) float64 { return (z + f.ZIncrease) * f.ZMultiply }

// Keeps says whether a sample at (x, y), absolute coordinates, is kept.
func (f *Filter) Keeps(x, y float64) bool { return f.Region == nil || f.Region.Within(x, y) }

// Transforms says whether Z changes values.
func (f *Filter) Transforms() bool { return f.ZIncrease != 0 || f.ZMultiply != 1 }
