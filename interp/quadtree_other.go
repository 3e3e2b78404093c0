//go:build !amd64

package interp

// quarters sets quarter[k] to quarterOf(quads, x[k], y[k]) for every sample and returns how
// many samples each quarter (4: none) has.
func quarters(quads *[4]quadRect, x, y []float64, quarter []uint8) (count [5]int) {
	for k := range x {
		q := quarterOf(quads, x[k], y[k])
		quarter[k] = q
		count[q]++
	}
	return count
}
