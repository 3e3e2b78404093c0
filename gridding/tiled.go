package gridding

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
	"github.com/aidw/aidw/tiles"
)

// defaultBudget is the share of the free memory a run takes when -memory is not given, and
// what bounded it (the machine, the cgroup or GOMEMLIMIT).
func defaultBudget() (int64, string) {
	if avail, ok := memory.Available(); ok {
		return avail.Bytes / 2, "half of the " + avail.String()
	}
	return 4 << 30, "no memory limit found"
}

// budget is -memory, or the default share of the free memory.
func (o *Options) budget() int64 {
	b, _ := o.budgetOrigin()
	return b
}

// budgetOrigin is the budget and where it came from.
func (o *Options) budgetOrigin() (int64, string) {
	if o.Memory > 0 {
		return o.Memory, "-memory"
	}
	return defaultBudget()
}

// runTiledIfAsked runs `aidw grid` tile by tile when -tile asks for it, when the inputs are
// LAS/LAZ whose headers declare more points than the memory budget holds, when -memory
// holds other inputs to a budget, or when the output names one raster per input; it streams
// into the GPUs LAS inputs that the budget holds but that would take more than half of it. It
// says whether it ran.
func (r *run) runTiledIfAsked(ctx context.Context) (bool, error) {
	if r.TileSide == 0 {
		headers, ok := lasHeaders(r.inputs)
		budget, origin := r.budgetOrigin()
		switch {
		case isBatch(r.Dest):
			// one raster per input is a tiled run, whatever its size
		case !ok && r.Memory > 0:
			// other inputs declare no count: held to a budget, they are spilled and tiled
		case !ok:
			return false, nil
		case r.fitsInMemory(headers, budget):
			if lidar.Points(headers) < streamLeast || lidar.InMemoryBytes(headers) <= float64(budget)/2 {
				return false, nil
			}
			// points that would take most of the budget stream into the GPUs if they take them,
			// the host holding a few GB; with memory to spare it holds them, which is faster
			// on hosts whose cores decode the points before the GPUs open
			return true, r.gridInMemory(ctx, mayStream)
		default:
			held, err := r.streamed(ctx, headers)
			if held || err != nil {
				return true, err
			}
			if !r.quiet() {
				fmt.Fprintf(r.warnings(), "The inputs declare %d points, more than the memory budget of %s holds (%s): the run is tiled.\n",
					lidar.Points(headers), bytesize.Text(float64(budget)), origin)
			}
		}
		return true, r.runTiled(ctx, 0, budget)
	}
	return true, r.runTiled(ctx, r.TileSide, 0)
}

// streamed runs in memory LAS inputs that the host's memory budget does not hold, when they
// stream into the memory of the run's GPUs, which hold them (openAndRead): then nothing is
// tiled. It says whether it ran.
func (r *run) streamed(ctx context.Context, headers []lidar.Header) (bool, error) {
	if r.Device == "cpu" || isBatch(r.Dest) || !kernels.OrdersCompact(r.alg) {
		return false, nil
	}
	if _, ok := lidar.CompactProto(headers); !ok {
		return false, nil
	}
	gdalio.LimitCache(tiles.CacheBytes)
	if err := r.gridInMemory(ctx, mustStream); !errors.Is(err, errNotStreamed) {
		return true, err
	}
	return false, nil
}

// streamLeast is the fewest points that a run the budget holds streams into the GPUs: a
// stream costs about 0.3 s that fewer points do not win back, most likely the pinned windows'
// allocation (62.5M points under -memory 4GB took 0.89 s streamed and 0.56 s read into
// memory on an H200 of 16 cores; bench/results/gpu-survey-h200.md).
const streamLeast = 1 << 28

// rereads says whether the run may read its inputs more than once, which standard input
// cannot be without a spill: a tiled run (as runTiledIfAsked decides for inputs other than
// LAS/LAZ, which are spilled anyway) takes a census before it loads its tiles.
func (o *Options) rereads() bool {
	return o.TileSide > 0 || o.Memory > 0 || isBatch(o.Dest)
}

