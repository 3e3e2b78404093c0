package farfield

import "math"

// The near field's weights d^-alpha are 2^(-alpha/2 * log2(d^2)) with the table-driven log2
// and exp2 of interp/powmath.go (copied: this package does not import interp): about 5e-16
// absolute error in log2 and 2e-15 relative in exp2, so a weight is within about 1e-14
// relative of math.Pow's.

const (
	log2TableBits = 9
	exp2TableBits = 7
	mantissaMask  = 1<<52 - 1
	oneBits       = 0x3ff0000000000000
	roundShift    = 0x1.8p52
	invLn2        = 1 / math.Ln2
)

type log2Entry struct{ invC, log2C float64 }

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

func makeExp2Table() (t [1 << exp2TableBits]uint64) {
	for j := range t {
		t[j] = math.Float64bits(math.Exp2(float64(j)/(1<<exp2TableBits))) - uint64(j)<<(52-exp2TableBits)
	}
	return t
}

// log2Pos returns log2(x) for a positive, normal, finite x.
func log2Pos(x float64) float64 {
	b := math.Float64bits(x)
	ent := &log2Table[(b>>(52-log2TableBits))&(1<<log2TableBits-1)]
	r := math.Float64frombits(b&mantissaMask|oneBits)*ent.invC - 1
	p := (invLn2 - invLn2/2*r) + r*r*(invLn2/3-invLn2/4*r)
	return float64(int64(b>>52)-1023) + ent.log2C + r*p
}

// exp2 returns 2^t for -1000 <= t <= 1000.
func exp2(t float64) float64 {
	z := t * (1 << exp2TableBits)
	kd := z + roundShift
	ki := math.Float64bits(kd)
	kd -= roundShift
	const k = math.Ln2 / (1 << exp2TableBits)
	g := z - kd
	g2 := g * g
	p := (1 + k*g) + g2*((k*k/2+k*k*k/6*g)+k*k*k*k/24*g2)
	return math.Float64frombits(exp2Table[ki&(1<<exp2TableBits-1)]+ki<<(52-exp2TableBits)) * p
}

// weight is d2^c (c = -alpha/2) for d2 >= exactHitD2; weights beyond 2^+-1000 are clamped
// there (math.Pow takes over outside, so that they under- and overflow as math.Pow's do).
func weight(d2, c float64) float64 {
	t := c * log2Pos(d2)
	if t < -1000 || t > 1000 {
		return math.Pow(d2, c)
	}
	return exp2(t)
}
