package farfield

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// kahan is a Neumaier-compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// brute returns the sums at (x, y), the sum of w|z|, and the first exact hit, by math.Pow.
func brute(sx, sy, sz []float64, x, y, alpha float64) (num, den, abs float64, hit int32) {
	var n, d, a kahan
	hit = -1
	for i := range sx {
		dx, dy := sx[i]-x, sy[i]-y
		d2 := dx*dx + dy*dy
		if d2 < ExactHitD2 {
			if hit < 0 {
				hit = int32(i)
			}
			continue
		}
		w := math.Pow(d2, -alpha/2)
		n.add(w * sz[i])
		d.add(w)
		a.add(w * math.Abs(sz[i]))
	}
	return n.sum(), d.sum(), a.sum(), hit
}

type errs struct{ num, den float64 }

// check compares the sums at the targets idx (all when nil) with brute force.
func check(t testing.TB, sx, sy, sz, tx, ty, alpha []float64, opts Options, idx []int) errs {
	t.Helper()
	pl, err := NewPlan(sx, sy, sz, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := len(tx)
	num, den, hit := make([]float64, n), make([]float64, n), make([]int32, n)
	if err := pl.Sums(context.Background(), tx, ty, alpha, num, den, hit); err != nil {
		t.Fatal(err)
	}
	if idx == nil {
		for j := range n {
			idx = append(idx, j)
		}
	}
	var e errs
	for _, j := range idx {
		rn, rd, ra, rh := brute(sx, sy, sz, tx[j], ty[j], alpha[j])
		if rh != hit[j] {
			t.Fatalf("target %d: hit %d, want %d", j, hit[j], rh)
		}
		en, ed := 0.0, 0.0
		if ra > 0 {
			en = math.Abs(num[j]-rn) / ra
		} else if num[j] != 0 {
			en = math.Inf(1)
		}
		if rd > 0 {
			ed = math.Abs(den[j]-rd) / rd
		} else if den[j] != 0 {
			ed = math.Inf(1)
		}
		if !(en <= e.num) {
			e.num = en
		}
		if !(ed <= e.den) {
			e.den = ed
		}
	}
	return e
}

func uniform(r *rand.Rand, n int, x0, y0, side float64) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = x0+side*r.Float64(), y0+side*r.Float64()
	}
	return x, y
}

func values(r *rand.Rand, x, y []float64) []float64 {
	z := make([]float64, len(x))
	for i := range z {
		z[i] = 100*math.Sin(x[i]*0.01) + y[i]*1e-3 + 10*r.NormFloat64()
	}
	return z
}

func alphas(r *rand.Rand, n int, lo, hi float64) []float64 {
	a := make([]float64, n)
	for i := range a {
		a[i] = lo + (hi-lo)*r.Float64()
	}
	return a
}

func TestSmallUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sx, sy := uniform(r, 4000, 0, 0, 1000)
	sz := values(r, sx, sy)
	tx, ty := uniform(r, 3000, -50, -50, 1100)
	for _, o := range []Options{{}, {AlphaMin: 2, AlphaMax: 2}, {AlphaMin: 1, AlphaMax: 6}} {
		o.LeafSize = 32
		lo, hi := 1.5, 3.5
		if o.AlphaMin > 0 {
			lo, hi = o.AlphaMin, o.AlphaMax
		}
		e := check(t, sx, sy, sz, tx, ty, alphas(r, len(tx), lo, hi), o, nil)
		t.Logf("alpha [%g,%g]: max error num %.3g den %.3g", lo, hi, e.num, e.den)
		if e.num > 1e-9 || e.den > 1e-9 {
			t.Errorf("alpha [%g,%g]: error num %.3g den %.3g > 1e-9", lo, hi, e.num, e.den)
		}
	}
}

func TestOrders(t *testing.T) {
	for _, o := range []Options{{}, {AlphaMin: 2, AlphaMax: 2}, {Tol: 1e-6}, {AlphaMin: 1, AlphaMax: 6}} {
		pl, err := NewPlan(nil, nil, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		p, q := pl.Order()
		t.Logf("%+v: p %d q %d", o, p, q)
	}
}