// lasHeaders is the headers of the inputs; ok is false unless every input is LAS/LAZ.
func lasHeaders(paths []string) ([]lidar.Header, bool) {
	if len(paths) == 0 {
		return nil, false
	}
	headers := make([]lidar.Header, len(paths))
	for i, p := range paths {
		if !lidar.IsLAS(p) {
			return nil, false
		}
		h, err := lidar.ReadHeader(gdalio.OpenInput, p)
		if err != nil {
			return nil, false
		}
		headers[i] = h
	}
	return headers, true
}

// fitsInMemory says whether the points of LAS inputs with these headers run in memory, untiled,
// within budget.
func (r *run) fitsInMemory(headers []lidar.Header, budget int64) bool {
	n := lidar.Points(headers)
	return tiles.FitsInMemory(tiles.RuleFor(r.alg, n), int64(n), lidar.InMemoryBytes(headers), budget)
}

// tiledJob is what a tiled run shares between its tiles: the census, the target, the facts.
type tiledJob struct {
	census *tiles.Census
	srs    string
	target raster.Target
	facts  *tiles.Facts
	tmpl   *gdalio.Template // -like's, nil without
}

// prepareTiled takes the census of the inputs and the job's facts; with spill, the census
// keeps the samples in a spill file for the tiles (close the job's census when done).
func (r *run) prepareTiled(ctx context.Context, spill bool, budget int64) (*tiledJob, error) {
	if len(r.Select.Layers) > 0 || len(r.Select.SQL) > 0 {
		return nil, fmt.Errorf("tiled mode grids one layer of each input: -l and -sql do not apply")
	}
	var tmpl *gdalio.Template
	var err error
	if r.Like != "" {
		if tmpl, err = gdalio.ReadTemplate(r.Like); err != nil {
			return nil, err
		}
	}
	census, err := tiles.TakeCensus(ctx, r.inputs, r.sourceOptions(), spill, "", budget)
	if err != nil {
		return nil, err
	}
	j := &tiledJob{census: census, srs: census.SRS, tmpl: tmpl}
	if err := j.prepare(r.Options); err != nil {
		census.Close()
		return nil, err
	}
	return j, nil
}

// prepare decides the job's CRS, target and facts from its census.
func (j *tiledJob) prepare(o *Options) error {
	srs, tmpl, extent := j.srs, j.tmpl, j.census.Extent
	if o.SRS == "" && tmpl != nil && tmpl.SRS != "" && srs != "" && !gdalio.SameSRS(srs, tmpl.SRS) {
		return fmt.Errorf("the samples' CRS is not the template's: tiled mode does not transform samples; run without -tile/-memory")
	}
	switch {
	case o.SRS != "":
		j.srs = o.SRS
	case tmpl != nil && tmpl.SRS != "":
		j.srs = tmpl.SRS
	}
	src := gdalio.Source{Extent: &extent, Samples: &sample.Samples{}}
	if math.IsInf(extent[0], 0) {
		return fmt.Errorf("%s: no usable samples", strings.Join(o.Sources, " "))
	}
	var err error
	if j.target, err = o.target(tmpl, src); err != nil {
		return err
	}
	j.facts, err = j.census.Facts(j.target)
	return err
}

