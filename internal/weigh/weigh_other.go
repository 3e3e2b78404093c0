//go:build !amd64

package weigh

import "math"

var inf = math.Inf(1)

// Sum is SumGo: only amd64 has an assembly version.
func Sum(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	return SumGo(xs, ys, zs, x, y, c, c0)
}

// Pairs is PairsGo: only amd64 has an assembly version.
func Pairs(xs, ys, as, bs []float64, x, y, c, hitD2 float64) (sa, sb, minD2 float64) {
	return PairsGo(xs, ys, as, bs, x, y, c, hitD2)
}

// Kernel names the loops Sum and Pairs run: the portable ones on this architecture.
const Kernel = "go"

// Add adds the samples to the sums, as Sum's loop would after the samples before them;
// len(xs) must be a multiple of LanesAlign.
func (l *Lanes) Add(xs, ys, zs []float64, x, y, c, c0 float64) {
	if len(xs)%LanesAlign != 0 {
		panic("weigh: Lanes.Add takes a multiple of LanesAlign samples")
	}
	addGo(&l.acc, xs, ys, zs, x, y, c, c0)
}

// Finish adds the last samples (any number) and returns the sums, Sum's bits over every
// sample added.
func (l *Lanes) Finish(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	return finishGo(&l.acc, xs, ys, zs, x, y, c, c0)
}
