package gridding

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/inputs"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/report"
	"github.com/aidw/aidw/sample"
)

// Grid grids the samples of o.Sources into the raster o.Dest: it reads the samples and the
// target, runs an engine band by band (or tile by tile, see runTiledIfAsked), and publishes
// the raster only when the run succeeds, leaving no output behind on failure; ctx stops
// every phase within a second.
func Grid(ctx context.Context, o *Options) (err error) {
	r, err := newRun(o)
	if err != nil {
		return err
	}
	if err := gdalio.CheckSRS("-a_srs", r.SRS); err != nil {
		return err
	}
	if err := gdalio.CheckDestination(r.Dest); err != nil {
		return err
	}
	if err := r.expand(); err != nil {
		return err
	}
	if err := outfile.CheckNotSource(r.Dest, r.Sources, r.inputs); err != nil {
		return err
	}
	if r.Preview != "" {
		if !strings.EqualFold(filepath.Ext(r.Preview), ".png") {
			return fmt.Errorf("-preview %s: the quick look is a PNG: give a .png file", r.Preview)
		}
		if err := gdalio.CheckDestination(r.Preview); err != nil {
			return fmt.Errorf("-preview: %w", err)
		}
		if err := outfile.CheckNotSource(r.Preview, r.Sources, r.inputs); err != nil {
			return fmt.Errorf("-preview: %w", err)
		}
	}
	in, err := gdalio.OpenStdin(ctx, r.stdinReader(), r.inputs, r.sourceOptions(), r.rereads())
	if err != nil {
		return err
	}
	defer in.Close()
	defer func() { err = in.Rename(err) }()
	r.stdin, r.named, r.inputs = in, r.inputs, in.Paths(r.inputs)
	if tiled, err := r.runTiledIfAsked(ctx); tiled || err != nil {
		return err
	}
	return r.gridInMemory(ctx, readInMemory)
}

// gridInMemory is a run whose samples are read into memory at once, their big arrays in
// Options.Arena, or as stream chooses into the GPUs' memory (openAndRead).
func (r *run) gridInMemory(ctx context.Context, stream streamChoice) error {
	ctx = memory.WithArena(ctx, r.Arena)
	var tmpl *gdalio.Template
	var err error
	if r.Like != "" {
		if tmpl, err = gdalio.ReadTemplate(r.Like); err != nil {
			return err
		}
	}
	eng, sources, err := r.openAndRead(ctx, stream)
	if err != nil {
		return err
	}
	defer gdalio.CloseHeld(sources)
	outSRS, err := outputSRS(r.SRS, tmpl, sources, r.warnings())
	if err != nil {
		return err
	}
	reportSkipped(sources, r.warnings())

	target, err := r.target(tmpl, sources[0])
	if err != nil {
		return err
	}

	names := interp.BandNames(r.alg)
	nodata, setNoData := r.outputNoData(tmpl)
	ropt := gdalio.RasterOptions{Format: r.Format, Type: r.Type, Create: r.Creation,
		SRS: outSRS, Bands: len(sources) * len(names), NoData: nodata,
		SetNoData: setNoData || target.Mask != nil}
	w, err := gdalio.Create(r.Dest, target, ropt)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			w.Abort() // no temporary file outlives a panic
			panic(p)
		}
	}()
	preview, err := newPreview(r.Preview, outSRS, target, ropt.NoData, ropt.SetNoData)
	if err == nil {
		err = describeBands(w, names, sources)
	}
	if err == nil {
		err = r.writeProvenance(w)
	}
	if err == nil {
		err = gridBands(ctx, eng, r.alg, target, sources, w, preview, r.Progress)
	}
	return finishRaster(ctx, w, preview, r.Preview, err)
}

