// Package tiles grids a job too large for memory, or for one machine, tile by tile: the
// output raster is split into tiles of nodes, each computed from the samples inside its
// extent plus a halo, with every fact that depends on the whole job (the number of samples,
// their box, the index layout, the local origin, the canonical order) computed once and
// shared, so that the tiles together equal the in-memory run bit for bit.
package tiles

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/raster"
)

// Tile is a window of the target's nodes: columns [Col0, Col0+Cols), rows [Row0, Row0+Rows).
type Tile struct {
	Col0 int `json:"col0"`
	Row0 int `json:"row0"`
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Split cuts the target into tiles of side nodes (the last of a row or column smaller), in
// row-major order.
func Split(t raster.Target, side int) ([]Tile, error) {
	return Tile{Cols: t.Cols, Rows: t.Rows}.Split(side)
}

// Split cuts the window w into tiles of side nodes, as the target's Split.
func (w Tile) Split(side int) ([]Tile, error) {
	if side < 1 {
		return nil, fmt.Errorf("tile side %d: must be at least 1 node", side)
	}
	var out []Tile
	for r := w.Row0; r < w.Row0+w.Rows; r += side {
		for c := w.Col0; c < w.Col0+w.Cols; c += side {
			out = append(out, Tile{Col0: c, Row0: r, Cols: min(side, w.Col0+w.Cols-c), Rows: min(side, w.Row0+w.Rows-r)})
		}
	}
	return out, nil
}

// Box is the bounding box (xmin ymin xmax ymax, absolute) of the tile's nodes, placed as every
// engine places them (raster.Target.Node).
func (tl Tile) Box(t raster.Target) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, c := range []int{tl.Col0, tl.Col0 + tl.Cols - 1} {
		for _, r := range []int{tl.Row0, tl.Row0 + tl.Rows - 1} {
			x, y := t.Node(c, r, 0, 0)
			b[0], b[1], b[2], b[3] = math.Min(b[0], x), math.Min(b[1], y), math.Max(b[2], x), math.Max(b[3], y)
		}
	}
	return b
}

// Grow returns box b grown by d on every side.
func Grow(b [4]float64, d float64) [4]float64 {
	return [4]float64{b[0] - d, b[1] - d, b[2] + d, b[3] + d}
}

// Intersects says whether the closed boxes a and b meet.
func Intersects(a, b [4]float64) bool {
	return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}
