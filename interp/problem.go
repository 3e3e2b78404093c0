package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/aidw/aidw/grid"
)

// Samples are the scattered points, as a structure of arrays. X and Y are relative to
// (OriginX, OriginY) so that float32 copies (the GPU's) keep their precision at UTM scale.
//
// Samples come in one of two forms. The plain form holds X and Y as float64. The compact form
// (QuantumX > 0) holds them as int32 offsets from the origin in whole quanta: sample i lies at
// (QX[i]*QuantumX, QY[i]*QuantumY) from an origin that is itself a whole number of quanta.
// LiDAR coordinates are integers times a scale, so the compact form holds them exactly in
// 16 bytes a sample instead of 24, and the index built on it keeps 8 bytes a sample instead of
// 16. Both forms give every consumer the same float64 coordinates through XY and Coords.
type Samples struct {
	X, Y, Z          []float64
	OriginX, OriginY float64
	// The compact form: QX and QY replace X and Y.
	QX, QY             []int32
	QuantumX, QuantumY float64
}

// Len is the number of samples.
func (s *Samples) Len() int {
	if s.IsCompact() {
		return len(s.QX)
	}
	return len(s.X)
}

// IsCompact says whether the samples are in the compact form.
func (s *Samples) IsCompact() bool { return s.QuantumX > 0 }

// XY returns sample i's coordinates relative to the origin.
func (s *Samples) XY(i int32) (x, y float64) {
	if s.QuantumX > 0 {
		return float64(s.QX[i]) * s.QuantumX, float64(s.QY[i]) * s.QuantumY
	}
	return s.X[i], s.Y[i]
}

// Coords returns the coordinates relative to the origin as float64 arrays: the samples' own in
// the plain form, a new copy in the compact form.
func (s *Samples) Coords() (x, y []float64) {
	if !s.IsCompact() {
		return s.X, s.Y
	}
	x, y = make([]float64, len(s.QX)), make([]float64, len(s.QY))
	for i := range x {
		x[i], y[i] = s.XY(int32(i))
	}
	return x, y
}

// plain returns the samples in the plain form: s itself, or a copy of its coordinates that
// shares Z. The algorithms that loop over every sample per node take this form once.
func (s *Samples) plain() *Samples {
	if !s.IsCompact() {
		return s
	}
	x, y := s.Coords()
	return &Samples{X: x, Y: y, Z: s.Z, OriginX: s.OriginX, OriginY: s.OriginY}
}

// Index builds the even-grid index of the samples, compact when they are.
func (s *Samples) Index() *grid.Index {
	if s.IsCompact() {
		return grid.BuildCompact(s.QX, s.QY, s.QuantumX, s.QuantumY)
	}
	return grid.Build(s.X, s.Y)
}

// Add appends one sample given in absolute coordinates to samples in the plain form.
func (s *Samples) Add(x, y, z float64) {
	s.X = append(s.X, x-s.OriginX)
	s.Y = append(s.Y, y-s.OriginY)
	s.Z = append(s.Z, z)
}

// Expand turns compact samples into the plain form (for transforms that leave the lattice).
func (s *Samples) Expand() {
	if s.IsCompact() {
		s.X, s.Y = s.Coords()
		s.QX, s.QY, s.QuantumX, s.QuantumY = nil, nil, 0, 0
	}
}

// MoveOrigin re-expresses the coordinates relative to a new origin. Compact samples move by
// whole quanta, to the lattice point nearest (ox, oy), and stay exact; when the offsets would
// no longer fit in int32 they are expanded to the plain form first.
func (s *Samples) MoveOrigin(ox, oy float64) {
	if s.IsCompact() {
		kx, newX := LatticePoint(ox, s.QuantumX)
		ky, newY := LatticePoint(oy, s.QuantumY)
		oldX, _ := LatticePoint(s.OriginX, s.QuantumX)
		oldY, _ := LatticePoint(s.OriginY, s.QuantumY)
		if dx, dy := oldX-kx, oldY-ky; shiftFits(s.QX, dx) && shiftFits(s.QY, dy) {
			for i := range s.QX {
				s.QX[i] += int32(dx)
				s.QY[i] += int32(dy)
			}
			s.OriginX, s.OriginY = newX, newY
			return
		}
		s.Expand()
	}
	dx, dy := s.OriginX-ox, s.OriginY-oy
	for i := range s.X {
		s.X[i] += dx
		s.Y[i] += dy
	}
	s.OriginX, s.OriginY = ox, oy
}

// LatticePoint returns the point of the lattice of quantum q (the multiples of q) nearest v,
// in quanta and as a float64. When q divides 1, as LiDAR scales (0.01, 0.001) do, it is the
// nearest whole number, which float64 holds exactly: nodes are then placed relative to the
// origin without rounding, and the compact samples' coordinates are exact to the last bit
// of their (small) offsets.
func LatticePoint(v, q float64) (int64, float64) {
	if per := math.Round(1 / q); per >= 1 && math.Abs(1/q-per) <= 1e-9*per {
		w := math.Round(v)
		return int64(w) * int64(per), w
	}
	k := math.Round(v / q)
	return int64(k), k * q
}

// shiftFits says whether every q + d fits in int32.
func shiftFits(q []int32, d int64) bool {
	if len(q) == 0 || d == 0 {
		return true
	}
	lo, hi := int64(slices.Min(q))+d, int64(slices.Max(q))+d
	return lo >= math.MinInt32 && hi <= math.MaxInt32
}

// Bounds returns the bounding box of the samples in absolute coordinates.
func (s *Samples) Bounds() (minX, minY, maxX, maxY float64) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for i := range int32(s.Len()) {
		x, y := s.XY(i)
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
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
