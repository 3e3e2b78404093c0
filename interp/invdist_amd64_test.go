package interp

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestIDW2RowConstsLayout pins the offsets that invdist_avx2_amd64.s reads idw2RowConsts at.
func TestIDW2RowConstsLayout(t *testing.T) {
	var c idw2RowConsts
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"nx", unsafe.Offsetof(c.nx), 0},
		{"y", unsafe.Offsetof(c.y), 128},
		{"s2", unsafe.Offsetof(c.s2), 160},
		{"one", unsafe.Offsetof(c.one), 192},
	} {
		if f.got != f.want {
			t.Errorf("idw2RowConsts.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}

// TestIDW2RowAVX2 checks the AVX2 row kernel against its portable form, idw2RowGo, whatever
// kernel idw2Row picks on this CPU: random samples and nodes, sample counts that are and are
// not multiples of 4, with and without smoothing, nodes on a sample, padding samples.
func TestIDW2RowAVX2(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA")
	}
	rng := rand.New(rand.NewPCG(17, 4))
	for _, n := range []int{4, 5, 6, 7, 8, 9, 13, 64, 1001, 4099} {
		xs, ys, zs, az := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i], ys[i], zs[i] = 1000*rng.Float64()-500, 1000*rng.Float64()-500, 200*rng.Float64()-100
			az[i] = math.Abs(zs[i])
		}
		for trial := range 40 {
			var nx [batchNodes]float64
			for k := range nx {
				nx[k] = 1000*rng.Float64() - 500
			}
			y := 1000*rng.Float64() - 500
			s2 := []float64{0, 0, 9, 1e-4}[trial%4]
			hit := -1 // a node on a sample, every third trial without smoothing
			if s2 == 0 && trial%3 == 0 {
				hit = rng.IntN(batchNodes)
				j := rng.IntN(n)
				nx[hit], y = xs[j], ys[j]
			}
			var num, den, wn, wd, an, ad [batchNodes]float64
			idw2RowAVX2(xs, ys, zs, &nx, y, s2, &num, &den)
			idw2RowGo(xs, ys, zs, &nx, y, s2, &wn, &wd)
			idw2RowGo(xs, ys, az, &nx, y, s2, &an, &ad)
			for k := range nx {
				if hit >= 0 && k/2 == hit/2 {
					// The node on a sample and its partner in a division: the node's weight sum
					// must show the hit; the partner's may be NaN in both forms.
					if k == hit && den[k] < 1/exactHitD2 && !math.IsNaN(den[k]) {
						t.Errorf("n=%d trial %d: node %d on a sample has weight sum %g", n, trial, k, den[k])
					}
					continue
				}
				if !(math.Abs(num[k]-wn[k]) <= 1e-12*an[k]) || !(math.Abs(den[k]-wd[k]) <= 1e-12*wd[k]) {
					t.Fatalf("n=%d trial %d s2=%g: node %d: sums %g, %g, want %g, %g",
						n, trial, s2, k, num[k], den[k], wn[k], wd[k])
				}
			}
		}
		// Padding samples weigh exactly nothing.
		pad := make([]float64, n)
		for i := range pad {
			pad[i] = farPad
		}
		nx := [batchNodes]float64{-400, -300, -200, -100, 0, 100, 200, 300}
		var num, den [batchNodes]float64
		idw2RowAVX2(pad, pad, zs, &nx, 12.5, 9, &num, &den)
		if num != [batchNodes]float64{} || den != [batchNodes]float64{} {
			t.Errorf("n=%d: padding samples give sums %v, %v", n, num, den)
		}
	}
}

// TestIDW2AllAVX2 checks the AVX2 one-node kernel against its portable form, idw2AllGo:
// random samples and nodes, sample counts that are and are not multiples of 8, and nodes on
// a sample (the first hit in input order, also where a later sample or one in the same block
// or the tail hits too).
func TestIDW2AllAVX2(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA")
	}
	rng := rand.New(rand.NewPCG(17, 8))
	for _, n := range []int{8, 9, 12, 15, 16, 17, 64, 1003, 4096} {
		xs, ys, zs := make([]float64, n), make([]float64, n), make([]float64, n)
		for trial := range 60 {
			for i := range xs {
				xs[i], ys[i], zs[i] = 1000*rng.Float64()-500, 1000*rng.Float64()-500, 200*rng.Float64()-100
			}
			x, y := 1000*rng.Float64()-500, 1000*rng.Float64()-500
			if trial%2 == 1 {
				// A node on a sample, and maybe on a later one too.
				j := rng.IntN(n)
				x, y = xs[j], ys[j]+1e-8
				if trial%4 == 3 {
					k := j + rng.IntN(n-j)
					xs[k], ys[k] = xs[j], ys[j]
				}
			}
			num, den, hit := idw2AllAVX2(xs, ys, zs, x, y)
			wn, wd, wh := idw2AllGo(xs, ys, zs, x, y)
			var an float64
			if wh < 0 {
				for i := range xs {
					dx, dy := xs[i]-x, ys[i]-y
					an += math.Abs(zs[i]) / (dx*dx + dy*dy)
				}
			}
			if hit != wh || !(math.Abs(num-wn) <= 1e-12*an) || !(math.Abs(den-wd) <= 1e-12*wd) {
				t.Fatalf("n=%d trial %d: sums %g, %g hit %d, want %g, %g hit %d", n, trial, num, den, hit, wn, wd, wh)
			}
		}
	}
}
