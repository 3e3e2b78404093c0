package weigh

import (
	"math"

	"github.com/aidw/aidw/internal/fastmath"
	"golang.org/x/sys/cpu"
)

// The assembly loops run 8 samples per instruction: log2 from VGETEXPPD and VGETMANTPD, a
// 16-entry table held in registers (VPERMI2PD) and a degree-9 polynomial; exp2 from a 16-entry
// table, a degree-6 polynomial and VSCALEFPD. Weights stay within 1e-14 of math.Pow's.

// Fast says whether Sum and Pairs run the AVX-512 loops: the CPU has AVX-512F and the OS saves
// its registers. Read once; the CPU does not change.
var Fast = cpu.X86.HasAVX512F

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

// consts is read-only after start-up.
var consts = newKernel()

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

// sumAVX512 runs SumGo's loop over the first n samples, n a multiple of 8, leaving the
// per-lane sums of the weights in acc[0:8] and of the weighted values in acc[8:16].
//
//go:noescape
func sumAVX512(xs, ys, zs *float64, n int, x, y, c, c0 float64, k *kernel, acc *[16]float64)

// pairsAVX512 runs PairsGo's loop over the first n samples, n a multiple of 8, leaving the
// per-lane sums of w*a in acc[0:8], of w*b in acc[8:16] and the least d2 in acc[16:24].
//
//go:noescape
func pairsAVX512(xs, ys, as, bs *float64, n int, x, y, c, hitD2 float64, k *kernel, acc *[24]float64)

// Sum is SumGo, in assembly where the CPU has AVX-512.
func Sum(xs, ys, zs []float64, x, y, c, c0 float64) (sw, swz float64) {
	n := len(xs) &^ 7
	if !Fast || n == 0 {
		return SumGo(xs, ys, zs, x, y, c, c0)
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var acc [16]float64
	sumAVX512(&xs[0], &ys[0], &zs[0], n, x, y, c, c0, consts, &acc)
	sw, swz = SumGo(xs[n:], ys[n:], zs[n:], x, y, c, c0)
	for i := range 8 {
		sw += acc[i]
		swz += acc[8+i]
	}
	return sw, swz
}

// Pairs sums w*as and w*bs over the samples (xs, ys) seen from (x, y), w = 2^max(c log2(d2),
// -1000), leaving out the samples closer than d2 < hitD2 (exact hits, which the caller finds
// from minD2, the least d2 of all), in assembly where the CPU has AVX-512.
func Pairs(xs, ys, as, bs []float64, x, y, c, hitD2 float64) (sa, sb, minD2 float64) {
	n := len(xs) &^ 7
	if !Fast || n == 0 {
		return PairsGo(xs, ys, as, bs, x, y, c, hitD2)
	}
	ys, as, bs = ys[:len(xs)], as[:len(xs)], bs[:len(xs)]
	var acc [24]float64
	pairsAVX512(&xs[0], &ys[0], &as[0], &bs[0], n, x, y, c, hitD2, consts, &acc)
	sa, sb, minD2 = PairsGo(xs[n:], ys[n:], as[n:], bs[n:], x, y, c, hitD2)
	for i := range 8 {
		sa += acc[i]
		sb += acc[8+i]
		minD2 = min(minD2, acc[16+i])
	}
	return sa, sb, minD2
}
