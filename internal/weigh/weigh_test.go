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

// TestLanesEqualSum checks that a sum streamed in chunks (lengths multiples of LanesAlign,
// then any) gives Sum's bits over all the samples at once, with the loops this CPU runs and
// with the portable ones against SumGo; and that the chunks' order matters, so that the
// check would catch a stream out of order.
func TestLanesEqualSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	differ := false
	for _, n := range []int{0, 3, 7, 8, 9, 16, 61, 64, 1000, 4099} {
		xs, ys, zs := cloud(rng, n)
		c := -2.75 / 2
		c0 := 1.5
		wantW, wantWZ := Sum(xs, ys, zs, 10.5, -20.25, c, c0)
		goW, goWZ := SumGo(xs, ys, zs, 10.5, -20.25, c, c0)
		for trial := range 5 {
			var cuts []int
			at := 0
			for at < n {
				k := LanesAlign * rng.IntN(8)
				if trial == 0 {
					k = 0 // one chunk, all in Finish
				}
				if at+k >= n || k == 0 {
					break
				}
				cuts = append(cuts, at+k)
				at += k
			}
			var l Lanes
			var acc [24]float64
			lo := 0
			for _, hi := range cuts {
				l.Add(xs[lo:hi], ys[lo:hi], zs[lo:hi], 10.5, -20.25, c, c0)
				addGo(&acc, xs[lo:hi], ys[lo:hi], zs[lo:hi], 10.5, -20.25, c, c0)
				lo = hi
			}
			gotW, gotWZ := l.Finish(xs[lo:], ys[lo:], zs[lo:], 10.5, -20.25, c, c0)
			if math.Float64bits(gotW) != math.Float64bits(wantW) || math.Float64bits(gotWZ) != math.Float64bits(wantWZ) {
				t.Fatalf("n=%d cuts %v: Lanes gave %v %v, Sum %v %v", n, cuts, gotW, gotWZ, wantW, wantWZ)
			}
			gW, gWZ := finishGo(&acc, xs[lo:], ys[lo:], zs[lo:], 10.5, -20.25, c, c0)
			if math.Float64bits(gW) != math.Float64bits(goW) || math.Float64bits(gWZ) != math.Float64bits(goWZ) {
				t.Fatalf("n=%d cuts %v: the portable lanes gave %v %v, SumGo %v %v", n, cuts, gW, gWZ, goW, goWZ)
			}
		}
		if n >= 1000 {
			// the second half first: other bits, as a stream out of order would give
			h := n / 2 &^ (LanesAlign - 1)
			var l Lanes
			l.Add(xs[h:h+h], ys[h:h+h], zs[h:h+h], 10.5, -20.25, c, c0)
			l.Add(xs[:h], ys[:h], zs[:h], 10.5, -20.25, c, c0)
			w, wz := l.Finish(xs[2*h:], ys[2*h:], zs[2*h:], 10.5, -20.25, c, c0)
			differ = differ || w != wantW || wz != wantWZ
		}
	}
	if !differ {
		t.Fatal("sums in another order gave the same bits: the test cannot tell a stream out of order")
	}
}
