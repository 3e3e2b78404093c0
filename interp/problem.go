package interp

import (
	"fmt"
	"math"
)

// Samples are the scattered points, as a structure of arrays. X and Y are relative to
// (OriginX, OriginY) so that float32 copies (the GPU's) keep their precision at UTM scale.
type Samples struct {
	X, Y, Z          []float64
	OriginX, OriginY float64
}

// Len is the number of samples.
func (s *Samples) Len() int { return len(s.X) }

// Add appends one sample given in absolute coordinates.
func (s *Samples) Add(x, y, z float64) {
	s.X = append(s.X, x-s.OriginX)
	s.Y = append(s.Y, y-s.OriginY)
	s.Z = append(s.Z, z)
}

// MoveOrigin re-expresses the coordinates relative to a new origin.
func (s *Samples) MoveOrigin(ox, oy float64) {
	dx, dy := s.OriginX-ox, s.OriginY-oy
	for i := range s.X {
		s.X[i] += dx
		s.Y[i] += dy
	}
	s.OriginX, s.OriginY = ox, oy
}

// Bounds returns the bounding box of the samples in absolute coordinates.
func (s *Samples) Bounds() (minX, minY, maxX, maxY float64) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for i := range s.X {
		minX = math.Min(minX, s.X[i])
		maxX = math.Max(maxX, s.X[i])
		minY = math.Min(minY, s.Y[i])
		maxY = math.Max(maxY, s.Y[i])
	}
	return minX + s.OriginX, minY + s.OriginY, maxX + s.OriginX, maxY + s.OriginY
}

// Target is the output raster: its size, its GDAL geotransform (absolute coordinates) and an
// optional mask of nodes that are not computed (a template's nodata).
type Target struct {
	Cols, Rows   int
	GeoTransform [6]float64
	// Mask, when set, marks in skip[i] (row-major over rows row0..row0+rows-1) the nodes that
	// stay nodata. It is called once per block, so a template is read block by block too.
	Mask func(row0, rows int, skip []bool) error
}

// NorthUp returns the target covering [xmin,xmax] x [ymin,ymax] with cols x rows nodes.
func NorthUp(xmin, ymin, xmax, ymax float64, cols, rows int) Target {
	return Target{Cols: cols, Rows: rows, GeoTransform: [6]float64{
		xmin, (xmax - xmin) / float64(cols), 0, ymax, 0, -(ymax - ymin) / float64(rows)}}
}

// Extent returns the box covered by a target whose geotransform has no rotation.
func (t Target) Extent() (xmin, ymin, xmax, ymax float64) {
	g := t.GeoTransform
	x0, x1 := g[0], g[0]+float64(t.Cols)*g[1]+float64(t.Rows)*g[2]
	y0, y1 := g[3], g[3]+float64(t.Cols)*g[4]+float64(t.Rows)*g[5]
	return math.Min(x0, x1), math.Min(y0, y1), math.Max(x0, x1), math.Max(y0, y1)
}

// Centre returns the centre of the target in absolute coordinates: the local origin for samples.
func (t Target) Centre() (x, y float64) {
	xmin, ymin, xmax, ymax := t.Extent()
	return (xmin + xmax) / 2, (ymin + ymax) / 2
}

// Node returns the centre of node (col,row) relative to (ox,oy). Every engine gets node
// coordinates from here, so CPU and GPU agree on where a node is.
func (t Target) Node(col, row int, ox, oy float64) (x, y float64) {
	g := t.GeoTransform
	c, r := float64(col)+0.5, float64(row)+0.5
	// Absolute first, then shifted, as gdal_grid computes node positions: on lattice data
	// where samples tie in distance, the other rounding picks other neighbours.
	return (g[0] + c*g[1] + r*g[2]) - ox, (g[3] + c*g[4] + r*g[5]) - oy
}

// Validate checks that the target has nodes and a non-degenerate geotransform.
func (t Target) Validate() error {
	if t.Cols <= 0 || t.Rows <= 0 {
		return fmt.Errorf("output size %dx%d: both must be positive", t.Cols, t.Rows)
	}
	g := t.GeoTransform
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("geotransform %v is not finite", g)
		}
	}
	if g[1]*g[5]-g[2]*g[4] == 0 {
		return fmt.Errorf("zero-size extent: geotransform %v has no area", g)
	}
	return nil
}

// Problem is one band to compute: samples, target and algorithm.
type Problem struct {
	Samples *Samples
	Target  Target
	Alg     Algorithm
	// leaveOneOut says that each node is computed with one sample held out (see LeaveOneOut),
	// so binds size what depends on the number of samples for n-1 of them.
	leaveOneOut bool
}

// sampleCount is the number of samples a node is computed from.
func (p *Problem) sampleCount() int {
	if p.leaveOneOut {
		return p.Samples.Len() - 1
	}
	return p.Samples.Len()
}

// NodeXY is Target.Node relative to the samples' origin.
func (p *Problem) NodeXY(col, row int) (x, y float64) {
	return p.Target.Node(col, row, p.Samples.OriginX, p.Samples.OriginY)
}
