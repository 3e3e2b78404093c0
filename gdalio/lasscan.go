package gdalio

import (
	"context"
	"errors"
	"fmt"

	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// ScanLAS hands the points of one LAS/LAZ file that pass the source options' filters (-spat and
// the z transform included) to fn batch by batch, in file order (see lidar.File.Each),
// relative to the point of the file's lattice nearest (ox, oy) when the file allows (compact
// samples, as sample.Samples.MoveOrigin would place them), else as
// plain samples in absolute coordinates. Memory follows a batch, not the file. It returns the
// file's CRS as WKT ("" for none).
func ScanLAS(ctx context.Context, path string, opt SourceOptions, ox, oy float64, fn func(*sample.Samples) error) (string, error) {
	register()
	warn := warner(opt.Warn)
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return "", err
	}
	src, err := OpenInput(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	f, err := lidar.Open(src)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	lf := opt.LAS
	lf.Field, lf.Samples = opt.ZField, flt
	_, ox = sample.LatticePoint(ox, f.Scale[0])
	_, oy = sample.LatticePoint(oy, f.Scale[1])
	proto := &sample.Samples{OriginX: ox, OriginY: oy, QuantumX: f.Scale[0], QuantumY: f.Scale[1]}
	calls := 0
	counted := func(b *sample.Samples) error { calls++; return fn(b) }
	// A file off the lattice is known before any batch; points beyond int32 quanta of the
	// origin (21,000 km at 0.01 m) only once some were handed over, which is then an error.
	if _, err = f.Each(ctx, lf, proto, counted); errors.Is(err, lidar.ErrOffLattice) && calls == 0 {
		_, err = f.Each(ctx, lf, &sample.Samples{}, fn)
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if f.SRS == "" {
		return "", nil
	}
	wkt, err := lasSRSWKT(f.SRS)
	if err != nil {
		warn(fmt.Sprintf("%s: its CRS %q is not understood (%v): the samples have no CRS", path, f.SRS, err))
	}
	return wkt, nil
}
