package farfield

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// BenchmarkSums1M: 1,024,000 uniformly random samples onto 1,024,000 scattered targets,
// powers in [1.5, 3.5] per target, tol 1e-9 (run with -benchtime=1x). It reports the plan's
// and the sums' seconds and the largest errors at 1000 sampled targets against brute force,
// in units of 1e-12.
func BenchmarkSums1M(b *testing.B) { benchSums(b, 1.5, 3.5) }

// BenchmarkSums1MFixed is BenchmarkSums1M with the one power 2 (invdist's case).
func BenchmarkSums1MFixed(b *testing.B) { benchSums(b, 2, 2) }

func benchSums(b *testing.B, lo, hi float64) {
	const n = 1024000
	r := rand.New(rand.NewPCG(21, 22))
	sx, sy := uniform(r, n, 0, 0, 1)
	sz := values(r, sx, sy)
	tx, ty := uniform(r, n, 0, 0, 1)
	al := alphas(r, n, lo, hi)
	num, den := make([]float64, n), make([]float64, n)
	var plan, sums time.Duration
	var pl *Plan
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		var err error
		pl, err = NewPlan(sx, sy, sz, Options{AlphaMin: lo, AlphaMax: hi})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := pl.Sums(context.Background(), tx, ty, al, num, den, nil); err != nil {
			b.Fatal(err)
		}
		plan, sums = plan+t1.Sub(t0), sums+time.Since(t1)
	}
	b.StopTimer()
	b.ReportMetric(plan.Seconds()/float64(b.N), "plan-s")
	b.ReportMetric(sums.Seconds()/float64(b.N), "sums-s")
	d, fields := pl.depth(n, n, 1)
	b.ReportMetric(float64(d), "depth")
	b.ReportMetric(float64(fields), "fields")
	// Brute force at 1000 targets, on every core.
	idx := make([]int, 1000)
	for i := range idx {
		idx[i] = r.IntN(n)
	}
	var mu sync.Mutex
	var en, ed float64
	var wg sync.WaitGroup
	for w := range pl.o.Threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(idx); k += pl.o.Threads {
				j := idx[k]
				rn, rd, ra, _ := brute(sx, sy, sz, tx[j], ty[j], al[j])
				e1, e2 := abs64(num[j]-rn)/ra, abs64(den[j]-rd)/rd
				mu.Lock()
				en, ed = max(en, e1), max(ed, e2)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(en*1e12, "maxerr-num-e-12")
	b.ReportMetric(ed*1e12, "maxerr-den-e-12")
}

func abs64(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
