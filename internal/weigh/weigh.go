// Package weigh holds the inner loops of inverse-distance weighting with a power per node:
// the weights d^-alpha = 2^(c log2 d^2), c = -alpha/2, of many samples seen from one node,
// summed with the samples' values. They are the hot spot of global AIDW (interp) and of the
// far field's direct parts (interp/farfield), and run in AVX-512 assembly where the CPU has it
// (weigh_amd64.s), about 6 times the portable loops' speed, else in AVX2 and FMA assembly,
// about 3 times, to the same accuracy: a weight is within 1e-14 relative of math.Pow's (see
// internal/fastmath).
package weigh

import "github.com/aidw/aidw/internal/fastmath"

// SumGo is Sum's portable loop: the sums of the weights 2^max(c log2(d2) + c0, -1000) and of
// the weighted values zs of the samples (xs, ys) seen from (x, y). c0 shifts every weight by
// the same factor (AIDW takes the nearest sample's weight as 1, so that no sum overflows). No
// sample may lie within the exact-hit distance (log2 needs d2 > 0). Four samples per
// iteration, logs before exps, let the core overlap their long dependency chains (6 ns a
// sample against 8.5 one at a time).
func SumGo(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	var acc [24]float64 // lanes from 0: their first sums are the weights themselves, exactly
	return finishGo(&acc, xs, ys, zs, x, y, c, c0)
}

// PairsGo is Pairs' portable loop.
func PairsGo(xs, ys, as, bs []float64, x, y, c, hitD2 float64) (sa, sb, minD2 float64) {
	ys, as, bs = ys[:len(xs)], as[:len(xs)], bs[:len(xs)]
	var sa1, sb1 float64
	minD2 = inf
	i := 0
	// Two samples at a time, logs before exps, so that their long dependency chains overlap.
	for ; i+1 < len(xs); i += 2 {
		dx0, dy0 := xs[i]-x, ys[i]-y
		dx1, dy1 := xs[i+1]-x, ys[i+1]-y
		d0, d1 := dx0*dx0+dy0*dy0, dx1*dx1+dy1*dy1
		minD2 = min(minD2, d0, d1)
		if d0 < hitD2 || d1 < hitD2 {
			break
		}
		t0 := fastmath.FloorExp2(c * fastmath.Log2Pos(d0))
		t1 := fastmath.FloorExp2(c * fastmath.Log2Pos(d1))
		w0, w1 := fastmath.Exp2(t0), fastmath.Exp2(t1)
		sa, sb = sa+w0*as[i], sb+w0*bs[i]
		sa1, sb1 = sa1+w1*as[i+1], sb1+w1*bs[i+1]
	}
	for ; i < len(xs); i++ {
		dx, dy := xs[i]-x, ys[i]-y
		d2 := dx*dx + dy*dy
		minD2 = min(minD2, d2)
		if d2 < hitD2 {
			continue
		}
		w := fastmath.Exp2(fastmath.FloorExp2(c * fastmath.Log2Pos(d2)))
		sa, sb = sa+w*as[i], sb+w*bs[i]
	}
	return sa + sa1, sb + sb1, minD2
}

// Lanes is a Sum in progress over samples that come in chunks, in order: a survey larger than
// memory streams past its nodes. It holds the partial sums as Sum's loops hold them between
// samples, lane by lane, so that Add over chunks whose lengths are multiples of 8 and Finish
// over the last chunk give Sum's bits over all the samples at once.
type Lanes struct {
	acc [24]float64
	// used says that Add ran the lanes: Sum reduces them only when it ran them.
	used bool
}

// LanesAlign is the multiple of samples that Add takes: the lanes of the widest loop (8), a
// multiple of the portable loop's (4).
const LanesAlign = 8

// addGo runs SumGo's loop of 4 samples over xs (a multiple of 4 long) on the sums in acc:
// acc[0:4] the lanes of the weights, acc[4:8] those of the weighted values.
func addGo(acc *[24]float64, xs, ys, zs []float64, x, y, c, c0 float64) {
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	sw, sw1, sw2, sw3 := acc[0], acc[1], acc[2], acc[3]
	swz, swz1, swz2, swz3 := acc[4], acc[5], acc[6], acc[7]
	for i := 0; i+3 < len(xs); i += 4 {
		dx0, dy0 := xs[i]-x, ys[i]-y
		dx1, dy1 := xs[i+1]-x, ys[i+1]-y
		dx2, dy2 := xs[i+2]-x, ys[i+2]-y
		dx3, dy3 := xs[i+3]-x, ys[i+3]-y
		t0 := fastmath.FloorExp2(c*fastmath.Log2Pos(dx0*dx0+dy0*dy0) + c0)
		t1 := fastmath.FloorExp2(c*fastmath.Log2Pos(dx1*dx1+dy1*dy1) + c0)
		t2 := fastmath.FloorExp2(c*fastmath.Log2Pos(dx2*dx2+dy2*dy2) + c0)
		t3 := fastmath.FloorExp2(c*fastmath.Log2Pos(dx3*dx3+dy3*dy3) + c0)
		w0, w1, w2, w3 := fastmath.Exp2(t0), fastmath.Exp2(t1), fastmath.Exp2(t2), fastmath.Exp2(t3)
		sw, swz = sw+w0, swz+w0*zs[i]
		sw1, swz1 = sw1+w1, swz1+w1*zs[i+1]
		sw2, swz2 = sw2+w2, swz2+w2*zs[i+2]
		sw3, swz3 = sw3+w3, swz3+w3*zs[i+3]
	}
	acc[0], acc[1], acc[2], acc[3] = sw, sw1, sw2, sw3
	acc[4], acc[5], acc[6], acc[7] = swz, swz1, swz2, swz3
}

// finishGo is SumGo over xs from the sums in acc (see addGo): the loop of 4, the samples
// left one at a time, and SumGo's reduction.
func finishGo(acc *[24]float64, xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	n := len(xs) &^ 3
	addGo(acc, xs[:n], ys, zs, x, y, c, c0)
	sw, swz = acc[0], acc[4]
	for i := n; i < len(xs); i++ {
		dx, dy := xs[i]-x, ys[i]-y
		w := fastmath.Exp2(fastmath.FloorExp2(c*fastmath.Log2Pos(dx*dx+dy*dy) + c0))
		sw, swz = sw+w, swz+w*zs[i]
	}
	return (sw + acc[1]) + (acc[2] + acc[3]), (swz + acc[5]) + (acc[6] + acc[7])
}
