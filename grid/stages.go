package grid

import (
	"context"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/aidw/aidw/internal/memory"
)

// maxDigitBits bounds the radix digit so a pass's bucket table (2 KiB of counters) stays in L1.
const maxDigitBits = 11

// SortByKey is the third stage: a stable sort of the pairs (keys[i], i) by key, into sorted
// (the keys in order) and order (the sample index of each pair), both len(keys) long; samples of
// one cell keep their input order. Every key must be < cells. It is an LSD radix sort, as on the
// GPU: as few passes of at most 11 bits as the largest key needs, each a per-chunk digit
// histogram, an exclusive scan over (digit, chunk) and a scatter, chunks running in parallel.
// A stable sort has one result, whatever the digits or the number of chunks.
func SortByKey(keys []uint32, cells int, sorted []uint32, order []int32) {
	n := len(keys)
	width := bits.Len(uint(max(cells, 1) - 1))
	passes := (width + maxDigitBits - 1) / maxDigitBits
	if passes == 0 {
		copy(sorted, keys)
		for i := range n {
			order[i] = int32(i)
		}
		return
	}
	digit := (width + passes - 1) / passes
	// Ping-pong between the outputs and scratch so that the last pass lands in the outputs.
	tmpK, tmpI := make([]uint32, n), make([]int32, n)
	dstK, dstI, nextK, nextI := sorted, order, tmpK, tmpI
	if passes%2 == 0 {
		dstK, dstI, nextK, nextI = tmpK, tmpI, sorted, order
	}
	srcK, srcI := keys, []int32(nil) // nil: the identity, on the first pass
	for pass := range passes {
		radixPass(srcK, srcI, dstK, dstI, uint(pass*digit), uint32(1)<<digit-1)
		srcK, srcI = dstK, dstI
		dstK, dstI, nextK, nextI = nextK, nextI, dstK, dstI
	}
}

// radixPass scatters the pairs (srcK[i], srcI[i]) stably by the digit srcK[i]>>shift&mask.
func radixPass(srcK []uint32, srcI []int32, dstK []uint32, dstI []int32, shift uint, mask uint32) {
	chunks := chunkCount(len(srcK))
	hist := make([][]int32, chunks)
	forChunks(len(srcK), chunks, func(c, lo, hi int) {
		h := make([]int32, mask+1)
		for _, k := range srcK[lo:hi] {
			h[k>>shift&mask]++
		}
		hist[c] = h
	})
	// Chunk c's pairs of digit d go after those of every smaller digit and of earlier chunks.
	var sum int32
	for d := range mask + 1 {
		for _, h := range hist {
			h[d], sum = sum, sum+h[d]
		}
	}
	forChunks(len(srcK), chunks, func(c, lo, hi int) {
		off := hist[c]
		for i, k := range srcK[lo:hi] {
			d := k >> shift & mask
			p := off[d]
			off[d]++
			id := int32(lo + i)
			if srcI != nil {
				id = srcI[lo+i]
			}
			dstK[p], dstI[p] = k, id
		}
	})
}

// CountByKey is the reduce-by-key stage: counts[c] = how many of the sorted keys equal c, for
// every cell c < len(counts) (a dense table, zero for empty cells).
func CountByKey(sorted []uint32, counts []int32) {
	clear(counts)
	for _, k := range sorted {
		counts[k]++
	}
}

// ExclusiveScan is the last stage: start[0] = 0 and start[c+1] = start[c] + counts[c], so the
// samples of cell c are order[start[c]:start[c+1]]. start has len(counts)+1 entries.
func ExclusiveScan(counts []int32, start []int32) {
	var sum int32
	for c, n := range counts {
		start[c] = sum
		sum += n
	}
	start[len(counts)] = sum
}

// minChunk is the fewest items worth a goroutine of their own.
const minChunk = 1 << 16

// chunkCount is how many chunks n items are split into: one per CPU, each at least minChunk.
func chunkCount(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minChunk))
}

