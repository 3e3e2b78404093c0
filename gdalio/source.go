package gdalio

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aidw/aidw/delimited"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// SourceOptions select and adjust the samples of a source, with gdal_grid's flag semantics.
type SourceOptions struct {
	// Layers (-l) and SQL (-sql) give one source (band) each: the SQL results first, then the
	// layers, as gdal_grid numbers its bands. With neither, the source must have one layer.
	Layers []string
	SQL    []string
	// Where (-where) filters the -l layers (not the -sql results, as gdal_grid).
	Where string
	// Spat (-spat xmin ymin xmax ymax) keeps the samples strictly inside the rectangle.
	Spat *[4]float64
	// ZField (-zfield) takes z from a numeric attribute instead of the geometry's Z.
	ZField string
	// z' = (z + ZIncrease) * ZMultiply (-z_increase, -z_multiply); ZMultiply nil means 1.
	ZIncrease float64
	ZMultiply *float64
	// OpenOptions (-oo) are KEY=VALUE open options of the OGR driver.
	OpenOptions []string
	// ClipSrc (-clipsrc) is "spat_extent", a box "xmin ymin xmax ymax", a POLYGON or
	// MULTIPOLYGON WKT, or a vector datasource read with ClipSrcSQL, ClipSrcLayer and
	// ClipSrcWhere. Samples are kept when strictly inside both it and Spat.
	ClipSrc                                string
	ClipSrcSQL, ClipSrcLayer, ClipSrcWhere string
	// LayerExtent asks for Source.Extent: the extent gdal_grid takes when -txe/-tye are absent.
	LayerExtent bool
	// LAS holds the point filters of LAS/LAZ sources (issue 6); other sources ignore it.
	LAS lidar.Filter
	// Warn receives GDAL's warnings; nil prints them on stderr.
	Warn func(msg string)
	// Stdin is the text a source "-" or /vsistdin/ reads as it arrives, once (Stdin.Stream);
	// nil when standard input is no source or was spilled to a file (Stdin.Paths).
	Stdin io.Reader
	// Take, when set, is offered the samples of LAS inputs on one lattice before they are
	// read, as compact samples in proto's form and at most n: it returns the sink that takes
	// them as they are read (an engine's, interp.Take), or nil to leave them to be read into
	// memory. A source so read has Held set and its Samples hold no arrays. Points beyond the
	// headers' bounds, off the compact form, fail the read (lidar.ErrOffLattice).
	Take func(proto *sample.Samples, n int) (sample.Sink, error)
	// InputOrder leaves compact samples that ReadInputs would put in canonical order in input
	// order (sample.Samples.InputOrder), for an engine that orders them itself
	// (interp.OrdersCompact): a pass of seconds over a billion samples saved.
	InputOrder bool
}

// buildFilter is the filter every reader applies: -spat and -clipsrc as gdal_grid combines
// them, and the z transform.
func buildFilter(o SourceOptions, warn func(string)) (*sample.Filter, error) {
	reg, err := buildRegion(o, warn)
	if err != nil {
		return nil, err
	}
	f := &sample.Filter{Region: reg, ZIncrease: o.ZIncrease, ZMultiply: 1}
	if o.ZMultiply != nil {
		f.ZMultiply = *o.ZMultiply
	}
	return f, nil
}

// Source is the samples of one layer or SQL result: one output band.
type Source struct {
	// Name is the layer name (a text file's is its base name without extension, as OGR's) or
	// the SQL statement.
	Name    string
	Samples *sample.Samples
	// Held, when set, holds the samples (SourceOptions.Take): Samples has their form and
	// origin, no arrays. Close it once done.
	Held sample.Sink
	// SRS is the layer's CRS as WKT, "" when it has none (text files never do).
	SRS string
	// Skipped counts the unusable features or points left out; SkipReason says why.
	Skipped    int
	SkipReason string
	// Extent (xmin ymin xmax ymax) is OGR's extent of the filtered layer, which gdal_grid uses
	// as the default output extent; set when SourceOptions.LayerExtent is. With a -clipsrc
	// polygon, OGR's spatial filter here is the clip's bounding box. Text sources give the
	// extent of the points OGR's CSV driver would pass the same filters.
	Extent *[4]float64
}

