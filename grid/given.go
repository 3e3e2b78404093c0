package grid

import (
	"context"
	"fmt"

	"github.com/aidw/aidw/sample"
)

// OfLayout is Of on a given layout instead of the one the samples' own box gives: a subset of
// a larger set of samples, indexed on the larger set's layout, has every sample in the cell
// the larger set's index puts it in, so that a scan of cells meets the subset's samples in the
// order in which it meets them in the larger set. The layout's cells are clamped as Key
// clamps them; it should cover the samples.
func OfLayout(ctx context.Context, s *sample.Samples, l Layout) (*Index, error) {
	if l.Cells() <= 0 || !(l.Cell > 0) {
		panic(fmt.Sprintf("grid.OfLayout: layout %+v has no cells", l))
	}
	ix := &Index{}
	if s.IsCompact() {
		ix.QuantumX, ix.QuantumY = s.QuantumX, s.QuantumY
		ix.QX, ix.QY = build(ctx, ix, s.QX, s.QY, s.QuantumX, s.QuantumY, &l)
	} else {
		ix.X, ix.Y = build(ctx, ix, s.X, s.Y, 1, 1, &l)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix, nil
}
