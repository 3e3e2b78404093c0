package gdalio

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/airbusgeo/godal"

	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// readLiDAR reads LAS/LAZ files (one, or the tiles of a survey) into one source, through the
// lidar package: the point filters apply while decoding, then -spat/-clipsrc and the z
// transform. A file none of whose points passes the filters is no error, as long as some file
// has points. The headers' counts are checked against the free memory before any point is read.
func readLiDAR(ctx context.Context, paths []string, opt SourceOptions, flt *sample.Filter, warn func(string)) (Source, error) {
	what := inputName(paths)
	switch {
	case opt.Where != "" || len(opt.SQL) > 0:
		return Source{}, fmt.Errorf("%s: -where and -sql apply to vector sources; select LAS points with -class, -returns, -drop_withheld, -drop_overlap and -zrange", what)
	case len(opt.Layers) > 0:
		return Source{}, fmt.Errorf("%s: a LAS file has no layers: -l does not apply", what)
	case len(opt.OpenOptions) > 0:
		return Source{}, fmt.Errorf("%s: -oo applies to vector sources, not LAS", what)
	}
	lf := opt.LAS
	lf.Field, lf.Samples = opt.ZField, flt
	cloud, held, err := readCloud(ctx, paths, lf, opt.Take, what)
	if err != nil {
		return Source{}, err
	}
	src, err := lidarSource(paths, cloud, held, flt, opt.LayerExtent, warn)
	if err != nil && held != nil {
		held.Close()
	}
	return src, err
}

// readCloud reads the points of LAS inputs into the sink that take gives them, when it gives
// one, else into memory.
func readCloud(ctx context.Context, paths []string, lf lidar.Filter, take func(*sample.Samples, int) (sample.Sink, error),
	what string) (*lidar.Cloud, sample.Sink, error) {
	if take != nil {
		headers := make([]lidar.Header, len(paths))
		for i, p := range paths {
			var err error
			if headers[i], err = lidar.ReadHeader(OpenInput, p); err != nil {
				return nil, nil, err
			}
		}
		if proto, ok := lidar.CompactProto(headers); ok {
			sink, err := take(proto, lidar.Points(headers))
			if err != nil {
				return nil, nil, err
			}
			if sink != nil {
				cloud, err := lidar.Stream(ctx, OpenInput, paths, lf, proto, sink)
				var held sample.Sink
				if err == nil {
					held, err = sample.Flush(sink)
				}
				if err != nil {
					sink.Close()
					return nil, nil, err // ErrOffLattice: points beyond the headers' bounds
				}
				cloud.Samples = proto
				return cloud, held, nil
			}
		}
	}
	cloud, err := lidar.ReadFiles(ctx, OpenInput, paths, lf, func(h []lidar.Header) error {
		return checkPointMemory(what, h)
	})
	return cloud, nil, err
}

// lidarSource is the source of LAS inputs read as cloud, their samples in memory or in held.
func lidarSource(paths []string, cloud *lidar.Cloud, held sample.Sink, flt *sample.Filter, extent bool, warn func(string)) (Source, error) {
	what := inputName(paths)
	s, headers := cloud.Samples, cloud.Headers
	var srs, srsFrom string
	for i, h := range headers {
		p := paths[i]
		if h.SRS == "" || h.SRS == srs {
			continue
		}
		if srs == "" {
			srs, srsFrom = h.SRS, p
			continue
		}
		if a, b := lasWKTOrSelf(srs), lasWKTOrSelf(h.SRS); !SameSRS(a, b) {
			return Source{}, fmt.Errorf("%s (%s) and %s (%s) are in different CRSs: grid tiles of one CRS together", srsFrom, srs, p, h.SRS)
		}
	}
	name := what
	if len(paths) == 1 {
		name = strings.TrimSuffix(filepath.Base(paths[0]), filepath.Ext(paths[0]))
	}
	src := Source{Name: name, Samples: s, Held: held, Skipped: cloud.NonFinite}
	if cloud.NonFinite > 0 {
		src.SkipReason = fmt.Sprintf("%d points with a NaN or infinite value", cloud.NonFinite)
	}
	if src.Len() == 0 && flt.Region == nil && cloud.NonFinite == 0 {
		return Source{}, fmt.Errorf("%s: none of the %d points passes the point filters", what, lidar.Points(headers))
	}
	if srs != "" {
		wkt, err := lasSRSWKT(srs)
		if err != nil {
			warn(fmt.Sprintf("%s: its CRS %q is not understood (%v): the samples have no CRS", srsFrom, srs, err))
		}
		src.SRS = wkt
	}
	switch {
	case !extent || src.Len() == 0:
	case held != nil:
		src.Extent = &cloud.Box
	default:
		xmin, ymin, xmax, ymax := s.Bounds()
		src.Extent = &[4]float64{xmin, ymin, xmax, ymax}
	}
	return src, nil
}

// inputName names inputs read as one in messages.
func inputName(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%d LAS files", len(paths))
}

// readLiDARSources is readLiDAR as a reader: one source.
func readLiDARSources(ctx context.Context, paths []string, opt SourceOptions, flt *sample.Filter, warn func(string)) ([]Source, error) {
	src, err := readLiDAR(ctx, paths, opt, flt, warn)
	if err != nil {
		return nil, err
	}
	return []Source{src}, nil
}

// lasWKTOrSelf is the WKT of a LAS file's CRS, or the CRS as the file names it when GDAL cannot
// read it (then it matches only itself).
func lasWKTOrSelf(srs string) string {
	if wkt, err := lasSRSWKT(srs); err == nil {
		return wkt
	}
	return srs
}

// lasSRSWKT turns the CRS a LAS file names into WKT, as the other sources give theirs.
func lasSRSWKT(srs string) (string, error) {
	register()
	eh := godal.ErrLogger(godalErrors(func(string) {}))
	sr, err := godal.NewSpatialRef(srs, eh)
	if err != nil {
		return "", err
	}
	defer sr.Close()
	return sr.WKT(eh)
}

// checkPointMemory refuses, before any point is read, a point count that would not fit in the
// memory available now: a header that declares 1.5e9 points would otherwise end the process
// with Go's out-of-memory dump.
func checkPointMemory(what string, headers []lidar.Header) error {
	avail, ok := memory.Available()
	if !ok {
		return nil
	}
	return pointMemoryFits(what, headers, avail.Bytes)
}

func pointMemoryFits(what string, headers []lidar.Header, avail int64) error {
	need := lidar.InMemoryBytes(headers)
	if need <= float64(avail) {
		return nil
	}
	return fmt.Errorf("%s: the headers declare %.4g points, about %s to grid, more than the %s of memory available: run it in tiles (-memory, -tile), keep fewer points (-spat, -class, fewer files) or use a machine with more memory",
		what, float64(lidar.Points(headers)), bytesize.Text(need), bytesize.Text(float64(avail)))
}

// scanLiDAR is the LAS family's scan: one band, a batch per chunk (see ScanLAS), relative to
// the file's lattice point nearest the centre of its header's box.
func scanLiDAR(ctx context.Context, path string, opt SourceOptions, flt *sample.Filter, warn func(string), yield func(int, *sample.Samples) error) ([]Source, error) {
	h, err := lidar.ReadHeader(OpenInput, path)
	if err != nil {
		return nil, err
	}
	o := opt
	o.Warn = warn
	srs, err := ScanLAS(ctx, path, o, (h.Min[0]+h.Max[0])/2, (h.Min[1]+h.Max[1])/2, bandYield(yield, 0))
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return []Source{{Name: name, SRS: srs}}, err
}
