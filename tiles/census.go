package tiles

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Census is what one pass over a job's inputs learns: each input's count and box, the CRS,
// the samples' extent, and the extremes that give the job's facts for any target; with a
// spill, the samples themselves, bucketed on disk for the tiles.
type Census struct {
	// Files is each input with the count and box of its samples that pass the filters.
	Files []InputFile
	// SRS is the samples' CRS as WKT ("" for none); Extent their box, as the in-memory run's
	// layer extent (the default output extent).
	SRS    string
	Extent [4]float64
	// Spill holds the samples when the census was asked for one (nil otherwise).
	Spill *Spill

	opt gdalio.SourceOptions
	las bool
	// LAS inputs are read relative to the lattice point nearest the centre of the headers'
	// box, as the in-memory run reads them.
	readX, readY float64
	// formed: the first batch gave the job's form: compact samples with these quanta, or
	// plain
	formed             bool
	compact            bool
	quantumX, quantumY float64
	batchX, batchY     float64 // compact batches' origin (the lattice point); plain: the first's
	tally
}

// tally is what the census counts of the samples, input by input: their number and extremes.
type tally struct {
	n int
	// compact samples: the extremes in quanta from (readX, readY)'s lattice point (plain
	// samples' extremes are the files' boxes)
	qlo, qhi [2]int64
	// plain samples' extremes relative to their batches' origin: those of a single input
	// (whose batches share the reader's origin) give the in-memory run's box exactly
	rlo, rhi [2]float64
}

func newTally() tally {
	return tally{qlo: [2]int64{math.MaxInt64, math.MaxInt64}, qhi: [2]int64{math.MinInt64, math.MinInt64},
		rlo: [2]float64{math.Inf(1), math.Inf(1)}, rhi: [2]float64{math.Inf(-1), math.Inf(-1)}}
}

// add adds the tally of other inputs.
func (t *tally) add(o tally) {
	t.n += o.n
	t.qlo = [2]int64{min(t.qlo[0], o.qlo[0]), min(t.qlo[1], o.qlo[1])}
	t.qhi = [2]int64{max(t.qhi[0], o.qhi[0]), max(t.qhi[1], o.qhi[1])}
	t.rlo = [2]float64{min(t.rlo[0], o.rlo[0]), min(t.rlo[1], o.rlo[1])}
	t.rhi = [2]float64{max(t.rhi[0], o.rhi[0]), max(t.rhi[1], o.rhi[1])}
}

// censusReaders is how many LAS inputs the census reads side by side once their form is known,
// within budget bytes (0: none). A reader decodes on every core (a worker a core) and hands
// its batches over in input order, and the writers bucket and spill them: on this project's
// 2-core machine (BenchmarkCensus, 1e7 samples in 4 files) the census took 23 CPU-ns a
// sample, 4.3 of them the readers' (reading, decoding, the batches' allocation), 15.4 the
// writers', and a reader's hand-over, its one part in input order, 0.3 µs a batch of 35,000
// samples. Not measured on 16 cores, but from these shares: 16 cores census 16 / 23 ns = 7e8
// samples a second, a reader's hand-over alone would pass 100 times that, and its decoding
// runs on every core; so one reader feeds them, and a second starts the next input while
// the workers of one input's last chunks wait for their turn. One when the budget holds no
// more.
func censusReaders(budget int64) int {
	if budget > 0 && censusBytes(2, 1) > censusRoom(budget) {
		return 1
	}
	return 2
}

// censusWriters is how many writers spill the compact batches of readers readers, within
// budget bytes (0: none): one a core, since writing is three quarters of the census's work,
// as many as the budget holds.
func censusWriters(budget int64, readers int) int {
	n := runtime.GOMAXPROCS(0)
	if budget > 0 {
		n = min(n, max(1, int((censusRoom(budget)-censusBytes(readers, 0))/censusWriterBytes)))
	}
	return n
}

// censusRoom is what the census may hold within budget bytes: the live share of the heap.
func censusRoom(budget int64) int64 { return int64(liveShare * float64(heapLimit(budget))) }

// censusBytes is what the census holds with readers readers and writers writers, beside the
// spill's index: the buckets' fills (a block of compact records each, at most) and each
// reader's and writer's.
func censusBytes(readers, writers int) int64 {
	return censusFillBytes + int64(readers)*censusReaderBytes() + int64(writers)*censusWriterBytes
}

// censusReaderBytes is what a census reader holds: a chunk of records (about 1 MiB) and the
// batch decoded from it (16 bytes a point) for each of its workers, one a core.
func censusReaderBytes() int64 { return int64(runtime.GOMAXPROCS(0)) * 2 << 20 }

