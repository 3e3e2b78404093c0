package tiles

import (
	"context"
	"fmt"
	"math"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// LAS is a job's LAS/LAZ inputs: a tile opens only the files whose points can reach it.
type LAS struct {
	Files []LASFile
	Opt   gdalio.SourceOptions
	// origin is the job's local origin; the lattice origin is where the in-memory run reads
	// the points (the lattice point nearest the centre of the headers' box).
	originX, originY float64
	readX, readY     float64
}

// LASFile is one input and the box of its points that pass the filters (absolute; empty when
// none does), which the census measures: headers' bounds need not be true.
type LASFile struct {
	Path   string     `json:"path"`
	Points int        `json:"points"`
	Box    [4]float64 `json:"box"`
}

// everywhere keeps every finite point, without making the read fail when a file has none.
var everywhere = [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}

// CensusLAS reads every input once, one file at a time, and returns the job's LAS source, the
// CRS of the samples, and the box of the samples as the in-memory run's layer extent, before
// the target (and so the local origin) is known: see Facts for the rest.
func CensusLAS(ctx context.Context, args []string, opt gdalio.SourceOptions) (*LAS, string, [4]float64, error) {
	paths, err := gdalio.ExpandInputs(args)
	if err != nil {
		return nil, "", [4]float64{}, err
	}
	headers := make([]lidar.Header, len(paths))
	for i, p := range paths {
		if f := p; !isLAS(f) {
			return nil, "", [4]float64{}, fmt.Errorf("%s: tiles read LAS/LAZ inputs only (other inputs would need spill files, which are not done yet): run without -tile/-memory", p)
		}
		if headers[i], err = lidar.ReadHeader(gdalio.OpenInput, p); err != nil {
			return nil, "", [4]float64{}, err
		}
	}
	l := &LAS{Opt: opt}
	// The in-memory run reads the points relative to the lattice point nearest the centre of
	// the headers' box; its layer extent is computed there.
	var hb [4]float64
	for i, h := range headers {
		b := [4]float64{h.Min[0], h.Min[1], h.Max[0], h.Max[1]}
		if i == 0 {
			hb = b
		}
		hb = [4]float64{min(hb[0], b[0]), min(hb[1], b[1]), max(hb[2], b[2]), max(hb[3], b[3])}
	}
	if len(headers) > 0 {
		_, l.readX = sample.LatticePoint((hb[0]+hb[2])/2, headers[0].Scale[0])
		_, l.readY = sample.LatticePoint((hb[1]+hb[3])/2, headers[0].Scale[1])
	}
	extent := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	srs := ""
	for _, p := range paths {
		// one batch at a time: the census holds the counts and boxes, not the points
		f := LASFile{Path: p, Box: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
		var lo, hi [2]float64 // relative to the batches' origin
		ox, oy := 0.0, 0.0
		lo, hi = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		fileSRS, err := gdalio.ScanLAS(ctx, p, opt, l.readX, l.readY, func(b *sample.Samples) error {
			ox, oy = b.OriginX, b.OriginY
			f.Points += b.Len()
			for i := range int32(b.Len()) {
				x, y := b.XY(i)
				lo = [2]float64{min(lo[0], x), min(lo[1], y)}
				hi = [2]float64{max(hi[0], x), max(hi[1], y)}
			}
			return nil
		})
		if err != nil {
			return nil, "", [4]float64{}, err
		}
		if f.Points > 0 {
			// as sample.Samples.Bounds: the extremes relative to the origin, then the origin
			f.Box = [4]float64{lo[0] + ox, lo[1] + oy, hi[0] + ox, hi[1] + oy}
			extent = [4]float64{min(extent[0], f.Box[0]), min(extent[1], f.Box[1]), max(extent[2], f.Box[2]), max(extent[3], f.Box[3])}
		}
		if srs == "" {
			srs = fileSRS
		}
		l.Files = append(l.Files, f)
	}
	return l, srs, extent, nil
}

func isLAS(p string) bool {
	n := len(p)
	if n < 4 {
		return false
	}
	ext := p[n-4:]
	return ext == ".las" || ext == ".laz" || ext == ".LAS" || ext == ".LAZ"
}

// Facts measures the job's facts for the target: a second census pass, a file at a time,
// in the local origin the in-memory run takes (the target's centre, on the lattice).
func (l *LAS) Facts(ctx context.Context, t raster.Target) (*Facts, error) {
	l.originX, l.originY = t.Centre()
	f := &Facts{Rel: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	first := true
	for _, file := range l.Files {
		if file.Points == 0 {
			continue
		}
		// a batch at a time, relative to the job's origin as the in-memory run places it
		_, err := gdalio.ScanLAS(ctx, file.Path, l.Opt, l.originX, l.originY, func(s *sample.Samples) error {
			if first {
				f.OriginX, f.OriginY, f.QuantumX, f.QuantumY = s.OriginX, s.OriginY, s.QuantumX, s.QuantumY
				first = false
			} else if err := f.check(s); err != nil {
				return err
			}
			f.N += s.Len()
			for i := range int32(s.Len()) {
				x, y := s.XY(i)
				f.Rel = [4]float64{min(f.Rel[0], x), min(f.Rel[1], y), max(f.Rel[2], x), max(f.Rel[3], y)}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	f.Bounds = [4]float64{f.Rel[0] + f.OriginX, f.Rel[1] + f.OriginY, f.Rel[2] + f.OriginX, f.Rel[3] + f.OriginY}
	if f.QuantumX > 0 {
		// the whole cloud's offsets from the origin must fit in int32 quanta, as they do in
		// the in-memory run only then
		for k, q := range []float64{f.QuantumX, f.QuantumY, f.QuantumX, f.QuantumY} {
			if math.Abs(f.Rel[k]/q) > math.MaxInt32-2 {
				return nil, fmt.Errorf("the samples span more than 2^31 quanta: they cannot be tiled exactly")
			}
		}
	}
	return f, nil
}

// read reads paths' points strictly inside region, canonical, relative to the job's origin.
func (l *LAS) read(ctx context.Context, paths []string, region *[4]float64) (*sample.Samples, error) {
	src, err := gdalio.ReadLASRegion(ctx, paths, l.Opt, region)
	if err != nil {
		return nil, err
	}
	s := src.Samples
	if s.Len() == 0 {
		return s, nil
	}
	if s.IsCompact() {
		// as the in-memory run: read at the lattice origin of every header, then moved
		s.MoveOrigin(l.readX, l.readY)
	}
	s.MoveOrigin(l.originX, l.originY)
	return s, nil
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
	return l.read(ctx, paths, region)
}
