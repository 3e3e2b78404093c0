package gdalio

// Several inputs gridded as one point cloud: LiDAR comes as tiles, and a sample near a tile's
// edge must see its neighbours in the next tile. The samples of all inputs are merged band by
// band and put in a canonical order, so that the raster depends on the points only, not on how
// they were split into files or in which order the files came.

import (
	"cmp"
	"context"
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
	ext := formatExt(p)
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
// lattice are compact samples (see lidar.ReadFiles), with their origin on the lattice; other
// merged inputs hold absolute coordinates (origin 0).
func ReadInputs(ctx context.Context, args []string, opt SourceOptions) ([]Source, error) {
	paths, err := ExpandInputs(args)
	if err != nil {
		return nil, err
	}
	if len(paths) == 1 && !readerFor(paths[0], opt).together {
		return ReadSources(ctx, paths[0], opt)
	}
	register()
	warn := warner(opt.Warn)
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return nil, err
	}
	// The paths of a reader that reads them together are one input, read first; every other
	// path is an input of its own, in the order given.
	var groups [][]string
	together := map[*reader]int{}
	for _, p := range paths {
		r := readerFor(p, opt)
		if !r.together {
			continue
		}
		if g, ok := together[r]; ok {
			groups[g] = append(groups[g], p)
			continue
		}
		together[r] = len(groups)
		groups = append(groups, []string{p})
	}
	for _, p := range paths {
		if !readerFor(p, opt).together {
			groups = append(groups, []string{p})
		}
	}
	inputs := make([][]Source, len(groups))
	names := make([]string, len(groups))
	for i, g := range groups {
		if inputs[i], err = readerFor(g[0], opt).read(ctx, g, opt, flt, warn); err != nil {
			return nil, err
		}
		names[i] = inputName(g)
	}
	merged, err := mergeInputs(inputs, names)
	if err != nil {
		return nil, err
	}
	for _, s := range merged {
		if err := checkUsable(strings.Join(args, " "), s); err != nil {
			return nil, err
		}
		Canonicalize(s.Samples)
	}
	return merged, nil
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

// Canonicalize sorts the samples by y, then x, then z, each compared by the total order of its
// bits (so -0 comes before +0): an order that depends on the set of samples only. A stable
// radix sort by the band of y (bands of equal height over the samples' y extent, as many as
// there are samples up to 2^22, so that a band holds few samples) does most of the work in two
// linear passes on every core; the few samples sharing a band are then sorted by comparison.
// The first pass gathers the samples into records, the second scatters them back, so that the
// sort needs a record (24 bytes a sample, 16 for compact samples) besides the samples.
// Compact samples sort by their quanta, which order them as their coordinates do.
func Canonicalize(s *sample.Samples) {
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