const (
	// censusWriterBytes is what a writer holds: its scratch (20 bytes a sample of a batch),
	// its stage (1 MiB, and a batch's records more), its batch and the one waiting for it.
	censusWriterBytes = 4 << 20
	// censusFillBytes is the buckets' fills (compact records): a few more buckets than
	// spillBuckets, where the grid's sides round up.
	censusFillBytes = (spillBuckets + 256) * bucketRecords * compactRecord
)

// TakeCensus reads every input (paths, as inputs.Expand expands the sources) once, one
// batch at a time (LAS and LAZ through lidar.File.Each, others through their reader's scan;
// those need a first pass for the box that places the spill's buckets, which LAS headers
// give), within budget bytes (0: none). With spillDir it also writes the samples into a
// Spill there ("" for the system's temporary directory); without, only LAS inputs are allowed,
// since a plan's tiles read them directly.
func TakeCensus(ctx context.Context, paths []string, opt gdalio.SourceOptions, spill bool, spillDir string, budget int64) (*Census, error) {
	readers := censusReaders(budget)
	return takeCensusWith(ctx, paths, opt, spill, spillDir, readers, censusWriters(budget, readers), nil)
}

// takeCensus is TakeCensus with readers inputs read side by side once their form allows, and
// a writer a core.
func takeCensus(ctx context.Context, paths []string, opt gdalio.SourceOptions, spill bool, spillDir string, readers int) (*Census, error) {
	return takeCensusWith(ctx, paths, opt, spill, spillDir, readers, runtime.GOMAXPROCS(0), nil)
}

// takeCensusWith is takeCensus with writers writers, which calls hook (nil: none) with each
// batch an input hands over, before the census takes it (tests).
func takeCensusWith(ctx context.Context, paths []string, opt gdalio.SourceOptions, spill bool, spillDir string, readers, writers int,
	hook func(ctx context.Context, input int)) (*Census, error) {
	c := &Census{opt: opt, las: true, tally: newTally(),
		Extent: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	nLAS := 0
	for _, p := range paths {
		if lidar.IsLAS(p) {
			nLAS++
		}
	}
	switch {
	case nLAS > 0 && nLAS < len(paths):
		return nil, fmt.Errorf("tiled mode reads either LAS/LAZ inputs or other inputs, not both in one job")
	case nLAS == 0 && !spill:
		return nil, fmt.Errorf("%s: a plan's tiles read LAS/LAZ inputs only (run other inputs in one process with -tile/-memory)", paths[0])
	}
	c.las = nLAS > 0
	box, err := c.spillBox(ctx, paths)
	if err != nil {
		return nil, err
	}
	r := &censusRead{c: c, paths: paths, scans: make([]inputScan, len(paths)), readers: readers, writers: writers,
		spill: spill, spillDir: spillDir, box: box, hook: hook}
	if err := r.run(ctx); err != nil {
		c.Close()
		return nil, err
	}
	for k := range r.scans {
		if err := c.merge(&r.scans[k]); err != nil {
			c.Close()
			return nil, err
		}
	}
	if c.n == 0 {
		c.Close()
		return nil, fmt.Errorf("%s: no usable samples", inputNames(paths))
	}
	if math.IsInf(c.Extent[0], 1) {
		// LAS has no layer extent, and other inputs none unless asked for: the samples' box
		c.Extent = c.box()
	}
	return c, nil
}

// censusRead is the census's pass over its inputs: one input after the other until the
// first batch gives the job's form (and the spill); then compact LAS inputs side by side,
// their batches handed to writers that spill them in any order, while plain samples are
// spilled by their reader, in input order.
type censusRead struct {
	c        *Census
	paths    []string
	scans    []inputScan
	readers  int
	writers  int // of compact samples
	spill    bool
	spillDir string
	box      [4]float64 // the spill's
	hook     func(ctx context.Context, input int)

	next    atomic.Int64   // the next input to start
	reading sync.WaitGroup // the readers
	// once the form is known: the writer of plain samples, and the places of the samples it
	// wrote; or the compact batches' way to the writers
	w       *spillWriter
	placed  uint64
	work    chan censusBatch
	writing sync.WaitGroup

	mu     sync.Mutex
	err    error // the first error, which stops every reader and writer
	cancel context.CancelFunc
}

// censusBatch is a batch of input in's samples on its way to a writer.
type censusBatch struct {
	in *inputScan
	b  *sample.Samples
}

// run reads every input, stopping at the first error, which it returns.
func (r *censusRead) run(ctx context.Context) error {
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	r.reading.Go(func() { r.read(ctx) })
	r.reading.Wait()
	if r.work != nil {
		close(r.work)
		r.writing.Wait()
	}
	if r.w != nil {
		r.fail(r.w.close())
	}
	if s := r.c.Spill; s != nil && r.err == nil {
		r.fail(s.finish())
	}
	return r.err
}

// fail records err (nil: none), the first of which stops the census.
func (r *censusRead) fail(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
		r.cancel()
	}
}

