package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/report"
)

// runGrid is `aidw grid`: read the samples and the target, run an engine band by band, and
// write the raster, leaving no output behind on failure.
func runGrid(ctx context.Context, a *gridArgs, stdout, stderr io.Writer) (err error) {
	if err := gdalio.SetConfig(a.config); err != nil {
		return err
	}
	alg, err := parseAlgorithm(a.alg, stderr)
	if err != nil {
		return err
	}
	threads, err := a.threadCount()
	if err != nil {
		return err
	}
	if err := gdalio.CheckSRS("-a_srs", a.srs); err != nil {
		return err
	}
	if err := gdalio.CheckDestination(a.dst); err != nil {
		return err
	}
	if err := gdalio.CheckNotSource(a.dst, a.srcs); err != nil {
		return err
	}
	if a.preview != "" {
		if !strings.EqualFold(filepath.Ext(a.preview), ".png") {
			return fmt.Errorf("-preview %s: the quick look is a PNG: give a .png file", a.preview)
		}
		if err := gdalio.CheckDestination(a.preview); err != nil {
			return fmt.Errorf("-preview: %w", err)
		}
		if err := gdalio.CheckNotSource(a.preview, a.srcs); err != nil {
			return fmt.Errorf("-preview: %w", err)
		}
	}
	in, err := gdalio.OpenStdin(ctx, os.Stdin, a.srcs, a.sourceOptions(), a.rereads())
	if err != nil {
		return err
	}
	defer in.Close()
	defer func() { err = in.Rename(err) }()
	a.stdin = in
	if tiled, err := runTiledIfAsked(ctx, a, alg, threads, stdout, stderr); tiled || err != nil {
		return err
	}

	var tmpl *gdalio.Template
	if a.like != "" {
		if tmpl, err = gdalio.ReadTemplate(a.like); err != nil {
			return err
		}
	}
	sources, err := gdalio.ReadInputs(ctx, a.inputs(), a.sourceOptions())
	if err != nil {
		return err
	}
	outSRS, err := outputSRS(a.srs, tmpl, sources, stderr)
	if err != nil {
		return err
	}
	reportSkipped(sources, stderr)

	target, err := a.target(tmpl, sources[0])
	if err != nil {
		return err
	}
	eng, err := chooseEngine(a.device, a.gpus, alg, false, threads, stderr)
	if err != nil {
		return err
	}

	names := interp.BandNames(alg)
	nodata, setNoData := outputNoData(a, alg, tmpl)
	ropt := gdalio.RasterOptions{Format: a.format, Type: a.outType, Create: a.creation,
		SRS: outSRS, Bands: len(sources) * len(names), NoData: nodata,
		SetNoData: setNoData || target.Mask != nil}
	w, err := gdalio.Create(a.dst, target, ropt)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			w.Abort() // no temporary file outlives a panic (see protect)
			panic(r)
		}
	}()
	preview, err := newPreview(a.preview, outSRS, target, ropt.NoData, ropt.SetNoData)
	if err == nil {
		err = describeBands(w, names, sources)
	}
	if err == nil {
		err = writeProvenance(w, a, alg)
	}
	if err == nil {
		err = gridBands(ctx, eng, alg, target, sources, w, preview, a.quiet, stdout)
	}
	return finishRaster(ctx, w, preview, a.preview, err)
}

// parseAlgorithm parses an -a string and prints the warnings gdal_grid would, as GDAL prints
// CPLE_AppDefined warnings.
func parseAlgorithm(s string, stderr io.Writer) (interp.Algorithm, error) {
	alg, warnings, err := interp.ParseAlgorithm(s)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "Warning 1: %s\n", w)
	}
	return alg, nil
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
		return gdalio.WriteAtomic(previewPath, png)
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
	sources []gdalio.Source, w *gdalio.Writer, preview *report.Preview, quiet bool, stdout io.Writer) error {
	var bar *termProgress
	if !quiet {
		bar = newTermProgress(stdout)
		bar.Update(0)
	}
	for i, s := range sources {
		cx, cy := target.Centre()
		s.Samples.MoveOrigin(cx, cy)
		p := &interp.Problem{Samples: s.Samples, Target: target, Alg: alg}
		sourcePreview := preview
		if i > 0 {
			sourcePreview = nil // the quick look is of the first band
		}
		sink := writeBands(w, sourcePreview, i*len(interp.BandNames(alg)))
		var progress func(float64)
		if bar != nil {
			progress = func(f float64) { bar.Update((float64(i) + f) / float64(len(sources))) }
		}
		if err := interp.GridBands(ctx, eng, p, sink, progress); err != nil {
			return fmt.Errorf("gridding %s: %w", s.Name, err)
		}
	}
	return nil
}