// openAndRead chooses the run's engine while it reads the samples: a GPU's driver and context
// take 0.4 s or more to start (over 1 s on a host with four). The samples are read in input
// order when the GPU engine would order them itself, and put in canonical order after all
// when the engine chosen does not. Unless stream is readInMemory, LAS inputs that the GPUs
// take stream into their memory as they are read (interp.Take), the host holding a few
// windows of them, and what was read before the GPUs opened (sample.Defer, within half the
// budget). Inputs they do not take are read into memory, once more, or under mustStream not
// at all (errNotStreamed). GPUs that cannot hold the samples give way to the CPU engine under
// -device auto, and fail the run under -device gpu.
func (r *run) openAndRead(ctx context.Context, stream streamChoice) (interp.Engine, []gdalio.Source, error) {
	must := stream == mustStream
	readCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	type chosen struct {
		eng interp.Engine
		err error
	}
	choice := make(chan chosen, 1)
	go func() {
		eng, err := chooseEngine(r.Device, r.GPUs, r.alg, false, r.Threads, r.warnings())
		if err != nil {
			stop(err) // no samples to read for a run that cannot start
		}
		choice <- chosen{eng, err}
	}()
	chosenEngine := sync.OnceValue(func() chosen { return <-choice })
	opt := r.sourceOptions()
	opt.InputOrder = r.Device != "cpu" && kernels.OrdersCompact(r.alg)
	if must || stream == mayStream && opt.InputOrder { // the GPU engine may take them as they are read
		opt.Take = func(proto *sample.Samples, n int) (sample.Sink, error) {
			return sample.Defer(readCtx, proto, r.budget()/2, func() (sample.Sink, error) {
				c := chosenEngine()
				if c.err != nil {
					return nil, c.err
				}
				sink, err := interp.Take(c.eng, r.alg, proto, n)
				if sink == nil && err == nil && must {
					err = errNotStreamed
				}
				return sink, err
			}), nil
		}
	}
	sources, err := gdalio.ReadInputs(readCtx, r.inputs, opt)
	if !must && (errors.Is(err, sample.ErrNotTaken) || errors.Is(err, lidar.ErrOffLattice)) {
		opt.Take = nil // the engine chosen reads them from memory
		sources, err = gdalio.ReadInputs(readCtx, r.inputs, opt)
	}
	c := chosenEngine()
	if c.err != nil {
		return nil, nil, c.err
	}
	if must && errors.Is(err, lidar.ErrOffLattice) {
		return nil, nil, errNotStreamed // tiles take samples in any form
	}
	if err != nil {
		return nil, nil, err
	}
	held := len(sources) == 1 && sources[0].Held != nil
	switch {
	case must && !held:
		return nil, nil, errNotStreamed
	case must && !r.quiet():
		fmt.Fprintf(r.warnings(), "The inputs' %d points stream into the memory of %s, which holds them: the run is not tiled.\n",
			sources[0].Len(), c.eng.Name())
	case !held: // held samples are held already
		if c.eng, err = r.holding(c.eng, mostSamples(sources)); err != nil {
			return nil, nil, err
		}
	}
	if opt.InputOrder && !interp.OrdersCompact(c.eng, r.alg) {
		for _, s := range sources {
			if !s.Samples.InputOrder {
				continue
			}
			if err := sample.Canonicalize(ctx, s.Samples); err != nil {
				return nil, nil, err
			}
		}
	}
	return c.eng, sources, nil
}

// holding is eng when it holds problems of n samples; else the CPU engine under -device auto,
// or an error that says why and what to do under -device gpu.
func (r *run) holding(eng interp.Engine, n int) (interp.Engine, error) {
	why := interp.WhyNotHold(eng, r.alg, n)
	if why == "" {
		return eng, nil
	}
	if r.Device == "gpu" {
		return nil, fmt.Errorf("%s: %s: tile the run with -memory, or grid it on the CPU with -device cpu",
			gpuRequest(r.GPUs), why)
	}
	fmt.Fprintf(r.warnings(), "The GPU engine cannot hold the samples (%s): running on the CPU engine.\n", why)
	return &interp.CPU{Threads: r.Threads}, nil
}

// mostSamples is the most samples a source has: each is a problem of its own.
func mostSamples(sources []gdalio.Source) int {
	n := 0
	for _, s := range sources {
		n = max(n, s.Samples.Len())
	}
	return n
}

