// Package raster describes the output raster that samples are gridded onto: its size, its
// geotransform, where each node (cell centre) lies, and the blocks of rows it streams in.
// Readers of templates, engines and writers share it without depending on each other.
package raster

import (
	"fmt"
	"math"
)

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
	g := &t.GeoTransform // not a copy, which took more than half of the halo check's time a node
	c, r := float64(col)+0.5, float64(row)+0.5
	// Absolute first, then shifted, as gdal_grid computes node positions: on lattice data
	// where samples tie in distance, the other rounding picks other neighbours.
	return (g[0] + c*g[1] + r*g[2]) - ox, (g[3] + c*g[4] + r*g[5]) - oy
}

// Window is the target of the cols x rows nodes from (col0, row0): the same nodes, placed
// where this target places them. Its mask, if any, is this one's rows.
func (t Target) Window(col0, row0, cols, rows int) Target {
	g := t.GeoTransform
	w := Target{Cols: cols, Rows: rows, GeoTransform: [6]float64{
		g[0] + float64(col0)*g[1] + float64(row0)*g[2], g[1], g[2],
		g[3] + float64(col0)*g[4] + float64(row0)*g[5], g[4], g[5]}}
	if t.Mask != nil {
		w.Mask = func(r0, n int, skip []bool) error {
			all := make([]bool, n*t.Cols)
			if err := t.Mask(row0+r0, n, all); err != nil {
				return err
			}
			for r := range n {
				copy(skip[r*cols:(r+1)*cols], all[r*t.Cols+col0:r*t.Cols+col0+cols])
			}
			return nil
		}
	}
	return w
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

// BlockRows is how many rows a block holds: about 8 Mi nodes, so that memory stays bounded for
// any raster size and a block still gives every worker plenty to do.
func BlockRows(cols int) int {
	r := (8 << 20) / cols
	if r < 1 {
		r = 1
	}
	return r
}