// runTiled is `aidw grid` tile by tile into the one output raster, or, when the output's
// name holds a '#', into one raster per input (see batchWindows).
func (r *run) runTiled(ctx context.Context, side int, budget int64) error {
	j, err := r.prepareTiled(ctx, true, budget)
	if err != nil {
		return err
	}
	defer j.census.Close()
	alg := r.alg
	engines, err := tileEngines(r.Device, r.GPUs, alg, r.Threads, r.warnings())
	if err != nil {
		return err
	}
	cfg := tiles.Config{Target: j.target, Alg: alg, Engines: engines, Threads: r.Threads}
	if side == 0 {
		if cfg.Plan, err = tiles.PlanFor(j.target, j.facts, alg, len(interp.BandNames(alg)), budget, len(engines)); err != nil {
			if r.Memory == 0 {
				_, origin := defaultBudget()
				err = fmt.Errorf("%w (the budget is %s)", err, origin)
			}
			return err
		}
		side = cfg.Plan.Side
		if cfg.Plan.Chunk > 0 && r.Device != "cpu" && len(engines) > 0 && !r.quiet() {
			fmt.Fprintf(r.warnings(), "The samples stream past the tiles on the CPU engine: %s's global form does not fit the memory budget.\n", alg.Name())
		}
		gdalio.LimitCache(tiles.CacheBytes)
		memory.LimitHeap(cfg.Plan.HeapLimit(budget))
	}
	c, err := tiles.NewComputer(cfg, j.facts, j.census.Spill)
	if err != nil {
		return err
	}
	outputs := []tiledOutput{{r.Dest, tiles.Tile{Cols: j.target.Cols, Rows: j.target.Rows}}}
	if isBatch(r.Dest) {
		if outputs, err = batchWindows(r.Dest, j.target, j.census.Files); err != nil {
			return err
		}
	}
	if !r.quiet() {
		count := 0
		for _, o := range outputs {
			tl, _ := o.win.Split(side)
			count += len(tl)
		}
		fmt.Fprintf(r.Report, "Tiled run: %d samples, %d tiles of up to %d x %d nodes, %d output(s).\n", j.facts.N, count, side, side, len(outputs))
	}
	if r.Progress != nil {
		r.Progress(0)
	}
	total, done := 0.0, 0.0
	for _, o := range outputs {
		total += float64(o.win.Cols) * float64(o.win.Rows)
	}
	// Every output is finished before any is published: a run that fails leaves every
	// existing output as it was.
	var finished []*gdalio.Writer
	defer func() {
		for _, w := range finished {
			w.Abort()
		}
	}()
	var png []byte
	for _, o := range outputs {
		if r.Progress != nil {
			base, size := done, float64(o.win.Cols)*float64(o.win.Rows)
			c.SetProgress(func(f float64) { r.Progress((base + f*size) / total) })
		}
		w, p, err := r.writeTiled(ctx, j, c, o, side)
		if err != nil {
			return err
		}
		finished, png = append(finished, w), p
		done += float64(o.win.Cols) * float64(o.win.Rows)
	}
	for _, w := range finished {
		if err := w.PublishContext(ctx); err != nil {
			return err
		}
	}
	if png != nil {
		return outfile.WriteAtomic(r.Preview, png)
	}
	return nil
}

// tileEngines are the engines that compute a tiled run's tiles, each taking one at a time:
// every GPU chosen (chooseEngine), or nil for the CPU engine.
func tileEngines(device string, gpus []int, alg interp.Algorithm, threads int, stderr io.Writer) ([]interp.Engine, error) {
	if da, ok := alg.(interp.DeviceAlgorithm); ok && device != "cpu" {
		if d, _, _ := da.DeviceParams(nil, interp.Bounds{}); d.Form == interp.DeviceRadius {
			// the GPU sums a radius neighbourhood in its own grid's cell order, which
			// depends on the samples a tile loaded
			if device == "gpu" {
				fmt.Fprintf(stderr, "The GPU engine sums %s's radius neighbourhood in an order a tile changes: running the tiles on the CPU engine.\n", alg.Name())
			}
			return nil, nil
		}
	}
	eng, err := chooseEngine(device, gpus, alg, false, threads, stderr)
	if err != nil {
		return nil, err
	}
	return interp.Devices(eng), nil
}

// tiledOutput is a raster a tiled run writes: a window of the job's target.
type tiledOutput struct {
	path string
	win  tiles.Tile
}

