package grid

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// dataset is a set of samples to index, with the box queries are drawn around.
type dataset struct {
	name string
	x, y []float64
}

func uniform(r *rand.Rand, n int, x0, y0, w, h float64) ([]float64, []float64) {
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = x0+w*r.Float64(), y0+h*r.Float64()
	}
	return x, y
}

// datasets are the sample sets every query is checked on.
func datasets() []dataset {
	r := rand.New(rand.NewPCG(1, 2))
	var ds []dataset
	add := func(name string, x, y []float64) { ds = append(ds, dataset{name, x, y}) }

	x, y := uniform(r, 3000, 0, 0, 1000, 1000)
	add("uniform", x, y)

	x, y = nil, nil
	for b := range 6 {
		cx, cy := 1000*r.Float64(), 1000*r.Float64()
		sigma := 0.5 * float64(b+1)
		for range 500 {
			x = append(x, cx+sigma*r.NormFloat64())
			y = append(y, cy+sigma*r.NormFloat64())
		}
	}
	add("clustered", x, y)

	x, y = nil, nil
	px, py := uniform(r, 20, 0, 0, 100, 50)
	for range 2000 {
		p := r.IntN(len(px))
		x, y = append(x, px[p]), append(y, py[p])
	}
	add("duplicates", x, y)

	x, y = make([]float64, 500), make([]float64, 500)
	for i := range x {
		x[i], y[i] = 7.25, -3.5
	}
	add("one point", x, y)

	x, y = make([]float64, 0, 2500), make([]float64, 0, 2500)
	for i := range 50 {
		for j := range 50 {
			x, y = append(x, float64(j)), append(y, float64(i))
		}
	}
	add("lattice", x, y)

	x, _ = uniform(r, 1500, -200, 0, 400, 0)
	add("collinear y", x, slices.Repeat([]float64{12.5}, len(x)))
	_, y = uniform(r, 1500, 0, -5, 0, 10)
	add("collinear x", slices.Repeat([]float64{-3}, len(y)), y)

	add("single", []float64{3.5}, []float64{-8})
	add("empty", nil, nil)

	x, y = uniform(r, 3000, 450000, 5400000, 10000, 10000)
	add("utm absolute", x, y)
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		lx[i], ly[i] = x[i]-455000, y[i]-5405000
	}
	add("utm local", lx, ly)

	// A diagonal line: a full-extent box with samples only along one of its diagonals.
	x, _ = uniform(r, 1000, 0, 0, 500, 0)
	y = make([]float64, len(x))
	for i := range x {
		y[i] = 2 * x[i]
	}
	add("diagonal", x, y)
	return ds
}

// queries are points inside the samples' box, on samples, on cell edges, and far outside.
func queries(r *rand.Rand, d dataset, ix *Index) [][2]float64 {
	minX, minY, maxX, maxY := Bounds(d.x, d.y)
	if len(d.x) == 0 {
		minX, minY, maxX, maxY = -1, -1, 1, 1
	}
	w, h := max(maxX-minX, 1), max(maxY-minY, 1)
	cx, cy := (minX+maxX)/2, (minY+maxY)/2
	var q [][2]float64
	for range 60 {
		q = append(q, [2]float64{minX - 0.1*w + 1.2*w*r.Float64(), minY - 0.1*h + 1.2*h*r.Float64()})
	}
	for i := 0; i < len(d.x) && i < 20; i++ {
		j := r.IntN(len(d.x))
		q = append(q, [2]float64{d.x[j], d.y[j]})
	}
	l := ix.Layout
	for range 10 {
		c, row := r.IntN(l.Cols+1), r.IntN(l.Rows+1)
		q = append(q, [2]float64{l.MinX + float64(c)*l.Cell, l.MinY + float64(row)*l.Cell})
	}
	for _, far := range []float64{3, 1e3, 1e6} {
		for _, dir := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-0.6, 0.8}} {
			q = append(q, [2]float64{cx + far*w*dir[0], cy + far*h*dir[1]})
		}
	}
	return q
}

