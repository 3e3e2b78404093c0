package grid

import "math"

// KNNBound is an upper bound on the distance from (qx,qy) to its k-th nearest sample, from
// the cells' counts alone: the farthest point of the smallest square of cells around the
// query's cell that holds k samples. ok is false when no such square's bound is below limit,
// or the index holds fewer than k samples. It costs a few cell counts where a search costs a
// sort of the neighbourhood: a tile's halo check takes it for the nodes far from the loaded
// region's edge, which the bound proves done without their k nearest.
func (ix *Index) KNNBound(qx, qy float64, k int, limit float64) (bound float64, ok bool) {
	l := &ix.Layout
	cx := clampCell((qx-l.MinX)*l.InvCell, l.Cols)
	cy := clampCell((qy-l.MinY)*l.InvCell, l.Rows)
	for m := 0; ; m++ {
		c0, c1 := max(cx-m, 0), min(cx+m, l.Cols-1)
		r0, r1 := max(cy-m, 0), min(cy+m, l.Rows-1)
		x0, x1 := l.MinX+float64(c0)*l.Cell, l.MinX+float64(c1+1)*l.Cell
		y0, y1 := l.MinY+float64(r0)*l.Cell, l.MinY+float64(r1+1)*l.Cell
		dx, dy := max(qx-x0, x1-qx), max(qy-y0, y1-qy)
		// inflated as a search's radius is, for the rounding of the samples' cell keys
		b := l.inflate(math.Sqrt(dx*dx + dy*dy))
		if !(b < limit) {
			return 0, false
		}
		n := 0
		for r := r0; r <= r1; r++ {
			n += int(ix.Start[r*l.Cols+c1+1] - ix.Start[r*l.Cols+c0])
		}
		if n >= k {
			return b, true
		}
		if c0 == 0 && r0 == 0 && c1 == l.Cols-1 && r1 == l.Rows-1 {
			return 0, false // every cell, fewer than k samples
		}
	}
}
