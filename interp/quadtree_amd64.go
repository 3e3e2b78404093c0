package interp

//go:noescape
func quartersAVX512(x, y *float64, n int, quads *[4]quadRect, quarter *uint8, counts *[4][8]int64)

// quarters sets quarter[k] to quarterOf(quads, x[k], y[k]) for every sample and returns how
// many samples each quarter (4: none) has; with AVX-512, 8 samples at a time.
func quarters(quads *[4]quadRect, x, y []float64, quarter []uint8) (count [5]int) {
	n := len(x)
	m := 0
	if haveAVX512 {
		m = n &^ 7
	}
	if m > 0 {
		_, _ = y[m-1], quarter[m-1]
		var lanes [4][8]int64
		quartersAVX512(&x[0], &y[0], m, quads, &quarter[0], &lanes)
		count[4] = m
		for j, l := range lanes {
			for _, c := range l {
				count[j] += int(c)
			}
			count[4] -= count[j]
		}
	}
	for k := m; k < n; k++ {
		q := quarterOf(quads, x[k], y[k])
		quarter[k] = q
		count[q]++
	}
	return count
}