// run is one gridding run: its options, with the algorithm parsed and the inputs expanded,
// each once.
type run struct {
	*Options
	alg         interp.Algorithm
	nodataGiven bool          // the -a string sets nodata, so the band gets it (as gdal_grid)
	inputs      []string      // Sources, expanded (see expand), standard input's spill in its place
	named       []string      // the inputs as the raster's metadata names them: standard input as given
	stdin       *gdalio.Stdin // standard input, when a source names it
}

// streamChoice says whether an in-memory run's LAS points stream into the GPUs (openAndRead).
type streamChoice int

const (
	readInMemory streamChoice = iota // the host holds them
	mayStream                        // they stream when the GPUs take them, else the host holds them
	mustStream                       // they stream, or the run does not read them (errNotStreamed)
)

// errNotStreamed says that the GPUs did not take the samples of a run that must stream them.
var errNotStreamed = errors.New("the samples do not stream into the GPUs' memory")

// stdinReader is what a source "-" or /vsistdin/ reads: Options.Stdin, else the process's
// standard input.
func (o *Options) stdinReader() io.Reader {
	if o.Stdin != nil {
		return o.Stdin
	}
	return os.Stdin
}

// newRun parses the algorithm, printing the warnings gdal_grid would, as GDAL prints
// CPLE_AppDefined warnings.
func newRun(o *Options) (*run, error) {
	p, err := interp.Parse(cmp.Or(o.Algorithm, DefaultAlgorithm))
	if err != nil {
		return nil, err
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(o.warnings(), "Warning 1: %s\n", w)
	}
	own := *o // the caller's options stay as they were
	own.Threads = threadsOr(o.Threads)
	return &run{Options: &own, alg: p.Algorithm, nodataGiven: p.NoDataGiven()}, nil
}

