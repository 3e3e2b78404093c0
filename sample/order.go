package sample

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/internal/memory"
)

// Canonicalize sorts the samples by y, then x, then z, each compared by the total order of its
// bits (so -0 comes before +0): an order that depends on the set of samples only. A stable
// radix sort by the band of y (bands of equal height over the samples' y extent, as many as
// there are samples up to 2^22, so that a band holds few samples) does most of the work in two
// linear passes on every core; the few samples sharing a band are then sorted by comparison.
// The first pass gathers the samples into records, the second scatters them back, so that the
// sort needs a record (24 bytes a sample, 16 for compact samples) besides the samples.
// Compact samples sort by their quanta, which order them as their coordinates do, high digit
// first (see canonicalizeCompact). The order being total, any correct sort gives the same.
// A cancelled ctx stops the sort within a chunk of work on each core (chunkCount), leaving
// the samples in no particular order, and returns its error.
func Canonicalize(ctx context.Context, s *Samples) error {
	n := s.Len()
	if n < 2 {
		s.InputOrder = false
		return nil
	}
	if s.IsCompact() {
		canonicalizeCompact(ctx, s)
		return ordered(ctx, s)
	}
	b := newYBands(slices.Min(s.Y), slices.Max(s.Y), n)
	a := memory.ArenaOf(ctx)
	recs := memory.Make[sampleRec](a, n, n)
	lo := b.bits / 2
	radixPass(ctx, n, func(i int) uint32 { return b.band(s.Y[i]) & (1<<lo - 1) }, func(i, at int) {
		recs[at] = sampleRec{s.X[i], s.Y[i], s.Z[i]}
	})
	if ctx.Err() != nil {
		return ctx.Err() // the records left to the arena's Release: the run ends
	}
	if cap(s.X) > n+n/8 {
		// Room reserved for points a filter then dropped: leave it behind.
		s.X, s.Y, s.Z = remake(a, s.X, n), remake(a, s.Y, n), remake(a, s.Z, n)
	}
	radixPass(ctx, n, func(i int) uint32 { return b.band(recs[i].y) >> lo }, func(i, at int) {
		s.X[at], s.Y[at], s.Z[at] = recs[i].x, recs[i].y, recs[i].z
	})
	if ctx.Err() != nil {
		return ctx.Err() // without collecting: the run ends
	}
	dropRecords(a, recs) // as canonicalizeCompact does
	sortBands(ctx, s, b)
	return ordered(ctx, s)
}

