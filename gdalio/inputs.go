package gdalio

// Several inputs gridded as one point cloud: LiDAR comes as tiles, and a sample near a tile's
// edge must see its neighbours in the next tile. The samples of all inputs are merged band by
// band and put in a canonical order, so that the raster depends on the points only, not on how
// they were split into files or in which order the files came.

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aidw/aidw/sample"
)

// ExpandInputs resolves the sources of a command line into the inputs to read, in order and
// each once:
//   - an existing file is an input;
//   - a directory holding .las or .laz files gives those files (not its subdirectories'), in
//     name order; any other directory is one input, an OGR datasource (a folder of shapefiles);
//   - a name that does not exist but holds *, ? or [ is a glob pattern (quoted, so that the
//     shell left it): its matches, in name order, each expanded as above; no match is an error;
//   - anything else is left to OGR, which opens more than files (PG:..., /vsizip/...).
func ExpandInputs(args []string) ([]string, error) {
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		key := p
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			paths = append(paths, p)
		}
	}
	for _, arg := range args {
		matches := []string{arg}
		if _, err := os.Stat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			if err != nil {
				return nil, fmt.Errorf("input pattern %q: %w", arg, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("input pattern %q matches no file", arg)
			}
			matches = m
		}
		for _, m := range matches {
			tiles, err := lasTilesIn(m)
			if err != nil {
				return nil, err
			}
			if len(tiles) == 0 {
				add(m)
			}
			for _, t := range tiles {
				add(t)
			}
		}
	}
	return paths, nil
}

// lasTilesIn returns the LAS and LAZ files directly in dir, in name order; none when dir is not
// a directory.
func lasTilesIn(dir string) ([]string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var tiles []string
	for _, e := range entries {
		if isLASPath(e.Name()) && !e.IsDir() {
			tiles = append(tiles, filepath.Join(dir, e.Name()))
		}
	}
	return tiles, nil
}

func isLASPath(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".las" || ext == ".laz"
}

// ReadInputs reads the sources of a command line (see ExpandInputs) as one point cloud and
// returns one source per band, each with at least one usable sample.
//
// A single vector or text input is ReadSources: its samples keep their order, on which
// gdal_grid's tie rules depend. Otherwise, that is for LAS (one file or many) and for several
// inputs of any kind, every input must give the same bands (-l, -sql), band i is the union of
// the inputs' band i, all inputs must share one CRS (or have none), and the samples are put in
// canonical order: ascending y, then x, then value. That order is then the "input order" of
// every rule that names one (exact hits, ties), so the raster is the same, bit for bit, however
// the points are split into files and whatever order the files come in. LAS points on one
// lattice are compact samples (see readLASFiles), with their origin on the lattice; other
// merged inputs hold absolute coordinates (origin 0).
func ReadInputs(args []string, opt SourceOptions) ([]Source, error) {
	paths, err := ExpandInputs(args)
	if err != nil {
		return nil, err
	}
	var las, others []string
	for _, p := range paths {
		if isLASPath(p) {
			las = append(las, p)
		} else {
			others = append(others, p)
		}
	}
	if len(las) == 0 && len(others) == 1 {
		return ReadSources(others[0], opt)
	}
	register()
	warn := warner(opt.Warn)
	reg, err := buildRegion(opt, warn)
	if err != nil {
		return nil, err
	}
	var inputs [][]Source
	if len(las) > 0 {
		src, err := readLASTiles(las, opt, reg, warn)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, []Source{src})
	}
	for _, p := range others {
		srcs, err := readSources(p, opt, reg, warn)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, srcs)
	}
	merged, err := mergeInputs(inputs, append(lasGroupName(las), others...))
	if err != nil {
		return nil, err
	}
	for _, s := range merged {
		if err := checkUsable(strings.Join(args, " "), s); err != nil {
			return nil, err
		}
		canonicalize(s.Samples)
	}
	return merged, nil
}

// lasGroupName names the LAS inputs, read as one, in messages.
func lasGroupName(las []string) []string {
	switch len(las) {
	case 0:
		return nil
	case 1:
		return las
	}
	return []string{fmt.Sprintf("%d LAS files", len(las))}
}