// forChunks calls fn(c, lo, hi) for the chunks c of [0,n) split evenly, concurrently when there
// are several.
func forChunks(n, chunks int, fn func(c, lo, hi int)) {
	if chunks == 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(c, c*n/chunks, (c+1)*n/chunks)
		}()
	}
	wg.Wait()
}

// orderByRow is the build from the cell keys to the permuted coordinates for samples whose
// rows of cells never decrease, as samples in canonical order (ascending y) have: each core
// takes a run of whole rows, so its cells are its own, and orders its samples by a counting
// sort on the cell starts themselves, with no keys, sorted keys or scratch arrays (the radix
// sort's 20 bytes a sample), and writes the order and the permuted coordinates at once. A
// stable sort has one result, so the index is the radix sort's, bit for bit. It returns false,
// having allocated nothing, when the rows do decrease somewhere.
func orderByRow[T coord](ctx context.Context, x, y []T, sx, sy float64, l Layout) (order, start []int32, px, py []T, ok bool) {
	n := len(x)
	row := func(i int) int { return clampCell((float64(y[i])*sy-l.MinY)*l.InvCell, l.Rows) }
	chunks := chunkCount(n)
	if !rowsAscend(n, chunks, row) {
		return nil, nil, nil, nil, false
	}
	// Chunk c holds samples [from[c], from[c+1]): whole rows.
	from := make([]int, chunks+1)
	from[chunks] = n
	for c := 1; c < chunks; c++ {
		i := max(from[c-1], c*n/chunks)
		for i > 0 && i < n && row(i) == row(i-1) {
			i++
		}
		from[c] = i
	}
	a := memory.ArenaOf(ctx) // the index of a run whose arrays the process's end releases
	order, start = memory.Make[int32](a, n, n), memory.Make[int32](a, l.Cells()+1, l.Cells()+1)
	px, py = memory.Make[T](a, n, n), memory.Make[T](a, n, n)
	filled := make([]bool, l.Rows)
	forChunks(chunks, chunks, func(c, _, _ int) {
		var cols []int32 // the columns of one row's samples
		for lo, hi := from[c], from[c+1]; lo < hi && ctx.Err() == nil; {
			r := row(lo)
			cols = cols[:0]
			end := lo
			for ; end < hi && row(end) == r; end++ {
				cols = append(cols, int32(clampCell((float64(x[end])*sx-l.MinX)*l.InvCell, l.Cols)))
			}
			sortRow(start[r*l.Cols:(r+1)*l.Cols], cols, lo, x, y, order, px, py)
			filled[r] = true
			lo = end
		}
	})
	// Rows without samples start where the next row with samples does.
	next := int32(n)
	for r := l.Rows - 1; r >= 0; r-- {
		cells := start[r*l.Cols : (r+1)*l.Cols]
		if !filled[r] {
			for k := range cells {
				cells[k] = next
			}
		}
		next = cells[0]
	}
	start[l.Cells()] = int32(n)
	return order, start, px, py, true
}

// rowsAscend says whether row(i) never decreases over [0, n), checking chunks concurrently.
func rowsAscend(n, chunks int, row func(i int) int) bool {
	ok := make([]bool, chunks)
	forChunks(n, chunks, func(c, lo, hi int) {
		prev := 0
		if lo > 0 {
			prev = row(lo - 1)
		}
		for i := lo; i < hi; i++ {
			r := row(i)
			if r < prev {
				return
			}
			prev = r
		}
		ok[c] = true
	})
	return !slices.Contains(ok, false)
}

// sortRow orders the samples of one row, [at, at+len(cols)), by their columns cols, stably,
// into order, px and py, and sets the row's cell starts.
func sortRow[T coord](cells, cols []int32, at int, x, y []T, order []int32, px, py []T) {
	for _, k := range cols {
		cells[k]++
	}
	sum := int32(at)
	for k, m := range cells {
		cells[k], sum = sum, sum+m
	}
	// Each cell's start is its cursor; it ends at the next cell's start.
	for j, k := range cols {
		p, i := cells[k], at+j
		cells[k]++
		order[p], px[p], py[p] = int32(i), x[i], y[i]
	}
	copy(cells[1:], cells)
	cells[0] = int32(at)
}