func d2(x, y []float64, i int, qx, qy float64) float64 {
	dx, dy := x[i]-qx, y[i]-qy
	return float64(dx*dx) + float64(dy*dy)
}

// bruteKNN is the reference: every sample within maxD2, sorted by (D2, ID), the first k.
func bruteKNN(x, y []float64, qx, qy float64, k int, maxD2 float64) []Neighbor {
	all := bruteWithin(x, y, qx, qy, maxD2)
	slices.SortFunc(all, func(a, b Neighbor) int {
		if c := cmp.Compare(a.D2, b.D2); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return all[:min(k, len(all))]
}

// bruteWithin is the reference: every sample with D2 <= r2, in input order.
func bruteWithin(x, y []float64, qx, qy, r2 float64) []Neighbor {
	var nb []Neighbor
	for i := range x {
		if v := d2(x, y, i, qx, qy); v <= r2 {
			nb = append(nb, Neighbor{int32(i), v})
		}
	}
	return nb
}

// bruteEllipse is gdal_grid's ellipse test written out from its source (alg/gdalgrid.cpp).
func bruteEllipse(x, y []float64, qx, qy, r1, r2, angle float64) []Neighbor {
	r1sq, r2sq := r1*r1, r2*r2
	r12 := r1sq * r2sq
	a := angle * (math.Pi / 180)
	c, s := math.Cos(a), math.Sin(a)
	var nb []Neighbor
	for i := range x {
		dx, dy := x[i]-qx, y[i]-qy
		rx, ry := dx, dy
		if a != 0 {
			rx = float64(dx*c) + float64(dy*s)
			ry = float64(dy*c) - float64(dx*s)
		}
		if float64(r2sq*rx*rx)+float64(r1sq*ry*ry) <= r12 {
			nb = append(nb, Neighbor{int32(i), d2(x, y, i, qx, qy)})
		}
	}
	return nb
}

func sameNeighbors(t *testing.T, what string, got, want []Neighbor) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		n := min(len(got), len(want), 5)
		t.Fatalf("%s: got %d neighbours, want %d\n got  %v...\n want %v...", what, len(got), len(want), got[:n], want[:n])
	}
}

// radii2 are squared search radii for a dataset: none, the squared distance to the ~10th
// sample around the middle, and tiny.
func radii2(d dataset) []float64 {
	minX, minY, maxX, maxY := Bounds(d.x, d.y)
	ext := max(maxX-minX, maxY-minY, 1)
	return []float64{math.Inf(1), sq(ext / 20), sq(ext / 300), 0}
}

func TestKNNMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			ix := Build(d.x, d.y)
			var dst []Neighbor
			for _, q := range queries(r, d, ix) {
				for _, k := range []int{1, 2, 15, 64, len(d.x) + 3} {
					for _, r2 := range radii2(d) {
						dst = ix.KNN(q[0], q[1], k, r2, dst)
						want := bruteKNN(d.x, d.y, q[0], q[1], k, r2)
						sameNeighbors(t, fmt.Sprintf("KNN(%v, %v, k=%d, maxD2=%g)", q[0], q[1], k, r2), dst, want)
					}
				}
			}
		})
	}
}

func TestWithinMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			ix := Build(d.x, d.y)
			var dst []Neighbor
			for _, q := range queries(r, d, ix) {
				for _, r2 := range radii2(d) {
					dst = ix.Within(q[0], q[1], r2, dst)
					want := bruteWithin(d.x, d.y, q[0], q[1], r2)
					sameNeighbors(t, fmt.Sprintf("Within(%v, %v, %g)", q[0], q[1], r2), dst, want)
				}
			}
		})
	}
}

func TestEllipseMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			ix := Build(d.x, d.y)
			rs := radii2(d)
			r1, r2 := math.Sqrt(rs[1]), math.Sqrt(rs[2])
			axes := [][2]float64{{r1, r2}, {r2, r1}, {r1, r1}, {-r1, r2}, {0, r1}, {0, 0}, {1e300, 1e300}}
			var dst []Neighbor
			for _, q := range queries(r, d, ix) {
				for _, ax := range axes {
					for _, angle := range []float64{0, 30, 90, -60, 200, 360} {
						dst = ix.Ellipse(q[0], q[1], ax[0], ax[1], angle, dst)
						want := bruteEllipse(d.x, d.y, q[0], q[1], ax[0], ax[1], angle)
						sameNeighbors(t, fmt.Sprintf("Ellipse(%v, %v, %g, %g, %g)", q[0], q[1], ax[0], ax[1], angle), dst, want)
					}
				}
			}
		})
	}
}

// TestNaNQueries checks that queries with no meaning answer nothing rather than loop or panic.
func TestNaNQueries(t *testing.T) {
	x, y := uniform(rand.New(rand.NewPCG(1, 1)), 100, 0, 0, 1, 1)
	ix := Build(x, y)
	nan := math.NaN()
	if got := ix.KNN(nan, 0.5, 5, math.Inf(1), nil); len(got) != 0 {
		t.Errorf("KNN at NaN: %v", got)
	}
	if got := ix.KNN(0.5, 0.5, 5, nan, nil); len(got) != 0 {
		t.Errorf("KNN with NaN bound: %v", got)
	}
	if got := ix.KNN(0.5, 0.5, 0, math.Inf(1), nil); len(got) != 0 {
		t.Errorf("KNN with k=0: %v", got)
	}
	if got := ix.Within(0.5, nan, 1, nil); len(got) != 0 {
		t.Errorf("Within at NaN: %v", got)
	}
	if got := ix.Within(0.5, 0.5, -1, nil); len(got) != 0 {
		t.Errorf("Within with negative r2: %v", got)
	}
	if got := ix.Ellipse(nan, 0.5, 1, 1, 0, nil); len(got) != 0 {
		t.Errorf("Ellipse at NaN: %v", got)
	}
}