// writeTiled computes output o's window of the job tile by tile into its raster, and returns
// the raster finished but not published (see gdalio.Writer.Finish), with the preview's PNG
// when the run makes one.
func (r *run) writeTiled(ctx context.Context, j *tiledJob, c *tiles.Computer, o tiledOutput, side int) (*gdalio.Writer, []byte, error) {
	nodata, setNoData := r.outputNoData(j.tmpl)
	names := interp.BandNames(c.Algorithm())
	target := j.target.Window(o.win.Col0, o.win.Row0, o.win.Cols, o.win.Rows)
	ropt := gdalio.RasterOptions{Format: r.Format, Type: r.Type, Create: r.Creation,
		SRS: j.srs, Bands: len(names), NoData: nodata, SetNoData: setNoData || j.target.Mask != nil}
	w, err := gdalio.Create(o.path, target, ropt)
	if err != nil {
		return nil, nil, err
	}
	previewPath := r.Preview
	if o.path != r.Dest {
		previewPath = "" // one raster per input: no quick look
	}
	preview, err := newPreview(previewPath, j.srs, target, ropt.NoData, ropt.SetNoData)
	if err == nil && len(names) > 1 {
		err = nameBands(w, 0, names)
	}
	if err == nil {
		err = tiles.RunWindow(ctx, c, o.win, side, writeBands(w, preview, 0))
	}
	var png []byte
	if err == nil && preview != nil {
		png, err = preview.PNG()
	}
	if err == nil {
		err = w.Finish(ctx)
	}
	if err != nil {
		w.Abort()
		return nil, nil, err
	}
	return w, png, nil
}

// isBatch says whether the output names one raster per input: a '#' in its file name, which
// each input's base name replaces (as PDAL's writers number their outputs, and as
// WhiteboxTools grids a folder of tiles tile by tile).
func isBatch(dst string) bool { return strings.Contains(filepath.Base(dst), "#") }

// batchWindows is the output of each input that has samples: the window of the job's nodes
// whose cells hold its samples (clipped to the target; none when outside it), named by dst
// with '#' replaced by the input's base name. Each raster equals that window of the one-raster
// run: its nodes are computed from the samples of every input within the halo.
func batchWindows(dst string, t raster.Target, files []tiles.InputFile) ([]tiledOutput, error) {
	g := t.GeoTransform
	if g[2] != 0 || g[4] != 0 {
		return nil, fmt.Errorf("%s: one raster per input needs a north-up grid", dst)
	}
	var out []tiledOutput
	seen := map[string]string{}
	for _, f := range files {
		if f.Points == 0 {
			continue
		}
		cell := func(v, origin, step float64, n int) int {
			return min(max(int(math.Floor((v-origin)/step)), -1), n)
		}
		c0, c1 := cell(f.Box[0], g[0], g[1], t.Cols), cell(f.Box[2], g[0], g[1], t.Cols)
		r0, r1 := cell(f.Box[3], g[3], g[5], t.Rows), cell(f.Box[1], g[3], g[5], t.Rows)
		c0, c1 = max(min(c0, c1), 0), min(max(c0, c1), t.Cols-1)
		r0, r1 = max(min(r0, r1), 0), min(max(r0, r1), t.Rows-1)
		if c1 < c0 || r1 < r0 {
			continue // the input's samples lie outside the target
		}
		base := strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
		if ext := filepath.Ext(base); strings.EqualFold(ext, ".copc") {
			base = strings.TrimSuffix(base, ext)
		}
		path := filepath.Join(filepath.Dir(dst), strings.ReplaceAll(filepath.Base(dst), "#", base))
		if other, ok := seen[path]; ok {
			return nil, fmt.Errorf("%s and %s would both write %s: give the inputs distinct names", other, f.Path, path)
		}
		seen[path] = f.Path
		out = append(out, tiledOutput{path, tiles.Tile{Col0: c0, Row0: r0, Cols: c1 - c0 + 1, Rows: r1 - r0 + 1}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no input has samples inside the output's extent", dst)
	}
	return out, nil
}
