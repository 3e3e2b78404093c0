//go:build !amd64

package interp

// pairSums sums each lane's pairs (see pairBuf) into sums.
func pairSums(lx, ly []float64, counts *[pairSpanLanes]int, sums *[pairSpanLanes]float64) {
	pairSumsGo(lx, ly, counts, sums)
}

// pairMasks sets sq[j] and in[j] for the samples (px[j], py[j]) as pairMasksGo does.
func pairMasks(k *pairMaskKernel, px, py []float64, sq, in []uint16) { pairMasksGo(k, px, py, sq, in) }

// takeEarly says whether pairBuf.takeEarly runs: never here.
func takeEarly() bool { return false }

// takeEarly is not called here (see takeEarly): it keeps nothing.
func (pb *pairBuf) takeEarly(n int, ids, rank []int32, px, py []float64) int { return n }

// lanesFill is not called here (see takeEarly).
func lanesFill(pb *pairBuf, lx, ly []float64, next *[pairSpanLanes]int64) {}
