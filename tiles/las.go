package tiles

import (
	"context"
	"fmt"
	"math"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/sample"
)

// LAS is a job's LAS/LAZ inputs: a tile opens only the files whose points can reach it.
type LAS struct {
	Files []InputFile
	Opt   gdalio.SourceOptions
	// the job's local origin, which the tile's samples are relative to
	originX, originY float64
}

// InputFile is one input and the count and box of its samples that pass the filters (absolute;
// empty when none does), which the census measures: LAS headers' bounds need not be true.
type InputFile struct {
	Path   string     `json:"path"`
	Points int        `json:"points"`
	Box    [4]float64 `json:"box"`
	Fingerprint
}

// everywhere keeps every finite point.
var everywhere = [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}

// read reads paths' points strictly inside region, a batch at a time (memory follows the
// points kept, not those read), canonical, relative to the job's origin.
func (l *LAS) read(ctx context.Context, paths []string, region *[4]float64) (*sample.Samples, error) {
	opt := l.Opt
	if r := *region; opt.Spat != nil {
		s := opt.Spat
		opt.Spat = &[4]float64{math.Max(r[0], s[0]), math.Max(r[1], s[1]), math.Min(r[2], s[2]), math.Min(r[3], s[3])}
	} else {
		opt.Spat = &r
	}
	var out *sample.Samples
	for _, p := range paths {
		_, err := gdalio.ScanLAS(ctx, p, opt, l.originX, l.originY, func(b *sample.Samples) error {
			if out == nil {
				out = &sample.Samples{OriginX: b.OriginX, OriginY: b.OriginY, QuantumX: b.QuantumX, QuantumY: b.QuantumY}
			}
			if b.IsCompact() != out.IsCompact() || b.OriginX != out.OriginX || b.OriginY != out.OriginY {
				return fmt.Errorf("%s: its points are not on the lattice of the job's other inputs: inputs whose points are not all on one lattice cannot be tiled exactly", p)
			}
			out.QX, out.QY = append(out.QX, b.QX...), append(out.QY, b.QY...)
			out.X, out.Y = append(out.X, b.X...), append(out.Y, b.Y...)
			out.Z = append(out.Z, b.Z...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if out == nil {
		return &sample.Samples{}, nil
	}
	if err := sample.Canonicalize(ctx, out); err != nil {
		return nil, err
	}
	out.MoveOrigin(l.originX, l.originY)
	return out, nil
}

// Load implements Source: the files whose points reach the region are read, no other.
func (l *LAS) Load(ctx context.Context, region *[4]float64) (*sample.Samples, error) {
	var paths []string
	for _, f := range l.Files {
		if f.Points > 0 && (region == nil || Intersects(f.Box, *region)) {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 {
		return &sample.Samples{}, nil
	}
	if region == nil {
		return l.read(ctx, paths, &everywhere)
	}
	return l.read(ctx, paths, region)
}