func TestQueriesDoNotAllocate(t *testing.T) {
	x, y := uniform(rand.New(rand.NewPCG(9, 9)), 10000, 0, 0, 100, 100)
	ix := Build(x, y)
	dst := make([]Neighbor, 0, 10000)
	for name, query := range map[string]func(){
		"KNN":        func() { dst = ix.KNN(50, 50, 64, math.Inf(1), dst) },
		"KNN far":    func() { dst = ix.KNN(-1e5, 3e4, 15, math.Inf(1), dst) },
		"Within":     func() { dst = ix.Within(50, 50, 100, dst) },
		"Within all": func() { dst = ix.Within(50, 50, math.Inf(1), dst) },
		"Ellipse":    func() { dst = ix.Ellipse(50, 50, 10, 5, 30, dst) },
	} {
		if a := testing.AllocsPerRun(20, query); a != 0 {
			t.Errorf("%s: %v allocations per query", name, a)
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	x, y := uniform(r, 5000, 0, 0, 100, 100)
	ix := Build(x, y)
	q := make([][2]float64, 200)
	for i := range q {
		q[i] = [2]float64{120*r.Float64() - 10, 120*r.Float64() - 10}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []Neighbor
			for i := w; i < len(q); i += 4 {
				dst = ix.KNN(q[i][0], q[i][1], 15, math.Inf(1), dst)
				if !slices.Equal(dst, bruteKNN(x, y, q[i][0], q[i][1], 15, math.Inf(1))) {
					errs <- fmt.Sprintf("KNN at %v differs from brute force", q[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSamplesOnCellEdges puts samples exactly on the grid's cell edges and asks for radii and
// k-th distances equal to their own distances: rounding in the disk's cell spans must never
// leave such a sample's cell out.
func TestSamplesOnCellEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	const n, w, h = 2000, 97.3, 61.1
	l := NewLayout(0, 0, w, h, n)
	x, y := []float64{0, w}, []float64{0, h} // the corners fix the box, so Build gets l again
	for len(x) < n {
		c, row := r.IntN(l.Cols), r.IntN(l.Rows)
		ex, ey := l.MinX+float64(c)*l.Cell, l.MinY+float64(row)*l.Cell
		if ex > w || ey > h {
			continue
		}
		switch r.IntN(3) {
		case 0:
			x, y = append(x, ex), append(y, ey)
		case 1:
			x, y = append(x, ex), append(y, h*r.Float64())
		default:
			x, y = append(x, w*r.Float64()), append(y, ey)
		}
	}
	ix := Build(x, y)
	if ix.Layout != l {
		t.Fatalf("Build's layout %+v, want %+v", ix.Layout, l)
	}
	var dst []Neighbor
	for range 3000 {
		s := r.IntN(n)
		// A query off the sample along an axis or a diagonal, by an awkward distance.
		dx, dy := l.Cell*3*r.Float64(), 0.0
		switch r.IntN(3) {
		case 0:
			dx, dy = 0, dx
		case 1:
			dy = dx * r.Float64()
		}
		if r.IntN(2) == 0 {
			dx, dy = -dx, -dy
		}
		qx, qy := x[s]-dx, y[s]-dy
		r2 := d2(x, y, s, qx, qy)
		dst = ix.Within(qx, qy, r2, dst)
		sameNeighbors(t, fmt.Sprintf("Within(%v, %v, %v)", qx, qy, r2), dst, bruteWithin(x, y, qx, qy, r2))
		want := bruteKNN(x, y, qx, qy, n, r2)
		dst = ix.KNN(qx, qy, len(want), math.Inf(1), dst)
		sameNeighbors(t, fmt.Sprintf("KNN(%v, %v, %d)", qx, qy, len(want)), dst, want)
	}
}

// A compact index answers every query as Build's index over the same coordinates does, and
// as the brute force does: the same layout, order and starts, the same neighbours and D2.
func TestCompactIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, d := range datasets() {
		for _, quantum := range []float64{0.01, 0.25, 3} {
			t.Run(fmt.Sprintf("%s/%g", d.name, quantum), func(t *testing.T) {
				qx, qy := make([]int32, len(d.x)), make([]int32, len(d.y))
				x, y := make([]float64, len(d.x)), make([]float64, len(d.y))
				for i := range d.x {
					qx[i], qy[i] = int32(math.Round(d.x[i]/quantum)), int32(math.Round(d.y[i]/(2*quantum)))
					x[i], y[i] = float64(qx[i])*quantum, float64(qy[i])*(2*quantum)
				}
				ix := BuildCompact(qx, qy, quantum, 2*quantum)
				plain := Build(x, y)
				if ix.Layout != plain.Layout || !slices.Equal(ix.Order, plain.Order) || !slices.Equal(ix.Start, plain.Start) {
					t.Fatal("the compact index is not Build's over the same coordinates")
				}
				for j := range int32(ix.Len()) {
					if cx, cy := ix.At(j); cx != plain.X[j] || cy != plain.Y[j] {
						t.Fatalf("At(%d) = %v,%v, want %v,%v", j, cx, cy, plain.X[j], plain.Y[j])
					}
				}
				q := dataset{d.name, x, y}
				var dst []Neighbor
				for _, p := range queries(r, q, ix) {
					for _, r2 := range radii2(q) {
						dst = ix.KNN(p[0], p[1], 15, r2, dst)
						sameNeighbors(t, fmt.Sprintf("KNN(%v, %v, 15, %g)", p[0], p[1], r2), dst, bruteKNN(x, y, p[0], p[1], 15, r2))
						dst = ix.Within(p[0], p[1], r2, dst)
						sameNeighbors(t, fmt.Sprintf("Within(%v, %v, %g)", p[0], p[1], r2), dst, bruteWithin(x, y, p[0], p[1], r2))
					}
					r1, r2 := math.Sqrt(radii2(q)[1]), math.Sqrt(radii2(q)[2])
					dst = ix.Ellipse(p[0], p[1], r1, r2, 30, dst)
					sameNeighbors(t, fmt.Sprintf("Ellipse(%v, %v)", p[0], p[1]), dst, bruteEllipse(x, y, p[0], p[1], r1, r2, 30))
				}
			})
		}
	}
}
