package weigh

import (
	"math"

	"github.com/aidw/aidw/internal/fastmath"
	"golang.org/x/sys/cpu"
)

// The AVX-512 loops run 8 samples per instruction: log2 from VGETEXPPD and VGETMANTPD, a
// 16-entry table held in registers (VPERMI2PD) and a degree-9 polynomial; exp2 from a 16-entry
// table, a degree-6 polynomial and VSCALEFPD. Weights stay within 1e-14 of math.Pow's.

// Without AVX-512, the AVX2 loops run 4 samples per instruction with no tables (a gather
// costs more than the polynomials it saves): log2 of the mantissa reduced to [sqrt(1/2),
// sqrt 2) from a polynomial in s^2, s = (m-1)/(m+1) (the atanh series'), exp2 from a
// degree-10 polynomial on [-1/2, 1/2] and the integer part added to the exponent's bits.
// Weights stay within 1e-14 of math.Pow's as well.

// The CPU's features, read once (it does not change): AVX-512F, or AVX2 and FMA3, with the
// OS saving their registers.
var (
	haveAVX512  = cpu.X86.HasAVX512F
	haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

// Kernel names the loops Sum and Pairs run: "avx512", "avx2" (AVX2 and FMA without AVX-512)
// or "go". The far field's thresholds and cost model depend on their speed.
var Kernel = kernelName()

func kernelName() string {
	switch {
	case haveAVX512:
		return "avx512"
	case haveAVX2FMA:
		return "avx2"
	}
	return "go"
}

var inf = math.Inf(1)

// kernel is the assembly's tables and coefficients, at the offsets it reads them from.
type kernel struct {
	// invC and log2C: for the mantissa's 16 intervals [1+j/16, 1+(j+1)/16), the reciprocal
	// of the centre and -log2 of that reciprocal.
	invC, log2C [16]float64
	exp2        [16]float64 // 2^(j/16)
	// logPoly: ln(1+r)/ln2 = r*(a1 + a2 r + ... + a9 r^8) for |r| < 1/32 (next term < 2e-16),
	// a9 first for Horner's rule.
	logPoly [9]float64
	// expPoly: e^(g ln2/16) = b0 + b1 g + ... + b6 g^6 for |g| <= 1/2 (next term < 5e-16),
	// b6 first.
	expPoly                              [7]float64
	one, shift, minT, sixteen, sixteenth float64
	inf                                  float64
}

// kernelAVX2 is the AVX2 assembly's constants, each in all 4 lanes, at the offsets it reads
// them from. log2(d2) = e + log2(m) with m in [sqrt(1/2), sqrt 2): adding offset to d2's bits
// carries into the exponent field exactly when d2's mantissa is sqrt 2 or more, leaving
// e+1023 above bit 52 and m's mantissa, less sqrtHalf's, under mantissa.
type kernelAVX2 struct {
	offset, mantissa, sqrtHalf [4]uint64
	// expBits or'd into e+1023 make the double 2^52 + e+1023; expBias, 2^52 + 1023, is then
	// subtracted (AVX2 has no conversion from int64).
	expBits [4]uint64
	expBias [4]float64
	one     [4]float64
	// logPoly: log2(m) = s*(a0 + a1 s^2 + ... + a6 s^12), s = (m-1)/(m+1), |s| < 0.1716,
	// within 1e-16 of 2 atanh(s)/ln2; a6 first for Horner's rule.
	logPoly [7][4]float64
	shift   [4]float64
	minT    [4]float64
	// expPoly: 2^g = b0 + b1 g + ... + b10 g^10 for |g| <= 1/2, within 3.1e-16 relative; b10
	// first.
	expPoly [11][4]float64
	inf     [4]float64
}

// The polynomials interpolate at Chebyshev nodes, within a small factor of the least
// largest error, which saves 5 of the Taylor series' 22 multiply-adds a sample (the loops
// are bound by their multiply-adds): scripts/weigh-avx2-poly.py computes them, highest
// degree first.
var (
	logPolyAVX2 = [7]float64{0x1.f17dfd13ae0efp-3, 0x1.0bb80a92c80ccp-2, 0x1.484fa9965bc9cp-2,
		0x1.a61756810b0f8p-2, 0x1.2776c516a083cp-1, 0x1.ec709dc39ca40p-1, 0x1.71547652b82ffp+1}
	expPolyAVX2 = [11]float64{0x1.e6063f7217bc6p-28, 0x1.b675bca4eeebbp-24, 0x1.62bfd47773353p-20,
		0x1.ffcb54062e698p-17, 0x1.430913096fd9fp-13, 0x1.5d87fe9d7a584p-10, 0x1.3b2ab6fba1ddap-7,
		0x1.c6b08d703ce49p-5, 0x1.ebfbdff82c598p-3, 0x1.62e42fefa3a19p-1, 1}
)

// consts and constsAVX2 are read-only after start-up.
var (
	consts     = newKernel()
	constsAVX2 = newKernelAVX2()
)

func newKernelAVX2() *kernelAVX2 {
	const sqrtHalf = 0x3fe6a09e667f3bcd // the bits of sqrt(1/2), rounded down
	k := &kernelAVX2{}
	for l := range 4 {
		k.offset[l], k.mantissa[l], k.sqrtHalf[l] = math.Float64bits(1)-sqrtHalf, 1<<52-1, sqrtHalf
		k.expBits[l], k.expBias[l] = math.Float64bits(1<<52), 1<<52+1023
		k.one[l], k.shift[l], k.minT[l], k.inf[l] = 1, fastmath.RoundShift, fastmath.MinExp2, inf
		for n, a := range logPolyAVX2 {
			k.logPoly[n][l] = a
		}
		for n, b := range expPolyAVX2 {
			k.expPoly[n][l] = b
		}
	}
	return k
}

func newKernel() *kernel {
	k := &kernel{one: 1, shift: fastmath.RoundShift, minT: fastmath.MinExp2, sixteen: 16, sixteenth: 1.0 / 16, inf: inf}
	for j := range 16 {
		inv := 1 / (1 + (float64(j)+0.5)/16)
		k.invC[j], k.log2C[j] = inv, -math.Log2(inv)
		k.exp2[j] = math.Exp2(float64(j) / 16)
	}
	for n := 1; n <= 9; n++ {
		k.logPoly[9-n] = 1 / (float64(n) * math.Ln2)
		if n%2 == 0 {
			k.logPoly[9-n] = -k.logPoly[9-n]
		}
	}
	f := 1.0
	for n := 0; n <= 6; n++ {
		k.expPoly[6-n] = f
		f *= math.Ln2 / 16 / float64(n+1)
	}
	return k
}

// sumAVX512 runs SumGo's loop over the first n samples, n a multiple of 8, adding to the
// per-lane sums of the weights in acc[0:8] and of the weighted values in acc[8:16] (zero for
// a new sum; those of earlier chunks for Lanes).
//
//go:noescape
func sumAVX512(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernel, acc *[24]float64)

// pairsAVX512 runs PairsGo's loop over the first n samples, n a multiple of 8, leaving the
// per-lane sums of w*a in acc[0:8], of w*b in acc[8:16] and the least d2 in acc[16:24].
//
//go:noescape
func pairsAVX512(xs, ys, as, bs *float64, n int, x, y, c, hitD2 float64, k *kernel, acc *[24]float64)

// sumAVX2 is sumAVX512 for AVX2 and FMA, 4 samples per instruction, n a multiple of 8: it
// adds to the per-lane sums of the weights in acc[0:4] and of the weighted values in acc[4:8].
//
//go:noescape
func sumAVX2(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernelAVX2, acc *[24]float64)

// pairsAVX2 is pairsAVX512 for AVX2 and FMA, n a multiple of 8: it leaves the per-lane sums
// of w*a in acc[0:4], of w*b in acc[4:8] and the least d2 in acc[8:12].
//
//go:noescape
func pairsAVX2(xs, ys, as, bs *float64, n int, x, y, c, hitD2 float64, k *kernelAVX2, acc *[24]float64)

// Sum is SumGo, in assembly where the CPU has AVX-512 or AVX2 and FMA.
func Sum(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	n := len(xs) &^ 7
	if !(haveAVX512 || haveAVX2FMA) || n == 0 {
		return SumGo(xs, ys, zs, x, y, c, c0)
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var acc [24]float64
	lanes := 8
	if haveAVX512 {
		sumAVX512(&xs[0], &ys[0], &zs[0], n, x, y, c, c0, consts, &acc)
	} else {
		lanes = 4
		sumAVX2(&xs[0], &ys[0], &zs[0], n, x, y, c, c0, constsAVX2, &acc)
	}
	sw, swz = SumGo(xs[n:], ys[n:], zs[n:], x, y, c, c0)
	for i := range lanes {
		sw += acc[i]
		swz += acc[lanes+i]
	}
	return sw, swz
}

// Pairs sums w*as and w*bs over the samples (xs, ys) seen from (x, y), w = 2^max(c log2(d2),
// -1000), leaving out the samples closer than d2 < hitD2 (exact hits, which the caller finds
// from minD2, the least d2 of all), in assembly where the CPU has AVX-512 or AVX2 and FMA.
func Pairs(xs, ys, as, bs []float64, x, y, c, hitD2 float64) (sa, sb, minD2 float64) {
	n := len(xs) &^ 7
	if !(haveAVX512 || haveAVX2FMA) || n == 0 {
		return PairsGo(xs, ys, as, bs, x, y, c, hitD2)
	}
	ys, as, bs = ys[:len(xs)], as[:len(xs)], bs[:len(xs)]
	var acc [24]float64
	lanes := 8
	if haveAVX512 {
		pairsAVX512(&xs[0], &ys[0], &as[0], &bs[0], n, x, y, c, hitD2, consts, &acc)
	} else {
		lanes = 4
		pairsAVX2(&xs[0], &ys[0], &as[0], &bs[0], n, x, y, c, hitD2, constsAVX2, &acc)
	}
	sa, sb, minD2 = PairsGo(xs[n:], ys[n:], as[n:], bs[n:], x, y, c, hitD2)
	for i := range lanes {
		sa += acc[i]
		sb += acc[lanes+i]
		minD2 = min(minD2, acc[2*lanes+i])
	}
	return sa, sb, minD2
}

// Add adds the samples to the sums, as Sum's loops would after the samples before them;
// len(xs) must be a multiple of LanesAlign.
func (l *Lanes) Add(xs, ys, zs []float64, x, y, c, c0 float64) {
	if len(xs)%LanesAlign != 0 {
		panic("weigh: Lanes.Add takes a multiple of LanesAlign samples")
	}
	if len(xs) == 0 {
		return
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	l.used = true
	switch {
	case haveAVX512:
		sumAVX512(&xs[0], &ys[0], &zs[0], len(xs), x, y, c, c0, consts, &l.acc)
	case haveAVX2FMA:
		sumAVX2(&xs[0], &ys[0], &zs[0], len(xs), x, y, c, c0, constsAVX2, &l.acc)
	default:
		addGo(&l.acc, xs, ys, zs, x, y, c, c0)
	}
}

// Finish adds the last samples (any number) and returns the sums, Sum's bits over every
// sample added.
func (l *Lanes) Finish(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	if !(haveAVX512 || haveAVX2FMA) {
		return finishGo(&l.acc, xs, ys, zs, x, y, c, c0)
	}
	n := len(xs) &^ 7
	if !l.used && n == 0 {
		return SumGo(xs, ys, zs, x, y, c, c0) // as Sum over fewer than 8 samples
	}
	l.Add(xs[:n], ys[:n], zs[:n], x, y, c, c0)
	sw, swz = SumGo(xs[n:], ys[n:], zs[n:], x, y, c, c0)
	lanes := 8
	if !haveAVX512 {
		lanes = 4
	}
	for i := range lanes {
		sw += l.acc[i]
		swz += l.acc[lanes+i]
	}
	return sw, swz
}