// A reader reads one family of formats into sources, one per band. Readers are tried in the
// order of the readers table: the first that claims a path reads it. Each passes its samples
// through the shared filter in its one pass over the input, and yields them in batches, in
// input order (scan): read collects them into the sources, and a consumer that streams (a tile
// of a larger job) takes them as they come.
type reader struct {
	format string
	claims func(path string, opt SourceOptions) bool
	// read reads paths, all claimed by this reader: one at a time, unless together, when the
	// paths are one point cloud read at once (a survey's tiles, whose memory is checked and
	// whose samples are laid out together).
	read     func(ctx context.Context, paths []string, opt SourceOptions, flt *sample.Filter, warn func(string)) ([]Source, error)
	together bool
	// scan hands one path's samples to yield band by band, a batch at a time (a batch is valid
	// during the call only); the sources it returns hold no samples.
	scan func(ctx context.Context, path string, opt SourceOptions, flt *sample.Filter, warn func(string), yield func(band int, b *sample.Samples) error) ([]Source, error)
}

// readers is every input format, in the order they claim paths.
var readers = [...]reader{
	{"LAS/LAZ", func(p string, _ SourceOptions) bool { return lidar.IsLAS(p) }, readLiDARSources, true, scanLiDAR},
	{"delimited text", claimsText, func(_ context.Context, paths []string, opt SourceOptions, flt *sample.Filter, _ func(string)) ([]Source, error) {
		return readTextSources(paths[0], opt, flt)
	}, false, func(_ context.Context, path string, opt SourceOptions, flt *sample.Filter, _ func(string), yield func(int, *sample.Samples) error) ([]Source, error) {
		src, err := scanText(path, opt, flt, func(int) {}, bandYield(yield, 0))
		src.Name = textName(path)
		return []Source{src}, err
	}},
	{"OGR", func(string, SourceOptions) bool { return true }, func(_ context.Context, paths []string, opt SourceOptions, flt *sample.Filter, warn func(string)) ([]Source, error) {
		return readOGR(paths[0], opt, flt, warn)
	}, false, func(_ context.Context, path string, opt SourceOptions, flt *sample.Filter, warn func(string), yield func(int, *sample.Samples) error) ([]Source, error) {
		return scanOGR(path, opt, flt, warn, yield)
	}},
}

// ScanSources reads path with the reader that claims it, as ReadSources does, but hands the
// samples to yield band by band and a batch at a time, in input order, instead of holding
// them: memory follows a batch. A batch is valid during the call only. The sources returned
// say what was read (name, CRS, what was skipped) and hold no samples.
func ScanSources(ctx context.Context, path string, opt SourceOptions, yield func(band int, b *sample.Samples) error) ([]Source, error) {
	register()
	warn := warner(opt.Warn)
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return nil, err
	}
	return readerFor(path, opt).scan(ctx, path, opt, flt, warn, yield)
}

// readerFor returns the reader that claims path.
func readerFor(path string, opt SourceOptions) *reader {
	for i := range readers {
		if readers[i].claims(path, opt) {
			return &readers[i]
		}
	}
	panic("the OGR reader claims every path")
}

// textExtensions are read by the native delimited-text reader unless an OGR-only option
// (-where, -sql, -oo) asks for OGR's CSV driver.
var textExtensions = map[string]bool{".csv": true, ".txt": true, ".xyz": true, ".tsv": true}

func claimsText(path string, opt SourceOptions) bool {
	if IsStdin(path) {
		return true // spilled when it is not text or not for the native reader (OpenStdin)
	}
	return textExtensions[formatExt(path)] && nativeText(opt) && (isVSI(path) || isFile(path))
}

// nativeText says whether the options leave text to the native reader: -where, -sql and -oo
// need OGR's CSV driver.
func nativeText(opt SourceOptions) bool {
	return opt.Where == "" && len(opt.SQL) == 0 && len(opt.OpenOptions) == 0
}

