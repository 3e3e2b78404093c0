package sample

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Canonicalize sorts the samples by y, then x, then z, each compared by the total order of its
// bits (so -0 comes before +0): an order that depends on the set of samples only. A stable
// radix sort by the band of y (bands of equal height over the samples' y extent, as many as
// there are samples up to 2^22, so that a band holds few samples) does most of the work in two
// linear passes on every core; the few samples sharing a band are then sorted by comparison.
// The first pass gathers the samples into records, the second scatters them back, so that the
// sort needs a record (24 bytes a sample, 16 for compact samples) besides the samples.
// Compact samples sort by their quanta, which order them as their coordinates do.
func Canonicalize(s *Samples) {
	n := s.Len()
	if n < 2 {
		return
	}
	if s.IsCompact() {
		canonicalizeCompact(s)
		return
	}
	b := newYBands(slices.Min(s.Y), slices.Max(s.Y), n)
	recs := make([]sampleRec, n)
	lo := b.bits / 2
	radixPass(n, func(i int) uint32 { return b.band(s.Y[i]) & (1<<lo - 1) }, func(i, at int) {
		recs[at] = sampleRec{s.X[i], s.Y[i], s.Z[i]}
	})
	if cap(s.X) > n+n/8 {
		// Room reserved for points a filter then dropped: leave it behind.
		s.X, s.Y, s.Z = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	radixPass(n, func(i int) uint32 { return b.band(recs[i].y) >> lo }, func(i, at int) {
		s.X[at], s.Y[at], s.Z[at] = recs[i].x, recs[i].y, recs[i].z
	})
	sortBands(s, b)
}

// yBands splits the samples' y extent into 2^bits bands of equal height; band is monotonic in y.
type yBands struct {
	min, inv float64
	bits     int
}

func newYBands(lo, hi float64, n int) yBands {
	bits := min(bitsFor(n), 22)
	if !(hi > lo) {
		return yBands{min: lo}
	}
	return yBands{min: lo, inv: float64(uint64(1)<<bits) / (hi - lo), bits: bits}
}

func bitsFor(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

func (b yBands) band(y float64) uint32 {
	return uint32(min(int((y-b.min)*b.inv), 1<<b.bits-1))
}

type sampleRec struct{ x, y, z float64 }

// radixPass is one pass of a stable counting sort of items 0..n-1 by digit(i) (below 2^11):
// move(i, at) moves item i to place at. Each core takes a chunk of the items; a chunk's items
// of one digit go after those of every smaller digit and of earlier chunks.
func radixPass(n int, digit func(i int) uint32, move func(i, at int)) {
	chunks := chunkCount(n)
	hist := make([][1 << 11]int, chunks)
	parallelChunks(n, chunks, func(c, lo, hi int) {
		h := &hist[c]
		for i := lo; i < hi; i++ {
			h[digit(i)]++
		}
	})
	sum := 0
	for d := range 1 << 11 {
		for c := range hist {
			hist[c][d], sum = sum, sum+hist[c][d]
		}
	}
	parallelChunks(n, chunks, func(c, lo, hi int) {
		off := &hist[c]
		for i := lo; i < hi; i++ {
			d := digit(i)
			move(i, off[d])
			off[d]++
		}
	})
}

// sortBands sorts the samples of each band, already in band order, by (y, x, z).
func sortBands(s *Samples, b yBands) {
	eachBand(s.Len(), func(i int) uint32 { return b.band(s.Y[i]) }, func(lo, hi int) {
		sortRun(s.X[lo:hi], s.Y[lo:hi], s.Z[lo:hi])
	})
}

// eachBand calls sort(lo, hi) on every run of more than one of the n samples in one band,
// on every core.
func eachBand(n int, band func(i int) uint32, sort func(lo, hi int)) {
	parallelChunks(n, chunkCount(n), func(_, lo, hi int) {
		// A chunk owns the bands that start in it.
		for lo > 0 && lo < hi && band(lo) == band(lo-1) {
			lo++
		}
		for lo < hi {
			key, end := band(lo), lo+1
			for end < n && band(end) == key {
				end++
			}
			if end-lo > 1 {
				sort(lo, end)
			}
			lo = end
		}
	})
}

type compactRec struct {
	qx, qy int32
	z      float64
}

// canonicalizeCompact is canonicalize for compact samples.
func canonicalizeCompact(s *Samples) {
	n := s.Len()
	b := newYBands(float64(slices.Min(s.QY)), float64(slices.Max(s.QY)), n)
	recs := make([]compactRec, n)
	lo := b.bits / 2
	radixPass(n, func(i int) uint32 { return b.band(float64(s.QY[i])) & (1<<lo - 1) }, func(i, at int) {
		recs[at] = compactRec{s.QX[i], s.QY[i], s.Z[i]}
	})
	if cap(s.QX) > n+n/8 {
		s.QX, s.QY, s.Z = make([]int32, n), make([]int32, n), make([]float64, n)
	}
	radixPass(n, func(i int) uint32 { return b.band(float64(recs[i].qy)) >> lo }, func(i, at int) {
		s.QX[at], s.QY[at], s.Z[at] = recs[i].qx, recs[i].qy, recs[i].z
	})
	eachBand(n, func(i int) uint32 { return b.band(float64(s.QY[i])) }, func(lo, hi int) {
		run := compactRun{s.QX[lo:hi], s.QY[lo:hi], s.Z[lo:hi]}
		if hi-lo > 64 {
			sort.Sort(run)
			return
		}
		insertionSort(run)
	})
}

// compactRun sorts compact samples by (y, x, z), z in total order.
type compactRun struct {
	qx, qy []int32
	z      []float64
}

func (r compactRun) Len() int { return len(r.qx) }
func (r compactRun) Less(i, j int) bool {
	if r.qy[i] != r.qy[j] {
		return r.qy[i] < r.qy[j]
	}
	if r.qx[i] != r.qx[j] {
		return r.qx[i] < r.qx[j]
	}
	return totalOrder(r.z[i]) < totalOrder(r.z[j])
}
func (r compactRun) Swap(i, j int) {
	r.qx[i], r.qx[j] = r.qx[j], r.qx[i]
	r.qy[i], r.qy[j] = r.qy[j], r.qy[i]
	r.z[i], r.z[j] = r.z[j], r.z[i]
}

// insertionSort sorts a short run.
func insertionSort(r sort.Interface) {
	for i := 1; i < r.Len(); i++ {
		for j := i; j > 0 && r.Less(j, j-1); j-- {
			r.Swap(j, j-1)
		}
	}
}

// sortRun sorts samples by (y, x, z) in total order: by insertion, as runs are short, unless
// one is long (samples all on a few rows).
func sortRun(x, y, z []float64) {
	if len(x) > 64 {
		sort.Sort(sampleRun{x, y, z})
		return
	}
	insertionSort(sampleRun{x, y, z})
}

// sampleRun sorts samples by (y, x, z) in total order.
type sampleRun struct{ x, y, z []float64 }

func (r sampleRun) Len() int { return len(r.x) }
func (r sampleRun) Less(i, j int) bool {
	if a, b := totalOrder(r.y[i]), totalOrder(r.y[j]); a != b {
		return a < b
	}
	if a, b := totalOrder(r.x[i]), totalOrder(r.x[j]); a != b {
		return a < b
	}
	return totalOrder(r.z[i]) < totalOrder(r.z[j])
}
func (r sampleRun) Swap(i, j int) {
	r.x[i], r.x[j] = r.x[j], r.x[i]
	r.y[i], r.y[j] = r.y[j], r.y[i]
	r.z[i], r.z[j] = r.z[j], r.z[i]
}

// totalOrder maps a float64 onto a uint64 whose order is the float's, -0 before +0.
func totalOrder(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// chunkCount is how many chunks n items are split into: one per core, each of at least 32 Ki.
func chunkCount(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/(1<<15))) }

// parallelChunks runs fn(c, lo, hi) on each of the chunks c of [0,n), concurrently.
func parallelChunks(n, chunks int, fn func(c, lo, hi int)) {
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() { fn(c, c*n/chunks, (c+1)*n/chunks) })
	}
	wg.Wait()
}
