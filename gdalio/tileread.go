package gdalio

import (
	"context"
	"math"
)

// ReadLASRegion reads LAS/LAZ files as one point cloud, as ReadInputs reads them (one lidar
// read, canonical order), keeping only the points strictly inside region (xmin ymin xmax ymax,
// intersected with -spat; nil keeps all). Unlike ReadInputs, a read that keeps no point is no
// error: a tile of a larger job may hold none. No path is the empty cloud.
func ReadLASRegion(ctx context.Context, paths []string, opt SourceOptions, region *[4]float64) (Source, error) {
	register()
	warn := warner(opt.Warn)
	opt.LayerExtent = false
	if region != nil {
		r := *region
		if s := opt.Spat; s != nil {
			r = [4]float64{math.Max(r[0], s[0]), math.Max(r[1], s[1]), math.Min(r[2], s[2]), math.Min(r[3], s[3])}
		}
		opt.Spat = &r
	}
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return Source{}, err
	}
	src, err := readLiDAR(ctx, paths, opt, flt, warn)
	if err != nil {
		return Source{}, err
	}
	canonicalize(src.Samples)
	return src, nil
}
