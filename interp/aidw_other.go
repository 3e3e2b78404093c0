//go:build !amd64

package interp

// weighAll is weighAllGo: only amd64 has an assembly version.
func weighAll(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	return weighAllGo(xs, ys, zs, x, y, c, c0)
}

// fastWeighAll says whether weighAll runs an assembly loop: not on this architecture.
const fastWeighAll = false
