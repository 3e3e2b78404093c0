package grid

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func TestSortByKeyIsAStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 21))
	// Cell counts that take zero, one, two (even) and three (odd) radix passes.
	for _, cells := range []int{1, 2, 1000, 1 << 11, 1<<11 + 1, 1 << 22, 1<<22 + 5, 1 << 30} {
		for _, n := range []int{0, 1, 5000} {
			keys := make([]uint32, n)
			for i := range keys {
				// Few distinct keys too, so that stability is tested on long runs.
				if i%2 == 0 {
					keys[i] = uint32(r.IntN(cells))
				} else {
					keys[i] = uint32(r.IntN(min(cells, 7)))
				}
			}
			sorted, order := make([]uint32, n), make([]int32, n)
			SortByKey(keys, cells, sorted, order)

			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
			if !slices.Equal(order, want) {
				t.Fatalf("cells=%d n=%d: order is not the stable sort by key", cells, n)
			}
			for j, i := range order {
				if sorted[j] != keys[i] {
					t.Fatalf("cells=%d n=%d: sorted[%d]=%d but keys[order[%d]]=%d", cells, n, j, sorted[j], j, keys[i])
				}
			}
		}
	}
}

// TestSortByKeyInChunks sorts enough pairs for several concurrent chunks (as many as the CPUs
// allow, and 3 forced) and checks the result is the stable sort whatever their number.
func TestSortByKeyInChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 27))
	n, cells := 5*minChunk+123, 1<<20+7
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = uint32(r.IntN(cells) >> (i % 3 * 9)) // long runs of equal small keys too
	}
	want := make([]int32, n)
	for i := range want {
		want[i] = int32(i)
	}
	slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		sorted, order := make([]uint32, n), make([]int32, n)
		SortByKey(keys, cells, sorted, order)
		runtime.GOMAXPROCS(old)
		if !slices.Equal(order, want) {
			t.Fatalf("GOMAXPROCS=%d: order is not the stable sort by key", procs)
		}
		for j, i := range order {
			if sorted[j] != keys[i] {
				t.Fatalf("GOMAXPROCS=%d: sorted[%d]=%d but keys[order[%d]]=%d", procs, j, sorted[j], j, keys[i])
			}
		}
	}
}

func TestCountByKeyAndExclusiveScan(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 23))
	const cells, n = 300, 2000
	keys := make([]uint32, n)
	want := make([]int32, cells)
	for i := range keys {
		keys[i] = uint32(r.IntN(cells / 3)) // leaves empty cells at the end
		want[keys[i]]++
	}
	slices.Sort(keys)
	counts := slices.Repeat([]int32{-1}, cells) // stale values must be overwritten
	CountByKey(keys, counts)
	if !slices.Equal(counts, want) {
		t.Fatalf("counts %v, want %v", counts, want)
	}
	start := make([]int32, cells+1)
	ExclusiveScan(counts, start)
	var sum int32
	for c := range cells {
		if start[c] != sum {
			t.Fatalf("start[%d] = %d, want %d", c, start[c], sum)
		}
		sum += want[c]
	}
	if start[cells] != n {
		t.Fatalf("start[cells] = %d, want %d", start[cells], n)
	}
}

// TestBuildInvariants checks the index arrays of every dataset against their definitions.
func TestBuildInvariants(t *testing.T) {
	x, y := uniform(rand.New(rand.NewPCG(28, 29)), 4*minChunk, -50, 20, 100, 30)
	sets := append(datasets(), dataset{"large", x, y})
	// The same samples sorted by y, as canonical samples are, take the build by rows.
	for _, d := range sets {
		sorted := dataset{d.name + " by y", slices.Clone(d.x), slices.Clone(d.y)}
		idx := make([]int, len(d.x))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(d.y[a], d.y[b]) })
		for j, i := range idx {
			sorted.x[j], sorted.y[j] = d.x[i], d.y[i]
		}
		minX, minY, maxX, maxY := Bounds(d.x, d.y)
		l := NewLayout(minX, minY, maxX, maxY, len(d.x))
		if _, _, _, _, ok := orderByRow(context.Background(), sorted.x, sorted.y, 1, 1, l); !ok {
			t.Fatalf("%s: not taken as ascending rows", sorted.name)
		}
		if _, _, _, _, ok := orderByRow(context.Background(), d.x, d.y, 1, 1, l); ok && l.Rows > 1 && !slices.IsSorted(d.y) {
			t.Fatalf("%s: taken as ascending rows", d.name)
		}
		sets = append(sets, sorted)
	}
	for _, d := range sets {
		t.Run(d.name, func(t *testing.T) {
			ix := Build(d.x, d.y)
			n, l := len(d.x), ix.Layout
			if len(ix.Start) != l.Cells()+1 || ix.Start[0] != 0 || int(ix.Start[l.Cells()]) != n {
				t.Fatalf("Start has %d entries from %d to %d; want %d from 0 to %d",
					len(ix.Start), ix.Start[0], ix.Start[len(ix.Start)-1], l.Cells()+1, n)
			}
			seen := make([]bool, n)
			for c := range l.Cells() {
				lo, hi := ix.Start[c], ix.Start[c+1]
				for j := lo; j < hi; j++ {
					i := ix.Order[j]
					if seen[i] {
						t.Fatalf("sample %d appears twice in Order", i)
					}
					seen[i] = true
					if j > lo && ix.Order[j-1] >= i {
						t.Fatalf("cell %d: Order not in input order (%d then %d)", c, ix.Order[j-1], i)
					}
					if got := l.Key(d.x[i], d.y[i]); int(got) != c {
						t.Fatalf("sample %d has key %d but sits in cell %d", i, got, c)
					}
					if ix.X[j] != d.x[i] || ix.Y[j] != d.y[i] {
						t.Fatalf("X,Y[%d] = %v,%v; sample %d is at %v,%v", j, ix.X[j], ix.Y[j], i, d.x[i], d.y[i])
					}
				}
			}
			if slices.Contains(seen, false) {
				t.Fatalf("Order is not a permutation of the samples")
			}
		})
	}
}

func TestLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 25))
	for _, d := range datasets() {
		t.Run(d.name, func(t *testing.T) {
			minX, minY, maxX, maxY := Bounds(d.x, d.y)
			n := len(d.x)
			l := NewLayout(minX, minY, maxX, maxY, n)
			if !(l.Cell > 0) || math.IsInf(l.InvCell, 0) || l.Cols < 1 || l.Rows < 1 {
				t.Fatalf("layout %+v is not a usable grid", l)
			}
			// O(n) cells: at most about 3 per target cell, plus the one a point box gets.
			if target := max(1, n/SamplesPerCell); l.Cells() > 3*target+2 {
				t.Fatalf("layout %+v has %d cells for %d samples", l, l.Cells(), n)
			}
			if n == 0 {
				return
			}
			// The grid covers the box, and a sample's key is the cell that holds it.
			if l.MinX != minX || l.MinY != minY ||
				l.MinX+float64(l.Cols)*l.Cell < maxX || l.MinY+float64(l.Rows)*l.Cell < maxY {
				t.Fatalf("layout %+v does not cover the box %v %v %v %v", l, minX, minY, maxX, maxY)
			}
			tol := 1e-9 * l.Cell
			for range 200 {
				i := r.IntN(n)
				k := int(l.Key(d.x[i], d.y[i]))
				col, row := k%l.Cols, k/l.Cols
				x0, y0 := l.MinX+float64(col)*l.Cell, l.MinY+float64(row)*l.Cell
				if d.x[i] < x0-tol || d.x[i] > x0+l.Cell+tol || d.y[i] < y0-tol || d.y[i] > y0+l.Cell+tol {
					t.Fatalf("sample %v,%v has key %d (cell %d,%d) of layout %+v", d.x[i], d.y[i], k, col, row, l)
				}
			}
		})
	}
}

// TestLayoutDensity checks that an area of uniform samples gets about SamplesPerCell per cell,
// and a line of them no more cells than samples.
func TestLayoutDensity(t *testing.T) {
	for _, tc := range []struct {
		w, h float64
		n    int
	}{{1000, 1000, 100000}, {10, 5000, 100000}, {1, 1e-12, 100000}, {1000, 0, 100000}} {
		l := NewLayout(0, 0, tc.w, tc.h, tc.n)
		perCell := float64(tc.n) / float64(l.Cells())
		if tc.h*tc.w > 1 && (perCell < SamplesPerCell/1.5 || perCell > SamplesPerCell*1.5) {
			t.Errorf("%gx%g box, %d samples: %+v gives %.2f per cell", tc.w, tc.h, tc.n, l, perCell)
		}
		if l.Cells() > 3*tc.n/SamplesPerCell+1 {
			t.Errorf("%gx%g box, %d samples: %+v has %d cells", tc.w, tc.h, tc.n, l, l.Cells())
		}
	}
}

func TestLayoutDegenerateBoxes(t *testing.T) {
	inf := math.Inf(1)
	for _, b := range [][4]float64{
		{inf, inf, -inf, -inf}, // Bounds of no samples
		{1, 2, 1, 2},
		{0, 0, 1e-320, 1e-320},
		{-1e308, -1e308, 1e308, 1e308},
		{math.NaN(), 0, 1, 1},
	} {
		for _, n := range []int{0, 1, 1000} {
			l := NewLayout(b[0], b[1], b[2], b[3], n)
			if !(l.Cell > 0) || math.IsInf(l.InvCell, 0) || l.Cols < 1 || l.Rows < 1 ||
				math.IsNaN(l.MinX) || math.IsInf(l.MinX, 0) || l.Cells() > 3*n+2 {
				t.Errorf("box %v, n=%d: layout %+v", b, n, l)
			}
			if k := l.Key(b[2], b[3]); int(k) >= l.Cells() {
				t.Errorf("box %v, n=%d: key %d outside %d cells", b, n, k, l.Cells())
			}
		}
	}
}