// sourceOptions are the flags that select and filter the samples.
func (a *gridArgs) sourceOptions() gdalio.SourceOptions {
	o := gdalio.SourceOptions{Layers: a.layers, SQL: a.sqls, Where: a.where, ZField: a.zfield,
		ZIncrease: a.zIncrease, ZMultiply: &a.zMultiply, OpenOptions: a.openOptions,
		ClipSrc: a.clipsrc, ClipSrcSQL: a.clipsrcSQL, ClipSrcLayer: a.clipsrcLayer,
		ClipSrcWhere: a.clipsrcWhere, LAS: a.las, LayerExtent: a.txe == nil || a.tye == nil,
		Stdin: a.stdin.Stream()}
	if a.spat != nil {
		o.Spat = &[4]float64{a.spat[0], a.spat[1], a.spat[2], a.spat[3]}
	}
	return o
}

// inputs are the sources to read: as given, standard input replaced by its spill, if any.
func (a *gridArgs) inputs() []string { return a.stdin.Paths(a.srcs) }

// target builds the output raster's geometry: the template's, or gdal_grid's rules (extent
// from -txe/-tye or the samples' bounding box; size from -outsize, -tr or 256x256), north-up.
func (a *gridArgs) target(tmpl *gdalio.Template, src gdalio.Source) (raster.Target, error) {
	if tmpl != nil {
		return tmpl.Target, nil
	}
	xmin, ymin, xmax, ymax := src.Samples.Bounds()
	if e := src.Extent; e != nil {
		xmin, ymin, xmax, ymax = e[0], e[1], e[2], e[3]
	}
	if a.txe != nil {
		if a.txe[0] > a.txe[1] {
			return raster.Target{}, fmt.Errorf("inverted extent -txe %g %g: xmin must be less than xmax", a.txe[0], a.txe[1])
		}
		xmin, xmax = a.txe[0], a.txe[1]
	}
	// -tye may come in either order: gdal_grid writes north-up rasters either way.
	if a.tye != nil {
		ymin, ymax = math.Min(a.tye[0], a.tye[1]), math.Max(a.tye[0], a.tye[1])
	}
	if xmax <= xmin || ymax <= ymin {
		return raster.Target{}, fmt.Errorf("zero-size extent %g,%g - %g,%g: give -txe and -tye with min < max", xmin, ymin, xmax, ymax)
	}
	cols, rows := 256, 256
	switch {
	case a.outsize != nil:
		cols, rows = a.outsize[0], a.outsize[1]
	case a.tr != nil && a.tap:
		return alignedTarget(xmin, ymin, xmax, ymax, a.tr[0], a.tr[1])
	case a.tr != nil:
		// gdal_grid's rule: the extent stays, the size is rounded to the nearest whole cell.
		if a.tr[0] <= 0 || a.tr[1] <= 0 {
			return raster.Target{}, fmt.Errorf("-tr %g %g: resolutions must be positive", a.tr[0], a.tr[1])
		}
		fx := (xmax - xmin + a.tr[0]/2) / a.tr[0]
		fy := (ymax - ymin + a.tr[1]/2) / a.tr[1]
		if fx < 1 || fy < 1 || fx > math.MaxInt32 || fy > math.MaxInt32 {
			return raster.Target{}, fmt.Errorf("-tr %g %g gives an invalid output size over the extent", a.tr[0], a.tr[1])
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
