package farfield

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearAlgebraKernels checks matvec2, matvec2x2 and combine (in assembly where the CPU has it)
// against plain loops, for every length modulo the vector width.
func TestLinearAlgebraKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.Float64()*2 - 1
		}
		return v
	}
	near := func(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-14*scale }
	for n := 1; n <= 27; n++ {
		for _, rows := range []int{1, 4, 7, 12} {
			a, x, u := vec(rows*n), vec(n), vec(n)
			y, v := vec(rows), vec(rows)
			wy, wv := append([]float64(nil), y...), append([]float64(nil), v...)
			for i := range rows {
				for k := range n {
					wy[i] += a[i*n+k] * x[k]
					wv[i] += a[i*n+k] * u[k]
				}
			}
			x2, u2 := vec(n), vec(n)
			y2, v2 := vec(rows), vec(rows)
			wy2, wv2 := append([]float64(nil), y2...), append([]float64(nil), v2...)
			for i := range rows {
				for k := range n {
					wy2[i] += a[i*n+k] * x2[k]
					wv2[i] += a[i*n+k] * u2[k]
				}
			}
			y1, v1 := append([]float64(nil), y...), append([]float64(nil), v...)
			matvec2(a, x, u, y, v)
			matvec2x2(a, x, u, x2, u2, y1, v1, y2, v2)
			for i := range rows {
				if !near(y[i], wy[i], float64(n)) || !near(v[i], wv[i], float64(n)) {
					t.Fatalf("matvec2 n=%d rows=%d row %d: %g %g, want %g %g", n, rows, i, y[i], v[i], wy[i], wv[i])
				}
				if !near(y1[i], wy[i], float64(n)) || !near(v1[i], wv[i], float64(n)) ||
					!near(y2[i], wy2[i], float64(n)) || !near(v2[i], wv2[i], float64(n)) {
					t.Fatalf("matvec2x2 n=%d rows=%d row %d", n, rows, i)
				}
			}
		}
		for _, q := range []int{1, 3, 10} {
			la, fz, f1 := vec(q), vec(q*n), vec(q*n)
			gz, g1 := vec(n+1), vec(n+1) // the last element must stay as it is
			end := [2]float64{gz[n], g1[n]}
			combine(la, fz, f1, gz[:n], g1[:n])
			for k := range n {
				var wz, w1 float64
				for m := range q {
					wz += la[m] * fz[m*n+k]
					w1 += la[m] * f1[m*n+k]
				}
				if !near(gz[k], wz, float64(q)) || !near(g1[k], w1, float64(q)) {
					t.Fatalf("combine n=%d q=%d at %d: %g %g, want %g %g", n, q, k, gz[k], g1[k], wz, w1)
				}
			}
			if gz[n] != end[0] || g1[n] != end[1] {
				t.Fatalf("combine n=%d q=%d wrote past its end", n, q)
			}
		}
	}
}

// BenchmarkMatvec2x2 times the far operators' product as the tree runs it (matvec2x2 on one
// power's operator of p^2 x p^2, p = 14, which stays in L2), in ns per multiply-add: m2lW.
func BenchmarkMatvec2x2(b *testing.B) {
	const p2 = 14 * 14
	r := rand.New(rand.NewPCG(7, 8))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.Float64()
		}
		return v
	}
	a, x1, u1, x2, u2 := vec(p2*p2), vec(p2), vec(p2), vec(p2), vec(p2)
	y1, v1, y2, v2 := vec(p2), vec(p2), vec(p2), vec(p2)
	for b.Loop() {
		matvec2x2(a, x1, u1, x2, u2, y1, v1, y2, v2)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(4*p2*p2), "ns/madd")
}
