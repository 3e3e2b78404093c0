//go:build cuda

package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
)

func TestProblemLayoutAgrees(t *testing.T) {
	for _, c := range []struct {
		name string
		size func(*cuda.Device, cuda.Buffer) error
		want int64
	}{
		{"Problem", problemSize, int64(unsafe.Sizeof(problem{}))},
		{"FarTree", farTreeSize, int64(unsafe.Sizeof(farTree{}))},
	} {
		var got [1]int64
		err := testDev.Do(func() error {
			out, err := cuda.AllocN[int64](1)
			if err != nil {
				return err
			}
			defer out.Free()
			if err := c.size(testDev, out); err != nil {
				return err
			}
			return cuda.Download(got[:], out, 0)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != c.want {
			t.Errorf("sizeof(%s) is %d on the device, %d in Go", c.name, got[0], c.want)
		}
	}
}

// stageSets are the coordinate sets the build stages are checked on: the test datasets, a
// single sample, and a set whose size is no multiple of any tile.
func stageSets() [][2][]float64 {
	var sets [][2][]float64
	for _, d := range testSets() {
		sets = append(sets, [2][]float64{d.samples.X, d.samples.Y})
	}
	one := [2][]float64{{3.5}, {-2}}
	u := uniformSet(21, 300_007, -5e3, 2e3, 1e4, 8, 8).samples
	return append(sets, one, [2][]float64{u.X, u.Y})
}

func TestBuildStagesMatchGrid(t *testing.T) {
	for _, xy := range stageSets() {
		x, y := xy[0], xy[1]
		n := len(x)
		minX, minY, maxX, maxY := grid.Bounds(x, y)
		l := grid.NewLayout(minX, minY, maxX, maxY, n)
		wantKeys := make([]uint32, n)
		grid.Keys(x, y, l, wantKeys)
		wantSorted, wantOrder := make([]uint32, n), make([]int32, n)
		grid.SortByKey(wantKeys, l.Cells(), wantSorted, wantOrder)
		wantCounts := make([]int32, l.Cells())
		grid.CountByKey(wantSorted, wantCounts)
		wantStart := make([]int32, l.Cells()+1)
		grid.ExclusiveScan(wantCounts, wantStart)

		var box [4]float64
		keys, sorted := make([]uint32, n), make([]uint32, n)
		order, counts, start := make([]int32, n), make([]int32, l.Cells()), make([]int32, l.Cells()+1)
		err := testDev.Do(func() error {
			bx, err := cuda.UploadNew(x)
			if err != nil {
				return err
			}
			defer bx.Free()
			by, err := cuda.UploadNew(y)
			if err != nil {
				return err
			}
			defer by.Free()
			b := newBuilder(testDev)
			defer b.free()
			if box[0], box[1], box[2], box[3], err = b.bounds(bx, by, n); err != nil {
				return err
			}
			if err := b.reserve(n, l.Cells()); err != nil {
				return err
			}
			if err := b.cellKeys(bx, by, n, l, b.keys); err != nil {
				return err
			}
			if err := b.sortPairs(b.keys, n, l.Cells(), b.sorted, b.ix.order); err != nil {
				return err
			}
			if err := b.countByKey(b.sorted, n, l.Cells(), b.counts); err != nil {
				return err
			}
			if err := b.scan(b.counts, b.ix.start, l.Cells(), cuda.At[int32](b.ix.start, l.Cells())); err != nil {
				return err
			}
			for _, dl := range []error{cuda.Download(keys, b.keys, 0), cuda.Download(sorted, b.sorted, 0),
				cuda.Download(order, b.ix.order, 0), cuda.Download(counts, b.counts, 0), cuda.Download(start, b.ix.start, 0)} {
				if dl != nil {
					return dl
				}
			}
			return cuda.Synchronize("build stages")
		})
		if err != nil {
			t.Fatal(err)
		}
		if box != [4]float64{minX, minY, maxX, maxY} {
			t.Errorf("n=%d: bounds %v, want %v", n, box, [4]float64{minX, minY, maxX, maxY})
		}
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("n=%d: %d keys differ from grid.Keys", n, countDiff(keys, wantKeys))
		}
		checkPermutation(t, order)
		if !slices.Equal(sorted, wantSorted) || !slices.Equal(order, wantOrder) {
			t.Errorf("n=%d: sorted pairs differ from grid.SortByKey (%d keys, %d indices)", n,
				countDiff(sorted, wantSorted), countDiff(order, wantOrder))
		}
		var sum int64
		for _, c := range counts {
			sum += int64(c)
		}
		if sum != int64(n) {
			t.Errorf("n=%d: counts sum to %d", n, sum)
		}
		if !slices.Equal(counts, wantCounts) {
			t.Errorf("n=%d: %d cell counts differ from grid.CountByKey", n, countDiff(counts, wantCounts))
		}
		if !slices.Equal(start, wantStart) {
			t.Errorf("n=%d: %d cell starts differ from grid.ExclusiveScan", n, countDiff(start, wantStart))
		}
	}
}

func countDiff[T comparable](a, b []T) int {
	d := 0
	for i := range a {
		if a[i] != b[i] {
			d++
		}
	}
	return d
}

func checkPermutation(t *testing.T, order []int32) {
	t.Helper()
	seen := make([]bool, len(order))
	for _, i := range order {
		if i < 0 || int(i) >= len(order) || seen[i] {
			t.Errorf("order is not a permutation: index %d", i)
			return
		}
		seen[i] = true
	}
}

// TestSortPairsIsStable sorts key sets that stress the radix sort (one pass, three passes,
// all keys equal, descending, runs) and checks against a stable sort written here.
func TestSortPairsIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type keySet struct {
		name  string
		cells int
		keys  []uint32
	}
	n := 123_457
	var sets []keySet
	for _, cells := range []int{200, 1 << 16, 1<<24 + 3} {
		k := make([]uint32, n)
		for i := range k {
			k[i] = uint32(rng.IntN(cells))
		}
		sets = append(sets, keySet{"random", cells, k})
	}
	equal, desc, runs := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	for i := range n {
		equal[i] = 77
		desc[i] = uint32(n - 1 - i)
		runs[i] = uint32(i / 1000 * 7919 % 100_000)
	}
	sets = append(sets, keySet{"equal", 100, equal}, keySet{"descending", n, desc}, keySet{"runs", 100_000, runs})
	for _, s := range sets {
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortStableFunc(idx, func(a, b int32) int { return int(s.keys[a]) - int(s.keys[b]) })
		sorted, order := make([]uint32, n), make([]int32, n)
		err := testDev.Do(func() error {
			b := newBuilder(testDev)
			defer b.free()
			if err := b.reserve(n, s.cells); err != nil {
				return err
			}
			if err := cuda.Upload(b.keys, s.keys); err != nil {
				return err
			}
			if err := b.sortPairs(b.keys, n, s.cells, b.sorted, b.ix.order); err != nil {
				return err
			}
			if err := cuda.Download(sorted, b.sorted, 0); err != nil {
				return err
			}
			return cuda.Download(order, b.ix.order, 0)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(order, idx) {
			t.Errorf("%s keys (%d cells): %d indices out of stable order", s.name, s.cells, countDiff(order, idx))
		}
		for j, i := range order {
			if sorted[j] != s.keys[i] {
				t.Errorf("%s keys: sorted key %d is %d, want %d", s.name, j, sorted[j], s.keys[i])
				break
			}
		}
	}
}

func TestScanAgreesWithLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2047, 2048, 2049, 1_234_567} {
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(rng.IntN(100))
		}
		want := make([]int32, n)
		var sum int32
		for i, v := range in {
			want[i] = sum
			sum += v
		}
		got := make([]int32, n+1)
		err := testDev.Do(func() error {
			b := newBuilder(testDev)
			defer b.free()
			if err := b.reserve(n, 1); err != nil {
				return err
			}
			in32, err := cuda.UploadNew(in)
			if err != nil {
				return err
			}
			defer in32.Free()
			out, err := cuda.AllocN[int32](n + 1)
			if err != nil {
				return err
			}
			defer out.Free()
			if err := b.scan(in32, out, n, cuda.At[int32](out, n)); err != nil {
				return err
			}
			return cuda.Download(got, out, 0)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[:n], want) || got[n] != sum {
			t.Errorf("n=%d: %d prefix sums wrong, total %d want %d", n, countDiff(got[:n], want), got[n], sum)
		}
	}
}

