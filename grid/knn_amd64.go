package grid

import (
	"math"

	"golang.org/x/sys/cpu"
)

// kernel is a vector kernel of KNN's for k up to 16: AVX-512F (knn_amd64.s), AVX2
// (knn_avx2_amd64.s), or none (knnSearch, in Go).
type kernel int

const (
	goKernel kernel = iota
	avx2Kernel
	avx512Kernel
)

func (k kernel) String() string { return [...]string{"go", "avx2", "avx512"}[k] }

// knnKernels are the kernels this CPU runs (the OS saving their registers), widest first.
var knnKernels = func() []kernel {
	var ks []kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	if cpu.X86.HasAVX2 {
		ks = append(ks, avx2Kernel)
	}
	return append(ks, goKernel)
}()

// knnKernel is the kernel KNN runs: the widest. Read once; the CPU does not change (tests
// choose each).
var knnKernel = knnKernels[0]

// maxLanes is the largest k the kernels keep in their registers.
const maxLanes = 16

// knnLanes holds a vector search's best candidates in the order of (D2, ID), each lane beyond
// those found holding the sentinel (maxD2, math.MaxInt32): greater than every candidate, which
// has D2 <= maxD2 and an ID below 2^31-1, so that candidates push the sentinels out and the
// k-th lane's D2 is the bound scan returns, maxD2 until k are found.
type knnLanes struct {
	d2 [maxLanes]float64
	id [maxLanes]int64
}

// knnQuery is what the kernels read of a query: sample j lies at (x[j]*sx, y[j]*sy).
type knnQuery struct {
	qx, qy, sx, sy float64
	last           int64      // k-1: the lane of the k-th candidate
	block          [4]float64 // the AVX2 kernels' room for a block's D2
}

// A vector search gathers up to knnRanges ranges of Order, or knnGather samples, before a
// kernel scans them: one call for the rows of a small disk rather than one a row, and still a
// bound that falls soon enough to narrow the walk of a large one.
const (
	knnRanges = 16
	knnGather = 32
)

// knnScan32AVX512 offers the samples of a compact index in ranges[:n] to the lanes.
//
//go:noescape
func knnScan32AVX512(x, y, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)

// knnScan64AVX512 offers the samples of a float64 index in ranges[:n] to the lanes.
//
//go:noescape
func knnScan64AVX512(x, y *float64, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)

// knnScan32AVX2 is knnScan32AVX512 in AVX2.
//
//go:noescape
func knnScan32AVX2(x, y, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)

// knnScan64AVX2 is knnScan64AVX512 in AVX2.
//
//go:noescape
func knnScan64AVX2(x, y *float64, ids *int32, ranges *[knnRanges][2]int32, n int, q *knnQuery, l *knnLanes)

// laneSearch is KNN's search with a vector kernel: for each 8 (AVX2: 4) samples, their D2
// (each product and the sum rounded as knnSearch rounds them, no fused multiply-add) and one
// comparison with the k-th D2; the few that pass go into the lanes by masked moves, where
// knnSearch's insertion costs a mispredicted branch or two a candidate. The lanes end as
// knnSearch's best: the k least by (D2, ID) of the same samples.
type laneSearch struct {
	x32, y32 []int32
	x64, y64 []float64
	order    []int32
	avx512   bool
	q        knnQuery
	lanes    knnLanes
	// ranges[:pending], gathered samples in all, wait for the kernel.
	ranges            [knnRanges][2]int32
	pending, gathered int
}

// knnLanes is KNN by a laneSearch, appended to dst; false where the kernel or k does not allow it.
func (ix *Index) knnLanes(qx, qy float64, k int, maxD2 float64, dst []Neighbor) ([]Neighbor, bool) {
	if knnKernel == goKernel || k > maxLanes {
		return dst, false
	}
	s := &laneSearch{x32: ix.QX, y32: ix.QY, x64: ix.X, y64: ix.Y, order: ix.Order,
		avx512: knnKernel == avx512Kernel, q: knnQuery{qx: qx, qy: qy, sx: 1, sy: 1, last: int64(k - 1)}}
	if ix.QX != nil {
		s.q.sx, s.q.sy = ix.QuantumX, ix.QuantumY
	}
	for i := range s.lanes.d2 {
		s.lanes.d2[i], s.lanes.id[i] = maxD2, math.MaxInt32
	}
	knn(ix, qx, qy, k, maxD2, s.scan, s.found) // whose last call, found, leaves nothing gathered
	for i, id := range s.lanes.id[:k] {
		if id == math.MaxInt32 {
			break
		}
		dst = append(dst, Neighbor{int32(id), s.lanes.d2[i]})
	}
	return dst, true
}

// scan gathers the range; the bound it returns is that of the ranges scanned so far, larger
// than the one the gathered would give, which only widens the walk.
func (s *laneSearch) scan(lo, hi int32) float64 {
	if hi > lo {
		s.ranges[s.pending] = [2]int32{lo, hi}
		s.pending++
		if s.gathered += int(hi - lo); s.pending == knnRanges || s.gathered >= knnGather {
			s.flush()
		}
	}
	return s.lanes.d2[s.q.last]
}

// flush offers the gathered ranges to the lanes.
func (s *laneSearch) flush() {
	switch {
	case s.x32 != nil && s.avx512:
		knnScan32AVX512(&s.x32[0], &s.y32[0], &s.order[0], &s.ranges, s.pending, &s.q, &s.lanes)
	case s.x32 != nil:
		knnScan32AVX2(&s.x32[0], &s.y32[0], &s.order[0], &s.ranges, s.pending, &s.q, &s.lanes)
	case s.avx512:
		knnScan64AVX512(&s.x64[0], &s.y64[0], &s.order[0], &s.ranges, s.pending, &s.q, &s.lanes)
	default:
		knnScan64AVX2(&s.x64[0], &s.y64[0], &s.order[0], &s.ranges, s.pending, &s.q, &s.lanes)
	}
	s.pending, s.gathered = 0, 0
}

// found scans what is gathered, then counts the lanes filled.
func (s *laneSearch) found() (int, float64) {
	if s.pending > 0 {
		s.flush()
	}
	k := int(s.q.last) + 1
	if s.lanes.id[k-1] != math.MaxInt32 {
		return k, s.lanes.d2[k-1]
	}
	m := 0
	for s.lanes.id[m] != math.MaxInt32 {
		m++
	}
	return m, 0
}
