package grid

import (
	"context"

	"github.com/aidw/aidw/sample"
)

// Of builds the even-grid index of the samples, compact when they are. A cancelled ctx stops
// the build within a row of cells on each core and returns its error.
func Of(ctx context.Context, s *sample.Samples) (*Index, error) {
	ix := &Index{}
	if s.IsCompact() {
		ix.QuantumX, ix.QuantumY = s.QuantumX, s.QuantumY
		ix.QX, ix.QY = build(ctx, ix, s.QX, s.QY, s.QuantumX, s.QuantumY, nil)
	} else {
		ix.X, ix.Y = build(ctx, ix, s.X, s.Y, 1, 1, nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix, nil
}