// knnOnDevice runs knn_list for every node of the dataset's target, k neighbours each.
func knnOnDevice(tb testing.TB, d dataset, k int) (ids []int32, d2 []float64, cnt []int32) {
	tb.Helper()
	p := &interp.Problem{Samples: d.samples, Target: d.target}
	count := d.target.Cols * d.target.Rows
	ids, d2, cnt = make([]int32, k*count), make([]float64, k*count), make([]int32, count)
	err := testDev.Do(func() error {
		ix, err := indexSamples(testDev, d.samples, nil)
		if err != nil {
			return err
		}
		defer ix.free()
		h := deviceProblem(problem{N: int64(ix.n), NQ: int64(k), K: int64(k), HitD2: exactHitD2}, ix, p.Target, p.Samples.OriginX, p.Samples.OriginY)
		pb, err := cuda.UploadNew([]problem{h})
		if err != nil {
			return err
		}
		defer pb.Free()
		bi, err := cuda.AllocN[int32](k * count)
		if err != nil {
			return err
		}
		defer bi.Free()
		bd, err := cuda.AllocN[float64](k * count)
		if err != nil {
			return err
		}
		defer bd.Free()
		bc, err := cuda.AllocN[int32](count)
		if err != nil {
			return err
		}
		defer bc.Free()
		if err := knnList(testDev, kmax(int64(k)), pb, 0, 0, count, cuda.Buffer{}, bi, bd, bc); err != nil {
			return err
		}
		if err := cuda.Download(ids, bi, 0); err != nil {
			return err
		}
		if err := cuda.Download(d2, bd, 0); err != nil {
			return err
		}
		return cuda.Download(cnt, bc, 0)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ids, d2, cnt
}

// TestKNNMatchesGrid checks every node's neighbour list, IDs and squared distances bit for
// bit, against grid's exact kNN (itself proven against brute force in package grid).
func TestKNNMatchesGrid(t *testing.T) {
	sets := testSets()
	for _, k := range []int{1, 7, 15, 40, 64} {
		for _, d := range sets {
			ids, d2, cnt := knnOnDevice(t, d, k)
			ix := grid.Build(d.samples.X, d.samples.Y)
			count := d.target.Cols * d.target.Rows
			p := &interp.Problem{Samples: d.samples, Target: d.target}
			bad := 0
			var nb []grid.Neighbor
			for j := range count {
				x, y := p.NodeXY(j%d.target.Cols, j/d.target.Cols)
				nb = ix.KNN(x, y, k, math.Inf(1), nb)
				ok := int(cnt[j]) == len(nb)
				for i := 0; ok && i < len(nb); i++ {
					ok = ids[i*count+j] == nb[i].ID && d2[i*count+j] == nb[i].D2
				}
				if !ok {
					if bad == 0 {
						t.Errorf("%s k=%d node %d: got %d neighbours, want %v", d.name, k, j, cnt[j], nb)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%s k=%d: %d of %d nodes differ", d.name, k, bad, count)
			}
		}
	}
}

// TestBruteKNNAgrees checks the float32 brute-force yardstick: its k-th distances within
// float32 rounding of the exact ones.
func TestBruteKNNAgrees(t *testing.T) {
	d := uniformSet(31, 30000, 0, 0, 1000, 40, 30)
	p := &interp.Problem{Samples: d.samples, Target: d.target}
	count := d.target.Cols * d.target.Rows
	const k = 15
	d2 := make([]float32, k*count)
	err := testDev.Do(func() error {
		ix, err := indexSamples(testDev, d.samples, nil)
		if err != nil {
			return err
		}
		defer ix.free()
		h := deviceProblem(problem{N: int64(ix.n), NQ: nearCorr, K: 1, HitD2: exactHitD2, Power: 2}, ix, p.Target, p.Samples.OriginX, p.Samples.OriginY)
		pb, err := cuda.UploadNew([]problem{h})
		if err != nil {
			return err
		}
		defer pb.Free()
		c, err := nodeXYOnDevice(pb, count)
		if err != nil {
			return err
		}
		defer c.free()
		pos, err := cuda.AllocN[int32](k * count)
		if err != nil {
			return err
		}
		defer pos.Free()
		bd, err := cuda.AllocN[float32](k * count)
		if err != nil {
			return err
		}
		defer bd.Free()
		if err := knnBruteF32(testDev, pb, ix.s32, c.px, c.py, count, pos, bd); err != nil {
			return err
		}
		return cuda.Download(d2, bd, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := grid.Build(d.samples.X, d.samples.Y)
	var nb []grid.Neighbor
	for j := range count {
		x, y := p.NodeXY(j%d.target.Cols, j/d.target.Cols)
		nb = ix.KNN(x, y, k, math.Inf(1), nb)
		for i := range k {
			got, want := math.Sqrt(float64(d2[i*count+j])), math.Sqrt(nb[i].D2)
			if math.Abs(got-want) > 1e-3 {
				t.Fatalf("node %d: neighbour %d at %g, want %g", j, i, got, want)
			}
		}
	}
}

// nodeXYOnDevice runs node_prep over count nodes, for kernels that take node coordinates.
func nodeXYOnDevice(pb cuda.Buffer, count int) (*chunker, error) {
	c := &chunker{size: count}
	var err error
	for _, b := range []*cuda.Buffer{&c.px, &c.py, &c.pc, &c.pc0, &c.pd2, &c.nearD2} {
		n := count
		if b == &c.nearD2 {
			n *= nearCorr
		}
		if *b, err = cuda.AllocN[float64](n); err != nil {
			c.free()
			return nil, err
		}
	}
	if c.hit, err = cuda.AllocN[int32](count); err != nil {
		c.free()
		return nil, err
	}
	if c.nearPos, err = cuda.AllocN[int32](nearCorr * count); err != nil {
		c.free()
		return nil, err
	}
	err = nodePrep(testDev, 16, pb, 0, 0, count, cuda.Buffer{}, c.px, c.py, c.pc, c.pc0, c.pd2, c.hit, c.nearPos, c.nearD2)
	return c, err
}

// TestIndexMemory: at its build's peak (the samples uploaded, the cells built, the gather
// done), the index of a form that weighs no float32 samples takes at most indexBytes (56 bytes
// a sample and 8 a cell), where separate temporaries and float32 samples took 96 a sample: 1e9
// samples then build on an 80 GB GPU.
func TestIndexMemory(t *testing.T) {
	const n = 1 << 24
	d := uniformSet(7, n, 0, 0, 10000, 10, 10)
	var free0, atPeak int64
	var cells int
	err := testDev.Do(func() error {
		free0 = cuda.FreeMemory()
		ix, err := indexSamplesOn(testDev, d.samples, nil, nil, false, func(x, y, z buf, box [4]float64) error {
			atPeak = cuda.FreeMemory()
			return nil
		})
		if err != nil {
			return err
		}
		cells = ix.layout.Cells()
		ix.free()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// the driver rounds each of the dozen allocations up to its 2 MiB pages
	used, limit := free0-atPeak, indexBytes(n, false)+32<<20
	t.Logf("%d samples, %d cells: %.1f bytes a sample at the peak", n, cells, float64(used)/n)
	if used > limit {
		t.Errorf("the build took %d bytes of device memory at its peak, more than %d", used, limit)
	}
}

// TestEngineHoldsWhatFits: the engine holds a problem whose index fits the device's free
// memory and refuses one whose index does not, naming the memory.
func TestEngineHoldsWhatFits(t *testing.T) {
	e := NewEngine(testDev)
	alg := mustParse(t, "aidw:max_points=12")
	var free int64
	testDev.Do(func() error { free = cuda.FreeMemory(); return nil })
	fits := int(free / 80)
	if why := e.WhyNotHold(alg, fits); why != "" {
		t.Errorf("%d samples (%d bytes free): %s", fits, free, why)
	}
	if why := e.WhyNotHold(alg, int(free/40)); !strings.Contains(why, "of GPU memory") {
		t.Errorf("%d samples (%d bytes free): %q", free/40, free, why)
	}
}
