//go:build !amd64

package interp

// idw2All returns the sums of z/d2 and 1/d2 over every sample for the node at (x,y), or hit,
// the first sample in input order with d2 < 1e-13 (-1 when none).
func idw2All(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	return idw2AllGo(xs, ys, zs, x, y)
}

// idw2Row sums z/r2 into num[k] and 1/r2 into den[k] over every sample for the 8 nodes
// (nx[k], y), r2 = d2 + s2, without exact-hit test; see idw2RowGo.
func idw2Row(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	idw2RowGo(xs, ys, zs, nx, y, s2, num, den)
}