// ordered marks s as in canonical order unless ctx stopped the sort, and returns ctx's error.
func ordered(ctx context.Context, s *Samples) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.InputOrder = false
	return nil
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
func radixPass(ctx context.Context, n int, digit func(i int) uint32, move func(i, at int)) {
	chunks := chunkCount(n)
	hist := make([][1 << 11]int, chunks)
	parallelChunks(ctx, n, chunks, func(c, lo, hi int) {
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
	parallelChunks(ctx, n, chunks, func(c, lo, hi int) {
		off := &hist[c]
		for i := lo; i < hi; i++ {
			d := digit(i)
			move(i, off[d])
			off[d]++
		}
	})
}

// sortBands sorts the samples of each band, already in band order, by (y, x, z).
func sortBands(ctx context.Context, s *Samples, b yBands) {
	eachBand(ctx, s.Len(), func(i int) uint32 { return b.band(s.Y[i]) }, func(lo, hi int) {
		sortRun(s.X[lo:hi], s.Y[lo:hi], s.Z[lo:hi])
	})
}

// eachBand calls sort(lo, hi) on every run of more than one of the n samples in one band,
// on every core.
func eachBand(ctx context.Context, n int, band func(i int) uint32, sort func(lo, hi int)) {
	parallelChunks(ctx, n, chunkCount(n), func(_, lo, hi int) {
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

// qBands splits compact samples' y quanta into bands: the quanta's offset from the least,
// shifted right so that there are at most 2^22 bands. Integer arithmetic only: the float
// bands of plain samples cost a conversion and a multiplication a sample in every pass.
type qBands struct {
	min   int32
	shift uint
	bits  int // the bands are below 2^bits
}

func newQBands(lo, hi int32, n int) qBands {
	span := uint32(hi) - uint32(lo) // wraps to the true difference: hi >= lo
	w := bits.Len32(span)
	shift := max(0, w-min(bitsFor(n), 22))
	return qBands{min: lo, shift: uint(shift), bits: w - shift}
}

func (b qBands) band(q int32) uint32 { return (uint32(q) - uint32(b.min)) >> b.shift }

// canonicalizeCompact is canonicalize for compact samples, most significant digit first: the
// samples go by the band's high digit into records, then each high digit's records (about
// 1/2048 of them) by the low digit back into the samples, and its runs of one band are
// sorted, all within the cache, where scattering the whole set a second time missed it at
// every sample. The loops are written out rather than given function values to call a sample.
func canonicalizeCompact(ctx context.Context, s *Samples) {
	n := s.Len()
	lo, hi, _ := QuantaRange(context.Background(), s.QY) // whole: the bands must hold every quantum
	b := newQBands(lo, hi, n)
	loBits := uint(b.bits / 2)
	chunks := chunkCount(n)
	hist := make([][1 << 11]int, chunks)
	parallelChunks(ctx, n, chunks, func(c, lo, hi int) {
		h := &hist[c]
		for _, q := range s.QY[lo:hi] {
			h[b.band(q)>>loBits]++
		}
	})
	if ctx.Err() != nil {
		return // before taking room for the records
	}
	scanHistograms(hist)
	// The records of high digit d are recs[bucket[d]:bucket[d+1]].
	var bucket [1<<11 + 1]int
	copy(bucket[:], hist[0][:])
	bucket[1<<11] = n
	a := memory.ArenaOf(ctx)
	recs := memory.Make[compactRec](a, n, n)
	parallelChunks(ctx, n, chunks, func(c, lo, hi int) {
		off := &hist[c]
		qx, qy, z := s.QX[lo:hi], s.QY[lo:hi], s.Z[lo:hi]
		for i, q := range qy {
			d := b.band(q) >> loBits
			recs[off[d]] = compactRec{qx[i], q, z[i]}
			off[d]++
		}
	})
	if ctx.Err() != nil {
		return
	}
	if cap(s.QX) > n+n/8 {
		// Room reserved for points a filter then dropped: leave it behind.
		s.QX, s.QY, s.Z = remake(a, s.QX, n), remake(a, s.QY, n), remake(a, s.Z, n)
	}
	// Each core takes a run of high digits holding about its share of the samples.
	parallelChunks(ctx, n, chunks, func(_, lo, hi int) {
		first, _ := slices.BinarySearch(bucket[:], lo)
		last, _ := slices.BinarySearch(bucket[:], hi)
		var off [1 << 11]int
		var long []keyedRec
		for d := first; d < min(last, 1<<11); d++ {
			b.sortBucket(s, recs[bucket[d]:bucket[d+1]], bucket[d], loBits, &off, &long)
		}
	})
	if ctx.Err() == nil { // a cancelled run ends: collecting would only delay its exit
		dropRecords(a, recs)
	}
}

// dropRecords lets the sort's records go now, when they are large: unmapped when arena a
// holds them, else collected, so that what comes next (the index) reuses their pages instead
// of faulting in as many new ones, where the pacer would let the heap grow to twice the
// samples and records first. Small sorts (a tile's, a chunk's) leave it to the pacer. (An
// index in the arena maps pages of its own: the whole run of 1e8 points took 47.8-48.1 s of
// CPU against 46.9-48.8 s on the heap.)
func dropRecords[T any](a *memory.Arena, recs []T) {
	if !memory.Free(a, recs) && len(recs) >= 1<<20 {
		runtime.GC()
	}
}

// remake is n new zero values in place of v, in arena a (v's array freed there).
func remake[T int32 | float64](a *memory.Arena, v []T, n int) []T {
	memory.Free(a, v)
	return memory.Make[T](a, n, n)
}

// sortBucket puts the records of one high digit, by the low digit, into the samples from at on,
// and sorts their runs of one band; long holds the records of a long run while it is sorted.
func (b qBands) sortBucket(s *Samples, recs []compactRec, at int, loBits uint, off *[1 << 11]int, long *[]keyedRec) {
	if len(recs) == 0 {
		return
	}
	mask := uint32(1)<<loBits - 1
	h := off[:mask+1]
	clear(h)
	for _, r := range recs {
		h[b.band(r.qy)&mask]++
	}
	sum := at
	for d, k := range h {
		h[d], sum = sum, sum+k
	}
	qx, qy, z := s.QX, s.QY, s.Z
	for _, r := range recs {
		d := b.band(r.qy) & mask
		p := h[d]
		qx[p], qy[p], z[p] = r.qx, r.qy, r.z
		h[d]++
	}
	end := at + len(recs)
	for lo := at; lo < end; {
		key, hi := b.band(qy[lo]), lo+1
		for hi < end && b.band(qy[hi]) == key {
			hi++
		}
		switch {
		case hi-lo < 2:
		case b.shift == 0 && hi-lo <= 64:
			sortRow(qx[lo:hi], z[lo:hi]) // a band of one y
		default:
			compactRun{qx[lo:hi], qy[lo:hi], z[lo:hi]}.sort(long)
		}
		lo = hi
	}
}

// sortRow sorts a short run of samples of one y by (x, z), z in total order, by insertion.
func sortRow(qx []int32, z []float64) {
	for i := 1; i < len(qx); i++ {
		x, v := qx[i], z[i]
		tv := totalOrder(v)
		j := i
		for ; j > 0 && (qx[j-1] > x || qx[j-1] == x && totalOrder(z[j-1]) > tv); j-- {
			qx[j], z[j] = qx[j-1], z[j-1]
		}
		qx[j], z[j] = x, v
	}
}

// scanHistograms turns per-chunk digit counts into the place of each chunk's first item of each
// digit: after those of every smaller digit and of earlier chunks.
func scanHistograms(hist [][1 << 11]int) {
	sum := 0
	for d := range 1 << 11 {
		for c := range hist {
			hist[c][d], sum = sum, sum+hist[c][d]
		}
	}
}

// compactRun sorts compact samples by (y, x, z), z in total order.
type compactRun struct {
	qx, qy []int32
	z      []float64
}

// keyedRec is a compact sample of a run whose y and x are one key in their order: y's offset
// in the run above x's.
type keyedRec struct {
	key uint64
	z   float64
}

// sort sorts the run: by insertion, written out for the short runs of a band, else (samples on
// a few rows, or a band across a wide survey: a band of 8 mm across 20 km holds 400) by a
// radix sort of keyed records in long, its room.
func (r compactRun) sort(long *[]keyedRec) {
	if len(r.qx) > 64 {
		r.sortKeyed(long)
		return
	}
	for i := 1; i < len(r.qx); i++ {
		x, y, z := r.qx[i], r.qy[i], r.z[i]
		tz := totalOrder(z)
		j := i
		for ; j > 0; j-- {
			py, px := r.qy[j-1], r.qx[j-1]
			if py < y || py == y && (px < x || px == x && totalOrder(r.z[j-1]) <= tz) {
				break
			}
			r.qx[j], r.qy[j], r.z[j] = px, py, r.z[j-1]
		}
		r.qx[j], r.qy[j], r.z[j] = x, y, z
	}
}

// sortKeyed sorts the run by a least significant digit radix sort of keys made of the bits
// its y and x span, then by z among equal keys (one place). A comparison sort mispredicted
// half its branches: 105 of the 256 CPU-s of 1e9 points in memory on a 32-core host.
func (r compactRun) sortKeyed(long *[]keyedRec) {
	n := len(r.qx)
	minX, maxX := slices.Min(r.qx), slices.Max(r.qx)
	minY := slices.Min(r.qy)
	xBits := uint(bits.Len32(uint32(maxX) - uint32(minX)))
	room := slices.Grow((*long)[:0], 2*n)[:2*n]
	*long = room
	a, b := room[:n], room[n:]
	var span uint64
	for i := range a {
		k := uint64(uint32(r.qy[i])-uint32(minY))<<xBits | uint64(uint32(r.qx[i])-uint32(minX))
		a[i] = keyedRec{k, r.z[i]}
		span |= k
	}
	const digit = 8
	var count [1 << digit]int32
	for shift := uint(0); shift < uint(bits.Len64(span)); shift += digit {
		clear(count[:])
		for _, rec := range a {
			count[uint8(rec.key>>shift)]++
		}
		sum := int32(0)
		for d, c := range count {
			count[d], sum = sum, sum+c
		}
		for _, rec := range a {
			d := uint8(rec.key >> shift)
			b[count[d]] = rec
			count[d]++
		}
		a, b = b, a
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && a[hi].key == a[lo].key {
			hi++
		}
		if hi-lo > 1 {
			sortZ(a[lo:hi])
		}
		lo = hi
	}
	mask := uint64(1)<<xBits - 1
	for i, rec := range a {
		r.qy[i], r.qx[i], r.z[i] = int32(uint32(minY)+uint32(rec.key>>xBits)), int32(uint32(minX)+uint32(rec.key&mask)), rec.z
	}
}

// sortZ sorts records of one place by z in total order, by insertion: few share a place.
func sortZ(recs []keyedRec) {
	for i := 1; i < len(recs); i++ {
		rec, t := recs[i], totalOrder(recs[i].z)
		j := i
		for ; j > 0 && totalOrder(recs[j-1].z) > t; j-- {
			recs[j] = recs[j-1]
		}
		recs[j] = rec
	}
}

// sortRun sorts samples by (y, x, z) in total order: by insertion, written out, as runs are
// short, unless one is long (samples all on a few rows).
func sortRun(x, y, z []float64) {
	if len(x) > 64 {
		sort.Sort(sampleRun{x, y, z})
		return
	}
	for i := 1; i < len(x); i++ {
		xi, yi, zi := x[i], y[i], z[i]
		j := i
		for ; j > 0 && sampleLess(xi, yi, zi, x[j-1], y[j-1], z[j-1]); j-- {
			x[j], y[j], z[j] = x[j-1], y[j-1], z[j-1]
		}
		x[j], y[j], z[j] = xi, yi, zi
	}
}

// sampleLess says whether (x1, y1, z1) comes before (x2, y2, z2): by y, x, z in total order.
func sampleLess(x1, y1, z1, x2, y2, z2 float64) bool {
	if a, b := totalOrder(y1), totalOrder(y2); a != b {
		return a < b
	}
	if a, b := totalOrder(x1), totalOrder(x2); a != b {
		return a < b
	}
	return totalOrder(z1) < totalOrder(z2)
}

// sampleRun sorts samples by (y, x, z) in total order.
type sampleRun struct{ x, y, z []float64 }

func (r sampleRun) Len() int { return len(r.x) }
func (r sampleRun) Less(i, j int) bool {
	return sampleLess(r.x[i], r.y[i], r.z[i], r.x[j], r.y[j], r.z[j])
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

// chunkCount is how many chunks n items are split into: at least one per core, each of at
// least 32 Ki, and at most 1 Mi each, so that a cancelled sort stops within a chunk's work.
func chunkCount(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/(1<<15)), (n+1<<20-1)>>20)
}

// parallelChunks runs fn(c, lo, hi) on each of the chunks c of [0,n), a chunk at a time on
// every core, until ctx is cancelled.
func parallelChunks(ctx context.Context, n, chunks int, fn func(c, lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(chunks, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for c := int(next.Add(1) - 1); c < chunks && ctx.Err() == nil; c = int(next.Add(1) - 1) {
				fn(c, c*n/chunks, (c+1)*n/chunks)
			}
		})
	}
	wg.Wait()
}
