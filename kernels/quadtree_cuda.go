//go:build cuda

package kernels

import (
	"github.com/aidw/aidw/kernels/cuda"
)

// deviceTieRanks builds gdal's quadtree order of the problem's samples on the device (see
// forms.cuh: each sample's path a key, the keys sorted, cut at their leaves, sorted again), into
// rank in cell order. It reports false, leaving rank unset, when only the host's build gives
// the order: a sample that fits no quarter of a node that splits, or a leaf deeper than a key
// holds (samples piled on one place), or too little device memory (device thread only).
func (pp *prepared) deviceTieRanks(rank buf) (bool, error) {
	d, n := pp.e.dev, pp.ix.n
	s := pp.p.Samples
	box := pp.ix.box
	var root, hi, lo, depth, sHi, sLo, pos, tmp, cutHi, cutLo, byID, flags buf
	defer cuda.FreeAll(&root, &hi, &lo, &depth, &sHi, &sLo, &pos, &tmp, &cutHi, &cutLo, &byID, &flags)
	b := newBuilder(d)
	defer cuda.FreeAll(&b.k[0], &b.k[1], &b.v[0], &b.v[1], &b.digits, &b.totals)
	var err error
	if root, err = cuda.UploadNew([]float64{box[0] + s.OriginX, box[1] + s.OriginY, box[2] + s.OriginX,
		box[3] + s.OriginY}); err != nil {
		return false, err
	}
	if flags, err = cuda.UploadNew([]int32{0}); err != nil {
		return false, err
	}
	for _, a := range []*buf{&hi, &lo, &depth, &sHi, &sLo, &pos, &tmp, &cutHi, &cutLo, &byID, &b.k[0], &b.k[1],
		&b.v[0], &b.v[1]} {
		if *a, err = cuda.AllocN[uint32](n); err != nil {
			return false, nil // the host builds it
		}
	}
	if b.digits, err = cuda.AllocN[int32](radix * cuda.Blocks(n, sortTile)); err != nil {
		return false, nil
	}
	if b.totals, err = cuda.AllocN[int32](radix); err != nil {
		return false, err
	}
	if err := quadKeys(d, pp.prob, n, root, hi, lo, depth); err != nil {
		return false, err
	}
	// the keys sorted: pos is each sorted key's sample
	if err := b.sortKeys(hi, lo, n, sLo, tmp, sHi, pos); err != nil {
		return false, err
	}
	if err := gatherU32(d, lo, pos, n, sLo); err != nil {
		return false, err
	}
	if err := quadLeaves(d, sHi, sLo, pos, depth, pp.ix.order, n, cutHi, cutLo, flags); err != nil {
		return false, err
	}
	var flag [1]int32
	if err := cuda.Download(flag[:], flags, 0); err != nil {
		return false, err
	}
	if flag[0]&flagHostOrder != 0 {
		return false, nil
	}
	// the cut keys in input order, sorted: byID is the walk's samples in turn
	if err := b.sortKeys(cutHi, cutLo, n, sLo, tmp, sHi, byID); err != nil {
		return false, err
	}
	if err := quadRanks(d, byID, n, tmp); err != nil {
		return false, err
	}
	return true, gatherRanks(d, pp.ix.order, tmp, n, rank)
}

// sortKeys sorts the n 64-bit keys (hi, lo) stably, by the low word and then the high word:
// sortedHi gets the sorted high words and at[i] the place of the i-th key; room and tmp are
// scratch of n words (device thread only).
func (b *builder) sortKeys(hi, lo buf, n int, room, tmp, sortedHi, at buf) error {
	const words = 1 << 32 // a 32-bit word a sort: four passes
	if err := b.sortValues(lo, buf{}, n, words, room, tmp); err != nil {
		return err
	}
	if err := gatherU32(b.d, hi, tmp, n, room); err != nil {
		return err
	}
	return b.sortValues(room, tmp, n, words, sortedHi, at)
}
