package grid

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// knnPaths runs f with each of KNN's kernels that the CPU runs, pure Go included.
func knnPaths(t *testing.T, f func(t *testing.T)) {
	was := knnKernel
	defer func() { knnKernel = was }()
	for _, k := range knnKernels {
		t.Run(k.String(), func(t *testing.T) {
			knnKernel = k
			f(t)
		})
	}
}

// tieDatasets are compact sets rich in equal distances: an integer lattice, its points
// repeated, and clustered samples on a coarse lattice, in quanta of 1 and 0.25.
func tieDatasets(r *rand.Rand) []dataset {
	var ds []dataset
	x, y := []float64{}, []float64{}
	for i := range 40 {
		for j := range 40 {
			x, y = append(x, float64(j)), append(y, float64(i))
		}
	}
	ds = append(ds, dataset{"lattice 40", x, y})
	x, y = nil, nil
	for range 3000 {
		x, y = append(x, float64(r.IntN(12))), append(y, float64(r.IntN(9)))
	}
	ds = append(ds, dataset{"repeated lattice", x, y})
	x, y = nil, nil
	for b := range 5 {
		cx, cy := float64(r.IntN(400)), float64(r.IntN(400))
		for range 400 {
			x = append(x, 0.25*math.Round(4*(cx+float64(b+1)*r.NormFloat64())))
			y = append(y, 0.25*math.Round(4*(cy+float64(b+1)*r.NormFloat64())))
		}
	}
	ds = append(ds, dataset{"clustered quarters", x, y})
	return ds
}

// TestKNNPathsMatchBruteForce checks every k a vector kernel serves, and beyond, on every
// dataset, the float64 and the compact index, with the kernel on and off, against the brute
// force: the same samples, the same D2 bits, in the same (D2, ID) order.
func TestKNNPathsMatchBruteForce(t *testing.T) {
	ks := []int{1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 40}
	knnPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		sets := append(datasets(), tieDatasets(r)...)
		for _, d := range sets {
			t.Run(d.name, func(t *testing.T) {
				quantum := 0.25
				qx, qy := make([]int32, len(d.x)), make([]int32, len(d.y))
				x, y := make([]float64, len(d.x)), make([]float64, len(d.y))
				for i := range d.x {
					qx[i], qy[i] = int32(math.Round(d.x[i]/quantum)), int32(math.Round(d.y[i]/quantum))
					x[i], y[i] = float64(qx[i])*quantum, float64(qy[i])*quantum
				}
				for _, c := range []struct {
					name string
					ix   *Index
					x, y []float64
				}{{"float64", Build(d.x, d.y), d.x, d.y}, {"compact", BuildCompact(qx, qy, quantum, quantum), x, y}} {
					ps := queries(r, dataset{d.name, c.x, c.y}, c.ix)
					for i := range 20 { // half-quanta: equidistant from lattice points
						ps = append(ps, [2]float64{float64(r.IntN(80))/2 - 0.5, float64(r.IntN(80))/2 - 0.5 + float64(i%2)*0.125})
					}
					var dst []Neighbor
					for _, p := range ps {
						for _, r2 := range radii2(dataset{d.name, c.x, c.y}) {
							all := bruteKNN(c.x, c.y, p[0], p[1], len(c.x), r2)
							for _, k := range ks {
								dst = c.ix.KNN(p[0], p[1], k, r2, dst)
								sameNeighbors(t, fmt.Sprintf("%s KNN(%v, %v, k=%d, maxD2=%g)", c.name, p[0], p[1], k, r2), dst, all[:min(k, len(all))])
							}
						}
					}
				}
			})
		}
	})
}

// TestKNNPathsTies puts the query at the centre of a ring of samples all at one distance, in
// shuffled order, some of them repeated: every k must take the lowest IDs among the tied.
func TestKNNPathsTies(t *testing.T) {
	knnPaths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(23, 24))
		ring := [][2]float64{{3, 0}, {-3, 0}, {0, 3}, {0, -3}}
		var x, y []float64
		for range 9 {
			for _, p := range ring {
				x, y = append(x, p[0]), append(y, p[1])
			}
		}
		perm := r.Perm(len(x))
		sx, sy := make([]float64, len(x)), make([]float64, len(y))
		for i, j := range perm {
			sx[i], sy[i] = x[j], y[j]
		}
		ix := Build(sx, sy)
		for k := 1; k <= 20; k++ {
			got := ix.KNN(0, 0, k, math.Inf(1), nil)
			want := bruteKNN(sx, sy, 0, 0, k, math.Inf(1))
			sameNeighbors(t, fmt.Sprintf("k=%d", k), got, want)
			if !slices.IsSortedFunc(got, func(a, b Neighbor) int { return int(a.ID - b.ID) }) || got[len(got)-1].ID != int32(k-1) {
				t.Fatalf("k=%d: got IDs %v, want 0 to %d", k, got, k-1)
			}
		}
	})
}
