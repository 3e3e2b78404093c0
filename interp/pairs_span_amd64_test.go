package interp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// pairSumsAVX512's square roots from its FMA units (SOFTSQRT) are the hardware's, bit for bit:
// on random distances, on the inputs whose root lies nearest a midpoint between two float64
// (the squares of those midpoints, rounded, and their neighbours: the hardest to round), on
// perfect squares and their neighbours, and outside its range (0, subnormals, the largest and
// smallest normals, +Inf, NaN), where VSQRTPD takes over.
func TestSqrtSoftMatchesHardware(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var a []float64
	for range 1 << 17 {
		dx, dy := rng.Float64()*100, rng.Float64()*100
		a = append(a, dx*dx+dy*dy, math.Ldexp(1+rng.Float64(), rng.IntN(2040)-1020))
		// (2k+1)² 2^e, the square of a midpoint, rounded
		k := rng.Uint64()>>11 | 1<<52
		m := new(big.Int).SetUint64(2*k + 1)
		m.Mul(m, m)
		f, _ := new(big.Float).SetInt(m).Float64()
		mid := math.Ldexp(f, -106+2*(rng.IntN(900)-450))
		s := math.Ldexp(float64(k), rng.IntN(400)-200)
		a = append(a, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)),
			s*s, math.Nextafter(s*s, 0), math.Nextafter(s*s, math.Inf(1)))
	}
	lo := math.Ldexp(1, -960)
	a = append(a, 0, math.SmallestNonzeroFloat64, 1e-310, math.Nextafter(lo, 0), lo, math.Nextafter(lo, 1),
		math.MaxFloat64, math.Ldexp(1, 1016), math.Nextafter(math.Ldexp(1, 1016), math.Inf(1)),
		math.Inf(1), math.NaN(), 1, 2, 4, 1e-300, 1e300)
	for len(a)%8 != 0 {
		a = append(a, rng.Float64())
	}
	got := make([]float64, len(a))
	sqrtSoftAVX512(&a[0], &got[0], len(a))
	bad := 0
	for i, v := range a {
		if math.Float64bits(got[i]) != math.Float64bits(math.Sqrt(v)) {
			if bad++; bad <= 5 {
				t.Errorf("√%v (%#x): %v, want %v", v, math.Float64bits(v), got[i], math.Sqrt(v))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d square roots differ", bad, len(a))
	}
}