// threadsOr is n CPU workers, or every core when n is not positive.
func threadsOr(n int) int {
	if n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// DefaultAlgorithm is the algorithm of Options that name none.
const DefaultAlgorithm = "aidw"

// expand resolves the sources into the inputs to read, once for the run.
func (r *run) expand() error {
	var err error
	r.inputs, err = inputs.Expand(r.Sources)
	return err
}

// writeBands is the sink of an output's rows: every band of a source, written from band
// band0+1 on, the first band's rows also to the preview, if any.
func writeBands(w *gdalio.Writer, preview *report.Preview, band0 int) func(row0, rows int, bands [][]float64) error {
	return func(row0, rows int, bands [][]float64) error {
		if preview != nil {
			preview.AddRows(row0, rows, bands[0])
		}
		for k, values := range bands {
			if err := w.WriteRows(band0+k+1, row0, rows, values); err != nil {
				return err
			}
		}
		return nil
	}
}

// finishRaster completes an output that err did not stop: the preview's PNG, then the raster
// committed (stopped within a second by ctx, as every phase), then the preview written; on
// failure nothing is left.
func finishRaster(ctx context.Context, w *gdalio.Writer, preview *report.Preview, previewPath string, err error) error {
	var png []byte
	if err == nil && preview != nil {
		png, err = preview.PNG()
	}
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.CommitContext(ctx); err != nil {
		return err
	}
	if preview != nil {
		return outfile.WriteAtomic(previewPath, png)
	}
	return nil
}

// outputSRS is the output's CRS: -a_srs, else the template's (samples in another CRS are
// transformed into it, and the user is told), else the samples'.
func outputSRS(asrs string, tmpl *gdalio.Template, sources []gdalio.Source, stderr io.Writer) (string, error) {
	if asrs != "" {
		return asrs, nil
	}
	if tmpl == nil || tmpl.SRS == "" {
		return sources[0].SRS, nil
	}
	for _, s := range sources {
		if s.SRS == "" || gdalio.SameSRS(s.SRS, tmpl.SRS) {
			continue
		}
		fmt.Fprintf(stderr, "Transforming the samples of %s from their CRS into the template's CRS.\n", s.Name)
		dropped, err := gdalio.TransformSamples(s.Samples, s.SRS, tmpl.SRS)
		if err != nil {
			return "", fmt.Errorf("transforming %s into the template's CRS: %w", s.Name, err)
		}
		if dropped > 0 {
			fmt.Fprintf(stderr, "%d sample(s) of %s could not be transformed and were left out.\n", dropped, s.Name)
		}
	}
	return tmpl.SRS, nil
}

// reportSkipped says how many samples of each source were unusable, and why.
func reportSkipped(sources []gdalio.Source, stderr io.Writer) {
	for _, s := range sources {
		if s.Skipped > 0 {
			fmt.Fprintf(stderr, "Skipped %d sample(s) of %s: %s.\n", s.Skipped, s.Name, s.SkipReason)
		}
	}
}

// describeBands names the bands when the algorithm gives several per source ("value",
// "alpha", ...; prefixed by the source's name when there are several sources).
func describeBands(w *gdalio.Writer, names []string, sources []gdalio.Source) error {
	if len(names) == 1 {
		return nil
	}
	for i, s := range sources {
		named := names
		if len(sources) > 1 {
			named = make([]string, len(names))
			for k, name := range names {
				named[k] = s.Name + " " + name
			}
		}
		if err := nameBands(w, i*len(names), named); err != nil {
			return err
		}
	}
	return nil
}

// nameBands gives bands band0+1, band0+2, ... the names.
func nameBands(w *gdalio.Writer, band0 int, names []string) error {
	for k, name := range names {
		if err := w.Describe(band0+k+1, name); err != nil {
			return err
		}
	}
	return nil
}

// newPreview is the quick look of an output in CRS srs, or nil when none is asked for (path "").
func newPreview(path, srs string, t raster.Target, nodata float64, setNoData bool) (*report.Preview, error) {
	if path == "" {
		return nil, nil
	}
	geographic, err := gdalio.IsGeographic(srs)
	if err != nil {
		return nil, err
	}
	return report.NewPreview(t, geographic, nodata, setNoData), nil
}

// gridBands computes the bands of each source (one, or the algorithm's value and diagnostics)
// with the shared driver loop, streaming rows to w and the first band's to the preview, if any.
func gridBands(ctx context.Context, eng interp.Engine, alg interp.Algorithm, target raster.Target,
	sources []gdalio.Source, w *gdalio.Writer, preview *report.Preview, progress func(float64)) error {
	if progress != nil {
		progress(0)
	}
	var dropping sync.WaitGroup
	defer dropping.Wait()
	for i, s := range sources {
		cx, cy := target.Centre()
		if err := s.Samples.MoveOriginContext(ctx, cx, cy); err != nil {
			return err
		}
		p := &interp.Problem{Samples: s.Samples, Held: s.Held, Target: target, Alg: alg}
		if len(sources) == 1 { // sources of one input might share arrays
			p.Copied = func() {
				// on cores the GPU's nodes and the writer leave idle, rather than at the exit
				dropping.Go(func() { dropSamples(memory.ArenaOf(ctx), s.Samples) })
			}
		}
		sourcePreview := preview
		if i > 0 {
			sourcePreview = nil // the quick look is of the first band
		}
		sink := writeBands(w, sourcePreview, i*len(interp.BandNames(alg)))
		var sourceProgress func(float64)
		if progress != nil {
			sourceProgress = func(f float64) { progress((float64(i) + f) / float64(len(sources))) }
		}
		mark := memory.ArenaOf(ctx).Mark()
		if err := interp.GridBands(ctx, eng, p, sink, sourceProgress); err != nil {
			return fmt.Errorf("gridding %s: %w", s.Name, err)
		}
		memory.ArenaOf(ctx).FreeSince(mark) // the source's index, done with
	}
	return nil
}

// sourceOptions select the samples, with the layer's extent when it is the output's default.
func (o *Options) sourceOptions() gdalio.SourceOptions {
	s := o.Select
	s.LayerExtent = o.TXE == nil || o.TYE == nil
	return s
}

// sourceOptions select the samples of the run, standard input's stream included.
func (r *run) sourceOptions() gdalio.SourceOptions {
	s := r.Options.sourceOptions()
	s.Stdin = r.stdin.Stream()
	return s
}

// target builds the output raster's geometry: the template's, or gdal_grid's rules (extent
// from -txe/-tye or the samples' bounding box; size from -outsize, -tr or 256x256), north-up.
func (o *Options) target(tmpl *gdalio.Template, src gdalio.Source) (raster.Target, error) {
	if tmpl != nil {
		return tmpl.Target, nil
	}
	var xmin, ymin, xmax, ymax float64
	if e := src.Extent; e != nil {
		xmin, ymin, xmax, ymax = e[0], e[1], e[2], e[3]
	} else {
		xmin, ymin, xmax, ymax = src.Samples.Bounds()
	}
	if o.TXE != nil {
		if o.TXE[0] > o.TXE[1] {
			return raster.Target{}, fmt.Errorf("inverted extent -txe %g %g: xmin must be less than xmax", o.TXE[0], o.TXE[1])
		}
		xmin, xmax = o.TXE[0], o.TXE[1]
	}
	// -tye may come in either order: gdal_grid writes north-up rasters either way.
	if o.TYE != nil {
		ymin, ymax = math.Min(o.TYE[0], o.TYE[1]), math.Max(o.TYE[0], o.TYE[1])
	}
	if xmax <= xmin || ymax <= ymin {
		return raster.Target{}, fmt.Errorf("zero-size extent %g,%g - %g,%g: give -txe and -tye with min < max", xmin, ymin, xmax, ymax)
	}
	cols, rows := 256, 256
	switch {
	case o.Outsize != nil:
		cols, rows = o.Outsize[0], o.Outsize[1]
	case o.TR != nil && o.TAP:
		return alignedTarget(xmin, ymin, xmax, ymax, o.TR[0], o.TR[1])
	case o.TR != nil:
		// gdal_grid's rule: the extent stays, the size is rounded to the nearest whole cell.
		if o.TR[0] <= 0 || o.TR[1] <= 0 {
			return raster.Target{}, fmt.Errorf("-tr %g %g: resolutions must be positive", o.TR[0], o.TR[1])
		}
		fx := (xmax - xmin + o.TR[0]/2) / o.TR[0]
		fy := (ymax - ymin + o.TR[1]/2) / o.TR[1]
		if fx < 1 || fy < 1 || fx > math.MaxInt32 || fy > math.MaxInt32 {
			return raster.Target{}, fmt.Errorf("-tr %g %g gives an invalid output size over the extent", o.TR[0], o.TR[1])
		}
		cols, rows = int(fx), int(fy)
	}
	t := raster.NorthUp(xmin, ymin, xmax, ymax, cols, rows)
	return t, t.Validate()
}

// alignedTarget is -tap's grid, as gdalwarp's: the extent grows outwards to whole multiples of
// the resolution, so that cells are exactly xres x yres and the grids of different runs line
// up.
func alignedTarget(xmin, ymin, xmax, ymax, xres, yres float64) (raster.Target, error) {
	if xres <= 0 || yres <= 0 {
		return raster.Target{}, fmt.Errorf("-tr %g %g: resolutions must be positive", xres, yres)
	}
	x0, x1 := math.Floor(xmin/xres)*xres, math.Ceil(xmax/xres)*xres
	y0, y1 := math.Floor(ymin/yres)*yres, math.Ceil(ymax/yres)*yres
	fx, fy := math.Round((x1-x0)/xres), math.Round((y1-y0)/yres)
	if fx < 1 || fy < 1 || fx > math.MaxInt32 || fy > math.MaxInt32 {
		return raster.Target{}, fmt.Errorf("-tap -tr %g %g gives an invalid output size over the extent", xres, yres)
	}
	t := raster.Target{Cols: int(fx), Rows: int(fy), GeoTransform: [6]float64{x0, xres, 0, y1, 0, -yres}}
	return t, t.Validate()
}

// dropSamples hands the pages of s's arrays in arena a back to the system (memory.Drop).
func dropSamples(a *memory.Arena, s *sample.Samples) {
	memory.Drop(a, s.X)
	memory.Drop(a, s.Y)
	memory.Drop(a, s.QX)
	memory.Drop(a, s.QY)
	memory.Drop(a, s.Z)
}
