package interp

// On amd64 the lanes' pairs are summed in assembly: AVX-512 takes the eight lanes in one
// register, AVX2 in two. Each lane adds its pairs' distances in the order pairSumsGo does, with
// the same operations (subtract, square, add, square root: no fused multiply-add), so the
// sums are the same bit for bit.

//go:noescape
func pairSumsAVX512(x, y *float64, counts *[pairSpanLanes]int, n int, sums *[pairSpanLanes]float64)

//go:noescape
func pairSumsAVX2(x, y *float64, counts *[pairSpanLanes]int, n int, sums *[pairSpanLanes]float64)

//go:noescape
func pairMasksAVX512(px, py *float64, n int, k *pairMaskKernel, sq, in *uint16)

//go:noescape
func pairMasksAVX2(px, py *float64, n int, k *pairMaskKernel, sq, in *uint16)

// pairMasks sets sq[j] and in[j] for the samples (px[j], py[j]) as pairMasksGo does.
func pairMasks(k *pairMaskKernel, px, py []float64, sq, in []uint16) {
	if !haveAVX512 && !haveAVX2FMA || len(px) == 0 {
		pairMasksGo(k, px, py, sq, in)
		return
	}
	_, _, _ = py[len(px)-1], sq[len(px)-1], in[len(px)-1]
	if haveAVX512 {
		pairMasksAVX512(&px[0], &py[0], len(px), k, &sq[0], &in[0])
	} else {
		pairMasksAVX2(&px[0], &py[0], len(px), k, &sq[0], &in[0])
	}
}

// pairSums sums each lane's pairs (see pairBuf) into sums.
func pairSums(lx, ly []float64, counts *[pairSpanLanes]int, sums *[pairSpanLanes]float64) {
	n := 0
	for _, q := range counts {
		n = max(n, q)
	}
	if n < 2 {
		*sums = [pairSpanLanes]float64{}
		return
	}
	_ = lx[n*pairSpanLanes-1]
	_ = ly[n*pairSpanLanes-1]
	switch {
	case haveAVX512:
		pairSumsAVX512(&lx[0], &ly[0], counts, n, sums)
	case haveAVX2FMA:
		pairSumsAVX2(&lx[0], &ly[0], counts, n, sums)
	default:
		pairSumsGo(lx, ly, counts, sums)
	}
}

//go:noescape
func lanesFillAVX512(keys *uint64, m int, x, y *float64, in *uint16, lx, ly *float64, next *[pairSpanLanes]int64)

// lanesFill puts each candidate at the next place of every lane that takes it (see
// pairSpan.lanes), with AVX-512 (pairBuf.early).
func lanesFill(pb *pairBuf, lx, ly []float64, next *[pairSpanLanes]int64) {
	m := len(pb.keys)
	if m == 0 {
		return
	}
	_, _, _ = pb.x[m-1], pb.y[m-1], pb.in[m-1]
	lanesFillAVX512(&pb.keys[0], m, &pb.x[0], &pb.y[0], &pb.in[0], &lx[0], &ly[0], next)
}

//go:noescape
func pairTakeAVX512(px, py *float64, n int, k *pairMaskKernel, ids, rank *int32, at int, keys *uint64, x, y *float64, in *uint16, last, counts *[pairSpanLanes]int64) int

// takeEarly says whether pairBuf.takeEarly runs: with AVX-512.
func takeEarly() bool { return haveAVX512 }

// takeEarly is pairMasks and pairBuf.take in one loop, with AVX-512: it appends to pb's first
// n candidates the samples (ids, their ranks, places) in a node's ellipse, adds to pb.counts
// and pb.last (see pairBuf.early), and returns the candidates' count.
func (pb *pairBuf) takeEarly(n int, ids, rank []int32, px, py []float64) int {
	m := len(px)
	if m == 0 {
		return n
	}
	_, _, _ = py[m-1], ids[m-1], rank[m-1]
	_, _, _, _ = pb.keys[n+m-1], pb.x[n+m-1], pb.y[n+m-1], pb.in[n+m-1]
	return pairTakeAVX512(&px[0], &py[0], m, &pb.k, &ids[0], &rank[0], n, &pb.keys[0], &pb.x[0], &pb.y[0],
		&pb.in[0], &pb.last, &pb.counts)
}
