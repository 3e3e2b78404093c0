// Package fastmath holds the table-driven log2 and exp2 that inverse-distance weights are
// computed with, inlined into the hot loops of interp and interp/farfield alike.
package fastmath

import "math"

// Inverse-distance weights are the hot spot of global AIDW (one power per sample and node, 1e10
// of them for 102,400 x 102,400), and math.Pow costs several times the rest of the loop. The
// weight d^-alpha is computed instead as 2^(-alpha/2 * log2(d^2)) with table-driven log2 and
// exp2 that the compiler inlines: about 5e-16 absolute error in log2 and 2e-15 relative in
// exp2, so a weight is within 1e-14 relative of math.Pow's (5e-14 for weights below 1e-40,
// where rounding of the exponent itself dominates).

const (
	// The tables' sizes make the reduced arguments small enough for Taylor polynomials of
	// degree 4 (log2, |r| < 2^-10; exp2, |f| < 2^-8.5).
	log2TableBits = 9
	exp2TableBits = 7

	mantissaMask = 1<<52 - 1
	oneBits      = 0x3ff0000000000000
	// RoundShift added to a float64 of magnitude < 2^51 rounds it to an integer held in the
	// low mantissa bits.
	RoundShift = 0x1.8p52

	invLn2 = 1 / math.Ln2
	// MinExp2 keeps Exp2's result a normal number: weights are relative to the nearest
	// sample's (1), so anything below 2^-1000 contributes nothing anyway.
	MinExp2 = -1000
)

// log2Entry is one interval of the mantissa [1,2): the reciprocal of its centre and
// log2 of the centre (as -log2 of the rounded reciprocal, so that the two agree exactly).
type log2Entry struct{ invC, log2C float64 }

// The tables are computed once and only read afterwards.
var (
	log2Table = makeLog2Table()
	exp2Table = makeExp2Table()
)

func makeLog2Table() (t [1 << log2TableBits]log2Entry) {
	for j := range t {
		c := 1 + (float64(j)+0.5)/(1<<log2TableBits)
		inv := 1 / c
		t[j] = log2Entry{invC: inv, log2C: -math.Log2(inv)}
	}
	return t
}

// makeExp2Table holds the bits of 2^(j/128), j = 0..127, less j in the place where exp2 adds
// the whole rounded argument (index bits included) to them.
func makeExp2Table() (t [1 << exp2TableBits]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j)/(1<<exp2TableBits))) - uint64(j)<<(52-exp2TableBits)
	}
	return t
}

// Log2Pos returns log2(x) for a positive, normal, finite x, within 5e-16 absolute beyond the
// rounding of the result.
func Log2Pos(x float64) float64 {
	b := math.Float64bits(x)
	ent := &log2Table[(b>>(52-log2TableBits))&(1<<log2TableBits-1)]
	r := math.Float64frombits(b&mantissaMask|oneBits)*ent.invC - 1
	// log2(1+r) for |r| < 2^-10: the Taylor series of ln(1+r)/ln(2) to r^4 (next term < 3e-16),
	// in Estrin's form, whose dependency chain is half Horner's.
	p := (invLn2 - invLn2/2*r) + r*r*(invLn2/3-invLn2/4*r)
	return float64(int64(b>>52)-1023) + ent.log2C + r*p
}

// Exp2 returns 2^t for -1000 <= t <= 1000 within about 2e-15 relative. Callers clamp t with
// FloorExp2 (kept out of exp2, which is then small enough to inline).
func Exp2(t float64) float64 {
	z := t * (1 << exp2TableBits)
	kd := z + RoundShift
	ki := math.Float64bits(kd)
	kd -= RoundShift
	// z = kd + g with |g| <= 1/2, so 2^t = 2^(kd/128) * e^(g*k), k = ln2/128: Taylor to g^4
	// in Estrin's form.
	const k = math.Ln2 / (1 << exp2TableBits)
	g := z - kd
	g2 := g * g
	p := (1 + k*g) + g2*((k*k/2+k*k*k/6*g)+k*k*k*k/24*g2)
	// The low bits of ki are round(z) in two's complement; shifted up, its part above the table
	// index lands in the exponent field and the shift's own bits fall off the top.
	return math.Float64frombits(exp2Table[ki&(1<<exp2TableBits-1)]+ki<<(52-exp2TableBits)) * p
}

// FloorExp2 raises t to Exp2's lower bound.
func FloorExp2(t float64) float64 {
	if t < MinExp2 {
		return MinExp2
	}
	return t
}
