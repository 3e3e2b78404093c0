//go:build !amd64

package interp

// pairSums sums each lane's pairs (see pairBuf) into sums.
func pairSums(lx, ly []float64, counts *[pairSpanLanes]int, sums *[pairSpanLanes]float64) {
	pairSumsGo(lx, ly, counts, sums)
}

// pairMasks sets sq[j] and in[j] for the samples (px[j], py[j]) as pairMasksGo does.
func pairMasks(k *pairMaskKernel, px, py []float64, sq, in []uint16) { pairMasksGo(k, px, py, sq, in) }

// lanesRankedLoop is lanesRankedGo.
func lanesRankedLoop(pb *pairBuf, lx, ly []float64, next, last *[pairSpanLanes]int64) {
	lanesRankedGo(pb, lx, ly, next, last)
}

// takeRanked reports false: pairMasks and pairBuf.take do its work.
func (pb *pairBuf) takeRanked(n int, ids, rank []int32, px, py []float64) (int, bool) {
	return n, false
}
