package weigh

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cloud returns n samples at distances from 1e-3 to 1e5 of (10, -20), as in a dense cluster
// seen from far away, with values in [100, 200).
func cloud(rng *rand.Rand, n int) (xs, ys, zs []float64) {
	xs, ys, zs = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		r, th := math.Pow(10, rng.Float64()*8-3), rng.Float64()*2*math.Pi
		xs[i], ys[i], zs[i] = 10+r*math.Cos(th), -20+r*math.Sin(th), 100+100*rng.Float64()
	}
	return xs, ys, zs
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestSumKernels checks the global form's loops (the assembly one where the CPU has it, and
// the portable one) against sums of math.Pow weights, for every sample count modulo the
// vector width and for powers whose far weights fall under exp2's floor.
func TestSumKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	kernels := map[string]func(xs, ys, zs []float64, x, y, c, c0 float64) (float64, float64){
		"Sum": Sum, "SumGo": SumGo,
	}
	for _, n := range []int{1, 5, 8, 13, 64, 1001} {
		for _, alpha := range []float64{0, 1.5, 2, 3.25, 9, 300} {
			xs, ys, zs := cloud(rng, n)
			d2min := math.Inf(1)
			for i := range n {
				d2min = min(d2min, (xs[i]-10)*(xs[i]-10)+(ys[i]+20)*(ys[i]+20))
			}
			var sw, swz float64
			for i := range n {
				d := math.Sqrt((xs[i]-10)*(xs[i]-10) + (ys[i]+20)*(ys[i]+20))
				w := math.Pow(d/math.Sqrt(d2min), -alpha)
				sw += w
				swz += w * zs[i]
			}
			// log2(d2), within a few 1e-15 once rounded, is multiplied by alpha/2.
			tol := 1e-13 + 5e-15*alpha
			c := -alpha / 2
			for name, weigh := range kernels {
				gw, gwz := weigh(xs, ys, zs, 10, -20, c, -c*math.Log2(d2min))
				if relErr(gw, sw) > tol || relErr(gwz/gw, swz/sw) > tol {
					t.Errorf("%s, n=%d, alpha=%g: sums %.17g, %.17g; want %.17g, %.17g", name, n, alpha, gw, gwz, sw, swz)
				}
			}
		}
	}
}

// TestPairsKernels checks Pairs and PairsGo against math.Pow weights, with exact hits (at and
// near the node, at every lane) left out and the least squared distance reported (to its
// rounding: the assembly fuses a multiply-add in it).
func TestPairsKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	kernels := map[string]func(xs, ys, as, bs []float64, x, y, c, hitD2 float64) (float64, float64, float64){
		"Pairs": Pairs, "PairsGo": PairsGo,
	}
	const hitD2 = 1e-13
	for _, n := range []int{1, 7, 8, 13, 64, 1001} {
		for _, alpha := range []float64{1, 2, 3.25, 16} {
			for hits := range 3 {
				xs, ys, as := cloud(rng, n)
				bs := make([]float64, n)
				for i := range bs {
					bs[i] = rng.Float64() - 0.5
				}
				for h := range hits {
					i := rng.IntN(n)
					xs[i], ys[i] = 10+float64(h)*1e-7, -20 // d2 = 0 or 1e-14
				}
				var sa, sb, ka, kb float64
				d2min := math.Inf(1)
				for i := range n {
					d2 := (xs[i]-10)*(xs[i]-10) + (ys[i]+20)*(ys[i]+20)
					d2min = min(d2min, d2)
					if d2 < hitD2 {
						continue
					}
					w := math.Pow(math.Sqrt(d2), -alpha)
					sa, sb = sa+w*as[i], sb+w*bs[i]
					ka, kb = ka+w*math.Abs(as[i]), kb+w*math.Abs(bs[i])
				}
				for name, pairs := range kernels {
					ga, gb, gm := pairs(xs, ys, as, bs, 10, -20, -alpha/2, hitD2)
					tol := 1e-13 + 5e-15*alpha
					if math.Abs(ga-sa) > tol*ka || math.Abs(gb-sb) > tol*kb || relErr(gm, d2min) > 1e-15 {
						t.Errorf("%s, n=%d, alpha=%g, %d hits: %.17g, %.17g, %g; want %.17g, %.17g, %g",
							name, n, alpha, hits, ga, gb, gm, sa, sb, d2min)
					}
				}
			}
		}
	}
}

// benchSum times a global form's inner loop alone, on one core: one node against 102,400
// samples.
func benchSum(b *testing.B, sum func(xs, ys, zs []float64, x, y, c, c0 float64) (float64, float64)) {
	const n = 102_400
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i], zs[i] = rng.Float64()*1000, rng.Float64()*1000, rng.Float64()*100
	}
	var sink float64
	for i := 0; b.Loop(); i++ {
		sw, swz := sum(xs, ys, zs, 500.5+float64(i%7), 499.5, -1.25, 3)
		sink += swz / sw
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pair")
	_ = sink
}

// BenchmarkSum is the loop AIDW runs (in assembly where the CPU allows).
func BenchmarkSum(b *testing.B) { benchSum(b, Sum) }

// BenchmarkSumGo is the portable loop.
func BenchmarkSumGo(b *testing.B) { benchSum(b, SumGo) }

// BenchmarkPairs is the far field's direct loop.
func BenchmarkPairs(b *testing.B) {
	benchSum(b, func(xs, ys, zs []float64, x, y, c, _ float64) (float64, float64) {
		sa, sb, _ := Pairs(xs, ys, zs, xs, x, y, c, 1e-13)
		return sa, sb
	})
}
