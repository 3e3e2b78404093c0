package grid

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The bound is never below the brute-force distance to the k-th nearest sample, on every
// dataset, query and k, and exists (with an infinite limit) exactly when k samples do.
func TestKNNBoundHoldsTheKthNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			for _, d := range []dataset{d, quantized(d)} {
				if d.x == nil {
					continue
				}
				ix := Build(d.x, d.y)
				if d.name == "quanta" {
					ix = compact(d)
				}
				found := 0
				for _, q := range queries(r, d, ix) {
					for _, k := range []int{1, 2, 12, 64, len(d.x), len(d.x) + 3} {
						if k < 1 {
							continue
						}
						b, ok := ix.KNNBound(q[0], q[1], k, math.Inf(1))
						want := bruteKNN(d.x, d.y, q[0], q[1], k, math.Inf(1))
						what := fmt.Sprintf("KNNBound(%v, %v, k=%d)", q[0], q[1], k)
						if ok != (len(want) == k) {
							t.Fatalf("%s: ok %v with %d samples", what, ok, len(d.x))
						}
						if !ok {
							continue
						}
						found++
						if kth := math.Sqrt(want[k-1].D2); !(b >= kth) {
							t.Fatalf("%s = %v, below the k-th nearest at %v", what, b, kth)
						}
						if lb, lok := ix.KNNBound(q[0], q[1], k, b); lok {
							t.Fatalf("%s: a bound %v below the limit %v, which was the least", what, lb, b)
						}
						if lb, lok := ix.KNNBound(q[0], q[1], k, math.Nextafter(b, math.Inf(1))); !lok || lb != b {
							t.Fatalf("%s: limit just above %v gives %v, %v", what, b, lb, lok)
						}
					}
				}
				if found == 0 && len(d.x) > 0 {
					t.Fatal("no query found a bound")
				}
			}
		})
	}
}

// quantized is the dataset's samples rounded to quanta of 1/1024, the way LAS samples are
// held, named "quanta"; none (nil coordinates) where the quanta would not fit in int32.
func quantized(d dataset) dataset {
	q := dataset{name: "quanta", x: make([]float64, len(d.x)), y: make([]float64, len(d.y))}
	for i := range d.x {
		q.x[i], q.y[i] = math.Round(d.x[i]*1024)/1024, math.Round(d.y[i]*1024)/1024
		if math.Abs(q.x[i]*1024) >= math.MaxInt32 || math.Abs(q.y[i]*1024) >= math.MaxInt32 {
			return dataset{}
		}
	}
	return q
}

// compact indexes a quantized dataset as quanta.
func compact(d dataset) *Index {
	qx, qy := make([]int32, len(d.x)), make([]int32, len(d.y))
	for i := range d.x {
		qx[i], qy[i] = int32(d.x[i]*1024), int32(d.y[i]*1024)
	}
	return BuildCompact(qx, qy, 1.0/1024, 1.0/1024)
}