// textName is a text source's layer name: OGR's, the file's base name without extension.
func textName(path string) string {
	if IsStdin(path) {
		return stdinName
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// formatExt is the extension that names path's format, lower case: a gzipped file read
// through /vsigzip/ is the format of its name without ".gz".
func formatExt(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".gz" && isVSI(path) {
		return strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	}
	return ext
}

// ReadSources reads the samples of path with the reader that claims it: LAS files natively
// (.las, .laz), delimited text natively, anything else through OGR. It returns one source per
// -sql and -l, each with at least one usable sample.
func ReadSources(ctx context.Context, path string, opt SourceOptions) ([]Source, error) {
	register()
	warn := warner(opt.Warn)
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return nil, err
	}
	sources, err := readerFor(path, opt).read(ctx, []string{path}, opt, flt, warn)
	if err != nil {
		return nil, err
	}
	for _, s := range sources {
		if err := checkUsable(path, s); err != nil {
			return nil, err
		}
	}
	return sources, nil
}

// Len is the number of the source's samples, wherever they are.
func (s Source) Len() int {
	if s.Held != nil {
		return s.Held.Len()
	}
	return s.Samples.Len()
}

// checkUsable fails on a source with no usable sample, saying what was skipped.
func checkUsable(path string, s Source) error {
	if s.Len() > 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %s: no usable samples", path, s.Name)
	if s.Skipped > 0 {
		msg += fmt.Sprintf(" (%d skipped: %s)", s.Skipped, s.SkipReason)
	}
	return fmt.Errorf("%s", msg)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// readText reads a delimited text file of points (package delimited).
func readText(path string, opt SourceOptions, flt *sample.Filter) (Source, error) {
	var s *sample.Samples
	src, err := withText(path, opt, func(r io.Reader, size int64, o delimited.Options) (delimited.Result, error) {
		var res delimited.Result
		var err error
		s, res, err = delimited.Read(r, size, o, flt)
		return res, err
	})
	src.Samples = s
	return src, err
}

// scanText reads a delimited text file of points (or standard input's stream, see
// SourceOptions.Stdin), handing its samples to yield a batch at a time, in file order. The
// file is read once, front to back.
func scanText(path string, opt SourceOptions, flt *sample.Filter, reserve func(int), yield func(*sample.Samples) error) (Source, error) {
	return withText(path, opt, func(r io.Reader, size int64, o delimited.Options) (delimited.Result, error) {
		return delimited.Scan(r, size, o, flt, reserve, yield)
	})
}

// withText opens a text source (a local path, a GDAL virtual file or standard input) for one
// pass and tells the source what it said.
func withText(path string, opt SourceOptions, read func(r io.Reader, size int64, o delimited.Options) (delimited.Result, error)) (Source, error) {
	in, size, err := openText(path, opt)
	if err != nil {
		return Source{}, err
	}
	defer in.Close()
	what := path
	if IsStdin(path) {
		what = "standard input"
	}
	res, err := read(in, size, delimited.Options{ZField: opt.ZField, Extent: opt.LayerExtent})
	if err != nil {
		return Source{}, fmt.Errorf("reading %s: %w", what, err)
	}
	return Source{Skipped: res.Skipped, SkipReason: res.SkipReason, Extent: res.Extent}, nil
}

// openText opens a text source for one pass; size is -1 when unknown (a stream).
func openText(path string, opt SourceOptions) (io.ReadCloser, int64, error) {
	if IsStdin(path) {
		if opt.Stdin == nil {
			return nil, 0, fmt.Errorf("%s: standard input cannot be read here: save it to a file", path)
		}
		return io.NopCloser(opt.Stdin), -1, nil
	}
	f, err := OpenInput(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, 0, f.Size()), f}, f.Size(), nil
}

// readTextSources gives one source per -l naming the file's layer (OGR names a text file's
// only layer after its base name), or the one source when there is no -l.
func readTextSources(path string, opt SourceOptions, flt *sample.Filter) ([]Source, error) {
	name := textName(path)
	for _, l := range opt.Layers {
		if !strings.EqualFold(l, name) {
			return nil, fmt.Errorf("%s: layer %q not found (layers: %s)", path, l, name)
		}
	}
	src, err := readText(path, opt, flt)
	if err != nil {
		return nil, err
	}
	src.Name = name
	out := []Source{src}
	for range max(len(opt.Layers)-1, 0) {
		// each band gets its own samples, so that transforming one leaves the others alone
		s := *src.Samples
		s.X, s.Y, s.Z = slices.Clone(s.X), slices.Clone(s.Y), slices.Clone(s.Z)
		dup := src
		dup.Samples = &s
		out = append(out, dup)
	}
	return out, nil
}