// readLASTiles reads LAS/LAZ files into one source, with the options readLAS applies to one;
// a tile none of whose points passes the filters is no error, as long as some tile has points.
func readLASTiles(paths []string, opt SourceOptions, reg *region, warn func(string)) (Source, error) {
	what := lasGroupName(paths)[0]
	switch {
	case opt.Where != "" || len(opt.SQL) > 0:
		return Source{}, fmt.Errorf("%s: -where and -sql apply to vector sources; select LAS points with -class, -returns, -drop_withheld, -drop_overlap and -zrange", what)
	case len(opt.Layers) > 0:
		return Source{}, fmt.Errorf("%s: a LAS file has no layers: -l does not apply", what)
	case len(opt.OpenOptions) > 0:
		return Source{}, fmt.Errorf("%s: -oo applies to vector sources, not LAS", what)
	}
	s, headers, err := readLASFiles(paths, lasFilter(opt))
	if err != nil {
		return Source{}, err
	}
	var srs, srsFrom string
	total := 0
	for i, h := range headers {
		p := paths[i]
		total += h.PointCount
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
	if s.Len() == 0 {
		return Source{}, fmt.Errorf("%s: none of the %d points passes the point filters", what, total)
	}
	src := Source{Name: name, Samples: s}
	src.Skipped, src.SkipReason = adjustLASSamples(s, opt, reg)
	if srs != "" {
		wkt, err := lasSRSWKT(srs)
		if err != nil {
			warn(fmt.Sprintf("%s: its CRS %q is not understood (%v): the samples have no CRS", srsFrom, srs, err))
		}
		src.SRS = wkt
	}
	if opt.LayerExtent && s.Len() > 0 {
		xmin, ymin, xmax, ymax := s.Bounds()
		src.Extent = &[4]float64{xmin, ymin, xmax, ymax}
	}
	return src, nil
}

// lasWKTOrSelf is the WKT of a LAS file's CRS, or the CRS as the file names it when GDAL cannot
// read it (then it matches only itself).
func lasWKTOrSelf(srs string) string {
	if wkt, err := lasSRSWKT(srs); err == nil {
		return wkt
	}
	return srs
}

// readLASFiles reads the points of LAS/LAZ files that pass the filter as one set of samples,
// and returns each file's header. The samples are compact (see sample.Samples) when every
// point lies on one lattice, that is when the files share their scales and their offsets are
// whole multiples of them, as tiles of one survey do; else plain, in absolute coordinates.
func readLASFiles(paths []string, f LASFilter) (*sample.Samples, []LASHeader, error) {
	s := newLASSamples(paths, true)
	headers, err := readLASInto(paths, f, s)
	if errors.Is(err, errOffLattice) {
		s = newLASSamples(paths, false)
		headers, err = readLASInto(paths, f, s)
	}
	return s, headers, err
}

func readLASInto(paths []string, f LASFilter, s *sample.Samples) ([]LASHeader, error) {
	headers := make([]LASHeader, len(paths))
	for i, p := range paths {
		var err error
		if headers[i], err = ReadLAS(p, f, s); err != nil {
			return nil, err
		}
	}
	return headers, nil
}

// newLASSamples makes the samples that the files' points are read into: compact, if allowed
// and the headers' scales and offsets put every point on one lattice, with the origin at the
// lattice point nearest the centre of the headers' bounds. It makes room for every point the
// headers declare, so that appending tile after tile never moves the samples (which would hold
// two copies at once). A header that cannot be read leaves the error to the reading.
func newLASSamples(paths []string, compact bool) *sample.Samples {
	s := &sample.Samples{}
	total := 0
	var box [4]float64
	for i, p := range paths {
		h, err := ReadLASHeader(p)
		if err != nil || h.PointCount < 0 {
			return s
		}
		total += h.PointCount
		if i == 0 {
			s.QuantumX, s.QuantumY = h.Scale[0], h.Scale[1]
			box = [4]float64{h.Min[0], h.Min[1], h.Max[0], h.Max[1]}
		}
		box = [4]float64{min(box[0], h.Min[0]), min(box[1], h.Min[1]), max(box[2], h.Max[0]), max(box[3], h.Max[1])}
		_, okX := latticeShift(h.Scale[0], h.Offset[0], s.QuantumX, 0)
		_, okY := latticeShift(h.Scale[1], h.Offset[1], s.QuantumY, 0)
		compact = compact && okX && okY
	}
	// The headers' bounds, if true, tell whether the points fit in int32 quanta: reading them
	// compact would only fail at the end otherwise. Points beyond them fail the reading.
	fits := func(lo, hi, q float64) bool { return (hi-lo)/q < math.MaxInt32-2 }
	if compact && s.QuantumX > 0 && s.QuantumY > 0 && finite(box[0]+box[1]+box[2]+box[3]) &&
		fits(box[0], box[2], s.QuantumX) && fits(box[1], box[3], s.QuantumY) {
		_, s.OriginX = sample.LatticePoint((box[0]+box[2])/2, s.QuantumX)
		_, s.OriginY = sample.LatticePoint((box[1]+box[3])/2, s.QuantumY)
		s.QX, s.QY, s.Z = make([]int32, 0, total), make([]int32, 0, total), make([]float64, 0, total)
		return s
	}
	*s = sample.Samples{X: make([]float64, 0, total), Y: make([]float64, 0, total), Z: make([]float64, 0, total)}
	return s
}

// mergeInputs joins the inputs' sources band by band, in absolute coordinates. names name the
// inputs in messages.
func mergeInputs(inputs [][]Source, names []string) ([]Source, error) {
	if len(inputs) == 1 {
		for _, s := range inputs[0] {
			// Compact samples keep their origin, on their lattice.
			if !s.Samples.IsCompact() && (s.Samples.OriginX != 0 || s.Samples.OriginY != 0) {
				s.Samples.MoveOrigin(0, 0)
			}
		}
		return inputs[0], nil
	}
	bands := len(inputs[0])
	for i, in := range inputs[1:] {
		if len(in) != bands {
			return nil, fmt.Errorf("%s gives %d band(s) but %s gives %d: every input must give the same layers", names[0], bands, names[i+1], len(in))
		}
	}
	out := make([]Source, bands)
	for b := range bands {
		band := make([]Source, len(inputs))
		for i, in := range inputs {
			band[i] = in[b]
		}
		var err error
		if out[b], err = mergeBand(band, names); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeBand joins one band's sources: samples, CRS, skip counts and extent.
func mergeBand(band []Source, names []string) (Source, error) {
	out := Source{Name: fmt.Sprintf("%s and %d more", band[0].Name, len(band)-1)}
	total := 0
	for _, s := range band {
		total += s.Samples.Len()
	}
	m := &sample.Samples{X: make([]float64, 0, total), Y: make([]float64, 0, total), Z: make([]float64, 0, total)}
	var reasons []string
	srsFrom := ""
	for i, s := range band {
		// absolute coordinates, as MoveOrigin(0, 0) computes them
		for j := range int32(s.Samples.Len()) {
			x, y := s.Samples.XY(j)
			m.X = append(m.X, x+s.Samples.OriginX)
			m.Y = append(m.Y, y+s.Samples.OriginY)
		}
		m.Z = append(m.Z, s.Samples.Z...)
		*s.Samples = sample.Samples{} // let the input's copy go as soon as it is merged
		if s.Skipped > 0 {
			out.Skipped += s.Skipped
			reasons = append(reasons, names[i]+": "+s.SkipReason)
		}
		switch {
		case s.SRS == "" || s.SRS == out.SRS:
		case out.SRS == "":
			out.SRS, srsFrom = s.SRS, names[i]
		case !SameSRS(out.SRS, s.SRS):
			return out, fmt.Errorf("%s and %s are in different CRSs: grid inputs of one CRS together", srsFrom, names[i])
		}
		out.Extent = unionExtent(out.Extent, s.Extent)
	}
	out.Samples, out.SkipReason = m, strings.Join(reasons, "; ")
	return out, nil
}

func unionExtent(a, b *[4]float64) *[4]float64 {
	if a == nil || b == nil {
		return cmp.Or(a, b)
	}
	return &[4]float64{min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])}
}

// canonicalize sorts the samples by y, then x, then z, each compared by the total order of its
// bits (so -0 comes before +0): an order that depends on the set of samples only. A stable
// radix sort by the band of y (bands of equal height over the samples' y extent, as many as
// there are samples up to 2^22, so that a band holds few samples) does most of the work in two
// linear passes on every core; the few samples sharing a band are then sorted by comparison.
// The first pass gathers the samples into records, the second scatters them back, so that the
// sort needs a record (24 bytes a sample, 16 for compact samples) besides the samples.
// Compact samples sort by their quanta, which order them as their coordinates do.
func canonicalize(s *sample.Samples) {
	n := s.Len()
	if n < 2 {
		return
	}
	if s.IsCompact() {
		canonicalizeCompact(s)
		return
	}
	b := newYBands(slices.Min(s.Y), slices.Max(s.Y), n)
	recs := make([]sampleRec, n)
	lo := b.bits / 2
	radixPass(n, func(i int) uint32 { return b.band(s.Y[i]) & (1<<lo - 1) }, func(i, at int) {
		recs[at] = sampleRec{s.X[i], s.Y[i], s.Z[i]}
	})
	if cap(s.X) > n+n/8 {
		// Room reserved for points a filter then dropped: leave it behind.
		s.X, s.Y, s.Z = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	radixPass(n, func(i int) uint32 { return b.band(recs[i].y) >> lo }, func(i, at int) {
		s.X[at], s.Y[at], s.Z[at] = recs[i].x, recs[i].y, recs[i].z
	})
	sortBands(s, b)
}

// yBands splits the samples' y extent into 2^bits bands of equal height; band is monotonic in y.
type yBands struct {
	min, inv float64
	bits     int
}

func newYBands(lo, hi float64, n int) yBands {
	bits := min(bitsFor(n), 22)
	if !(hi > lo) {
		return yBands{min: lo}
	}
	return yBands{min: lo, inv: float64(uint64(1)<<bits) / (hi - lo), bits: bits}
}

func bitsFor(n int) int {
	b := 0
	for 1<<b < n {
		b++
	}
	return b
}

func (b yBands) band(y float64) uint32 {
	return uint32(min(int((y-b.min)*b.inv), 1<<b.bits-1))
}

type sampleRec struct{ x, y, z float64 }

// radixPass is one pass of a stable counting sort of items 0..n-1 by digit(i) (below 2^11):
// move(i, at) moves item i to place at. Each core takes a chunk of the items; a chunk's items
// of one digit go after those of every smaller digit and of earlier chunks.
func radixPass(n int, digit func(i int) uint32, move func(i, at int)) {
	chunks := chunkCount(n)
	hist := make([][1 << 11]int, chunks)
	parallelChunks(n, chunks, func(c, lo, hi int) {
		h := &hist[c]
		for i := lo; i < hi; i++ {
			h[digit(i)]++
		}
	})
	sum := 0
	for d := range 1 << 11 {
		for c := range hist {
			hist[c][d], sum = sum, sum+hist[c][d]
		}
	}
	parallelChunks(n, chunks, func(c, lo, hi int) {
		off := &hist[c]
		for i := lo; i < hi; i++ {
			d := digit(i)
			move(i, off[d])
			off[d]++
		}
	})
}

// sortBands sorts the samples of each band, already in band order, by (y, x, z).
func sortBands(s *sample.Samples, b yBands) {
	eachBand(s.Len(), func(i int) uint32 { return b.band(s.Y[i]) }, func(lo, hi int) {
		sortRun(s.X[lo:hi], s.Y[lo:hi], s.Z[lo:hi])
	})
}

// eachBand calls sort(lo, hi) on every run of more than one of the n samples in one band,
// on every core.
func eachBand(n int, band func(i int) uint32, sort func(lo, hi int)) {
	parallelChunks(n, chunkCount(n), func(_, lo, hi int) {
		// A chunk owns the bands that start in it.
		for lo > 0 && lo < hi && band(lo) == band(lo-1) {
			lo++
		}
		for lo < hi {
			key, end := band(lo), lo+1
			for end < n && band(end) == key {
				end++
			}
			if end-lo > 1 {
				sort(lo, end)
			}
			lo = end
		}
	})
}

type compactRec struct {
	qx, qy int32
	z      float64
}

// canonicalizeCompact is canonicalize for compact samples.
func canonicalizeCompact(s *sample.Samples) {
	n := s.Len()
	b := newYBands(float64(slices.Min(s.QY)), float64(slices.Max(s.QY)), n)
	recs := make([]compactRec, n)
	lo := b.bits / 2
	radixPass(n, func(i int) uint32 { return b.band(float64(s.QY[i])) & (1<<lo - 1) }, func(i, at int) {
		recs[at] = compactRec{s.QX[i], s.QY[i], s.Z[i]}
	})
	if cap(s.QX) > n+n/8 {
		s.QX, s.QY, s.Z = make([]int32, n), make([]int32, n), make([]float64, n)
	}
	radixPass(n, func(i int) uint32 { return b.band(float64(recs[i].qy)) >> lo }, func(i, at int) {
		s.QX[at], s.QY[at], s.Z[at] = recs[i].qx, recs[i].qy, recs[i].z
	})
	eachBand(n, func(i int) uint32 { return b.band(float64(s.QY[i])) }, func(lo, hi int) {
		run := compactRun{s.QX[lo:hi], s.QY[lo:hi], s.Z[lo:hi]}
		if hi-lo > 64 {
			sort.Sort(run)
			return
		}
		insertionSort(run)
	})
}

// compactRun sorts compact samples by (y, x, z), z in total order.
type compactRun struct {
	qx, qy []int32
	z      []float64
}

func (r compactRun) Len() int { return len(r.qx) }
func (r compactRun) Less(i, j int) bool {
	if r.qy[i] != r.qy[j] {
		return r.qy[i] < r.qy[j]
	}
	if r.qx[i] != r.qx[j] {
		return r.qx[i] < r.qx[j]
	}
	return totalOrder(r.z[i]) < totalOrder(r.z[j])
}
func (r compactRun) Swap(i, j int) {
	r.qx[i], r.qx[j] = r.qx[j], r.qx[i]
	r.qy[i], r.qy[j] = r.qy[j], r.qy[i]
	r.z[i], r.z[j] = r.z[j], r.z[i]
}

// insertionSort sorts a short run.
func insertionSort(r sort.Interface) {
	for i := 1; i < r.Len(); i++ {
		for j := i; j > 0 && r.Less(j, j-1); j-- {
			r.Swap(j, j-1)
		}
	}
}

// sortRun sorts samples by (y, x, z) in total order: by insertion, as runs are short, unless
// one is long (samples all on a few rows).
func sortRun(x, y, z []float64) {
	if len(x) > 64 {
		sort.Sort(sampleRun{x, y, z})
		return
	}
	insertionSort(sampleRun{x, y, z})
}

// sampleRun sorts samples by (y, x, z) in total order.
type sampleRun struct{ x, y, z []float64 }

func (r sampleRun) Len() int { return len(r.x) }
func (r sampleRun) Less(i, j int) bool {
	if a, b := totalOrder(r.y[i]), totalOrder(r.y[j]); a != b {
		return a < b
	}
	if a, b := totalOrder(r.x[i]), totalOrder(r.x[j]); a != b {
		return a < b
	}
	return totalOrder(r.z[i]) < totalOrder(r.z[j])
}
func (r sampleRun) Swap(i, j int) {
	r.x[i], r.x[j] = r.x[j], r.x[i]
	r.y[i], r.y[j] = r.y[j], r.y[i]
	r.z[i], r.z[j] = r.z[j], r.z[i]
}

// totalOrder maps a float64 onto a uint64 whose order is the float's, -0 before +0.
func totalOrder(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// chunkCount is how many chunks n items are split into: one per core, each of at least 32 Ki.
func chunkCount(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n/(1<<15))) }

// parallelChunks runs fn(c, lo, hi) on each of the chunks c of [0,n), concurrently.
func parallelChunks(n, chunks int, fn func(c, lo, hi int)) {
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() { fn(c, c*n/chunks, (c+1)*n/chunks) })
	}
	wg.Wait()
}
