package lidar

import (
	"context"
	"errors"

	"github.com/aidw/aidw/sample"
)

// readLAZ decodes a LAZ file's points chunk by chunk on every core.
func (f *File) readLAZ(ctx context.Context, d *pointDecoder, dst *sample.Samples) (int, error) {
	return 0, errors.New("LAZ decoding is not built in yet")
}