// read reads the inputs not yet started, one after the other, until none is left or the
// census fails.
func (r *censusRead) read(ctx context.Context) {
	for ctx.Err() == nil {
		i := int(r.next.Add(1) - 1)
		if i >= len(r.paths) {
			return
		}
		if err := r.scan(ctx, i); err != nil {
			r.fail(err)
			return
		}
	}
}

// inputScan is what the census learns of one input.
type inputScan struct {
	mu    sync.Mutex // guards file and tally while writers count
	file  InputFile
	tally tally
	srs   string
}

// scan reads input i, one batch at a time, into its tally and the spill.
func (r *censusRead) scan(ctx context.Context, i int) error {
	p := r.paths[i]
	in := &r.scans[i]
	in.file, in.tally = InputFile{Path: p, Box: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}, newTally()
	take := func(b *sample.Samples) error {
		if b.Len() == 0 {
			return nil
		}
		if r.hook != nil {
			r.hook(ctx, i)
		}
		if err := ctx.Err(); err != nil {
			return err // the census failed: no more batches (a send below might yet take one)
		}
		if err := r.form(ctx, b, p); err != nil {
			return err
		}
		if r.work == nil {
			seq := r.placed
			if r.w != nil { // one reader
				r.placed += uint64(b.Len())
			}
			return r.take(in, b, r.w, seq)
		}
		select {
		case r.work <- censusBatch{in, b}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var err error
	if r.c.las {
		in.srs, err = gdalio.ScanLAS(ctx, p, r.c.opt, r.c.readX, r.c.readY, take)
	} else {
		in.srs, err = r.c.scanOther(ctx, p, take)
	}
	return err
}

// form checks that batch b has the job's form; the first batch gives it, and with it the
// spill and, for compact LAS samples, the other readers and the writers.
func (r *censusRead) form(ctx context.Context, b *sample.Samples, p string) error {
	c := r.c
	first := !c.formed
	if err := c.form(b, first, p); err != nil || !first {
		return err
	}
	c.formed = true
	if r.spill {
		ordered := !c.las && len(r.paths) == 1
		var err error
		if c.Spill, err = newSpill(r.spillDir, r.box, c.compact, ordered, c.batchX, c.batchY, c.quantumX, c.quantumY); err != nil {
			return err
		}
	}
	if !c.las || !c.compact {
		if c.Spill != nil {
			r.w = c.Spill.writer()
		}
		return nil
	}
	if c.Spill != nil {
		r.work = make(chan censusBatch, r.writers)
		for range r.writers {
			r.writing.Go(func() { r.write(ctx) })
		}
	}
	for range r.readers - 1 {
		r.reading.Go(func() { r.read(ctx) })
	}
	return nil
}

// write is a writer: it counts and spills the batches the readers hand it, until they are
// done; after a failure, it lets them go.
func (r *censusRead) write(ctx context.Context) {
	w := r.c.Spill.writer()
	for j := range r.work {
		if ctx.Err() == nil {
			r.fail(r.take(j.in, j.b, w, 0))
		}
	}
	r.fail(w.close())
}

// take counts batch b into input in's tally and spills it through w (nil: no spill), its
// first sample the seq-th spilled.
func (r *censusRead) take(in *inputScan, b *sample.Samples, w *spillWriter, seq uint64) error {
	t, box := newTally(), [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	r.c.measure(&t, b, &box)
	in.mu.Lock()
	in.file.Points += b.Len()
	in.file.Box = [4]float64{min(in.file.Box[0], box[0]), min(in.file.Box[1], box[1]), max(in.file.Box[2], box[2]), max(in.file.Box[3], box[3])}
	in.tally.add(t)
	in.mu.Unlock()
	if w == nil {
		return nil
	}
	return w.add(b, seq)
}

// merge adds input in's findings to the census.
func (c *Census) merge(in *inputScan) error {
	p := in.file.Path
	switch {
	case in.srs == "" || in.srs == c.SRS:
	case c.SRS == "":
		c.SRS = in.srs
	case !gdalio.SameSRS(in.srs, c.SRS):
		return fmt.Errorf("%s is not in the CRS of the inputs before it: grid inputs of one CRS together", p)
	}
	c.Files = append(c.Files, in.file)
	c.tally.add(in.tally)
	return nil
}

// box is the samples' box (absolute): the union of the inputs' boxes.
func (c *Census) box() [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, f := range c.Files {
		b = [4]float64{min(b[0], f.Box[0]), min(b[1], f.Box[1]), max(b[2], f.Box[2]), max(b[3], f.Box[3])}
	}
	return b
}

// spillBox is the box the spill's buckets cover: the union of the LAS headers' boxes, or a
// first pass over other inputs. It also sets the LAS read origin.
func (c *Census) spillBox(ctx context.Context, paths []string) ([4]float64, error) {
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	grow := func(b [4]float64) {
		box = [4]float64{min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])}
	}
	if c.las {
		var scale [2]float64
		for i, p := range paths {
			h, err := lidar.ReadHeader(gdalio.OpenInput, p)
			if err != nil {
				return box, err
			}
			if i == 0 {
				scale = [2]float64{h.Scale[0], h.Scale[1]}
			}
			grow([4]float64{h.Min[0], h.Min[1], h.Max[0], h.Max[1]})
		}
		// as the in-memory run: the lattice point nearest the centre of the headers' box
		_, c.readX = sample.LatticePoint((box[0]+box[2])/2, scale[0])
		_, c.readY = sample.LatticePoint((box[1]+box[3])/2, scale[1])
		return box, nil
	}
	for _, p := range paths {
		_, err := gdalio.ScanSources(ctx, p, c.opt, func(_ int, b *sample.Samples) error {
			for i := range int32(b.Len()) {
				x, y := b.XY(i)
				x, y = x+b.OriginX, y+b.OriginY
				grow([4]float64{x, y, x, y})
			}
			return nil
		})
		if err != nil {
			return box, err
		}
	}
	return box, nil
}

// scanOther is the census's pass over a vector or text input: one band, plain samples.
func (c *Census) scanOther(ctx context.Context, p string, take func(*sample.Samples) error) (string, error) {
	srcs, err := gdalio.ScanSources(ctx, p, c.opt, func(band int, b *sample.Samples) error {
		if band > 0 {
			return fmt.Errorf("%s gives more than one layer: tiled mode grids one", p)
		}
		return take(b)
	})
	if err != nil {
		return "", err
	}
	srs := ""
	for _, s := range srcs {
		if s.Extent != nil {
			e := *s.Extent
			c.Extent = [4]float64{min(c.Extent[0], e[0]), min(c.Extent[1], e[1]), max(c.Extent[2], e[2]), max(c.Extent[3], e[3])}
		}
		srs = s.SRS
	}
	return srs, nil
}

// form checks that batch b has the job's form (compact on the first batch's lattice, or
// plain), taking it from the first batch.
func (c *Census) form(b *sample.Samples, first bool, path string) error {
	if first {
		c.compact = b.IsCompact()
		c.batchX, c.batchY, c.quantumX, c.quantumY = b.OriginX, b.OriginY, b.QuantumX, b.QuantumY
		return nil
	}
	if b.IsCompact() != c.compact || c.compact && (b.OriginX != c.batchX || b.OriginY != c.batchY || b.QuantumX != c.quantumX || b.QuantumY != c.quantumY) {
		return fmt.Errorf("%s: its points are not on the lattice of the inputs before it (scale and offset): inputs whose points are not all on one lattice cannot be tiled exactly", path)
	}
	return nil
}

// measure counts batch b into t and widens t's extremes and the input's box (absolute, as
// sample.Samples.Bounds computes a box: the extremes relative to the origin, then the origin).
func (c *Census) measure(t *tally, b *sample.Samples, box *[4]float64) {
	t.n += b.Len()
	var lo, hi [2]float64
	if c.compact {
		x0, y0, x1, y1 := int32(math.MaxInt32), int32(math.MaxInt32), int32(math.MinInt32), int32(math.MinInt32)
		for i, qy := range b.QY[:len(b.QX)] {
			qx := b.QX[i]
			x0, y0, x1, y1 = min(x0, qx), min(y0, qy), max(x1, qx), max(y1, qy)
		}
		qlo, qhi := [2]int32{x0, y0}, [2]int32{x1, y1}
		t.qlo = [2]int64{min(t.qlo[0], int64(qlo[0])), min(t.qlo[1], int64(qlo[1]))}
		t.qhi = [2]int64{max(t.qhi[0], int64(qhi[0])), max(t.qhi[1], int64(qhi[1]))}
		lo = [2]float64{float64(qlo[0])*c.quantumX + c.batchX, float64(qlo[1])*c.quantumY + c.batchY}
		hi = [2]float64{float64(qhi[0])*c.quantumX + c.batchX, float64(qhi[1])*c.quantumY + c.batchY}
	} else {
		lo, hi = [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		for i := range int32(b.Len()) {
			x, y := b.XY(i)
			t.rlo = [2]float64{min(t.rlo[0], x), min(t.rlo[1], y)}
			t.rhi = [2]float64{max(t.rhi[0], x), max(t.rhi[1], y)}
			x, y = x+b.OriginX, y+b.OriginY
			lo = [2]float64{min(lo[0], x), min(lo[1], y)}
			hi = [2]float64{max(hi[0], x), max(hi[1], y)}
		}
	}
	*box = [4]float64{min(box[0], lo[0]), min(box[1], lo[1]), max(box[2], hi[0]), max(box[3], hi[1])}
}

// Facts are the job's facts for target t, from the census's extremes: no reading. The local
// origin is the target's centre (on the lattice for compact samples), as in the in-memory run;
// the spill, if any, loads relative to it from now on.
func (c *Census) Facts(t raster.Target) (*Facts, error) {
	cx, cy := t.Centre()
	f := &Facts{N: c.n}
	if c.compact {
		kx, ox := sample.LatticePoint(cx, c.quantumX)
		ky, oy := sample.LatticePoint(cy, c.quantumY)
		bx, _ := sample.LatticePoint(c.batchX, c.quantumX)
		by, _ := sample.LatticePoint(c.batchY, c.quantumY)
		// as sample.Samples.MoveOrigin shifts the quanta, then XY scales them
		rel := func(q, shift int64, quantum float64) (float64, error) {
			v := q + shift
			if math.Abs(float64(v)) > math.MaxInt32-2 {
				return 0, fmt.Errorf("the samples span more than 2^31 quanta: they cannot be tiled exactly")
			}
			return float64(int32(v)) * quantum, nil
		}
		var err error
		for k, v := range []struct {
			q, shift int64
			quantum  float64
		}{{c.qlo[0], bx - kx, c.quantumX}, {c.qlo[1], by - ky, c.quantumY}, {c.qhi[0], bx - kx, c.quantumX}, {c.qhi[1], by - ky, c.quantumY}} {
			if f.Rel[k], err = rel(v.q, v.shift, v.quantum); err != nil {
				return nil, err
			}
		}
		f.OriginX, f.OriginY, f.QuantumX, f.QuantumY = ox, oy, c.quantumX, c.quantumY
	} else if c.Spill != nil && c.Spill.relative() {
		// as MoveOrigin from the reader's origin: x + (ox - cx), monotonic in x
		dx, dy := c.batchX-cx, c.batchY-cy
		f.Rel = [4]float64{c.rlo[0] + dx, c.rlo[1] + dy, c.rhi[0] + dx, c.rhi[1] + dy}
		f.OriginX, f.OriginY = cx, cy
	} else {
		// as MoveOrigin from absolute coordinates: x + (0 - cx), monotonic in x
		b := c.box()
		f.Rel = [4]float64{b[0] + (0 - cx), b[1] + (0 - cy), b[2] + (0 - cx), b[3] + (0 - cy)}
		f.OriginX, f.OriginY = cx, cy
	}
	f.Bounds = [4]float64{f.Rel[0] + f.OriginX, f.Rel[1] + f.OriginY, f.Rel[2] + f.OriginX, f.Rel[3] + f.OriginY}
	if c.Spill != nil {
		c.Spill.setOrigin(cx, cy)
	}
	return f, nil
}

// LAS is the job's source that reads the LAS inputs directly (a plan's tiles, on any machine).
func (c *Census) LAS(t raster.Target) (*LAS, error) {
	if !c.las {
		return nil, fmt.Errorf("a plan's tiles read LAS/LAZ inputs only")
	}
	l := &LAS{Files: c.Files, Opt: c.opt}
	l.originX, l.originY = t.Centre()
	return l, nil
}

// Close removes the spill, if any.
func (c *Census) Close() error {
	if c.Spill == nil {
		return nil
	}
	err := c.Spill.Close()
	c.Spill = nil
	return err
}

func inputNames(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	return fmt.Sprintf("%s and %d more", paths[0], len(paths)-1)
}
