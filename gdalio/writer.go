package gdalio

/*
#include <stdlib.h>
#include <gdal.h>
#include <cpl_vsi.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/internal/parts"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/raster/cog"
	"github.com/airbusgeo/godal"
)

// RasterOptions describe the output raster, with gdal_grid's flag semantics.
type RasterOptions struct {
	// Format (-of) is a GDAL raster driver; "" guesses it from the extension as gdal_grid
	// does (GTiff for a name without extension).
	Format string
	// Type (-ot) is a GDAL data type name; "" means Float64.
	Type string
	// Create (-co) are the driver's creation options, NAME=VALUE.
	Create []string
	// SRS is the CRS as WKT or anything GDAL's SetFromUserInput takes (EPSG:n); "" sets none.
	SRS string
	// NoData is every band's nodata value when SetNoData is true. gdal_grid sets it only when
	// the algorithm string names nodata= explicitly.
	NoData    float64
	SetNoData bool
	// Bands is the number of bands (one per source); 0 means 1.
	Bands int
	// Warn receives GDAL's warnings; nil prints them on stderr.
	Warn func(msg string)
}

// Writer writes a raster row block by row block into a temporary dataset beside the
// destination, which Commit renames into place; until then the destination is untouched.
// Rows go to GDAL as they come, so the raster never needs to fit in memory. A Writer is not
// safe for concurrent use.
type Writer struct {
	path       string
	format     string
	create     []string
	cols, rows int
	ds         *godal.Dataset
	bands      []godal.Band
	errs       godal.ErrorHandler
	warn       func(string)
	// tmp is the dataset written; copyTo, when set, is the temporary CreateCopy output for a
	// driver that cannot Create (tmp is then a GTiff); final, once finished, the one of them
	// that Publish renames.
	tmp, copyTo, final string
	// copyCache bounds GDAL's block cache while copyTo is made (see translate)
	copyCache int64
	// stage is the name the temporary files are made beside; dtype the bands' type
	stage string
	dtype godal.DataType
	// flushRows says whether a row of blockRows-line blocks is flushed once written; direct
	// whether rows go straight to the file (directRows)
	flushRows, direct bool
	blockRows         int
	// stdout, for a destination /vsistdout/, receives the finished raster's bytes.
	stdout io.Writer
	// cog, when set, is the COG aidw writes itself (cogwrite.go), whose full resolution has its
	// rows up to cogNext; ovr make its overviews, a level each
	cog     *cog.File
	cogNext int
	ovr     []*ovrFeed
	// pixels holds stepRows rows converted to the band's type
	pixels []byte
}

// CheckDestination fails early when path cannot be written: its folder is missing or not
// writable, or path is a folder (other than a Zarr store, which a Zarr output replaces). It
// creates nothing.
func CheckDestination(path string) error {
	if IsStdout(path) {
		_, err := outfile.Reserve(filepath.Join(os.TempDir(), stdoutStem), "")
		return err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() && !isZarrStore(path) {
		return fmt.Errorf("destination %s is a directory", path)
	}
	_, err := outfile.Reserve(path, filepath.Ext(path))
	return err
}

// isZarrStore says whether dir is a Zarr store (v2 or v3), which a Zarr output may replace.
func isZarrStore(dir string) bool {
	for _, f := range []string{".zgroup", ".zarray", "zarr.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Create starts the output raster: it checks the driver, the data type, the memory the row
// blocks and the driver's blocks need, and the destination folder, then creates the
// temporary dataset with its geotransform, CRS and nodata.
func Create(path string, t raster.Target, opt RasterOptions) (*Writer, error) {
	register()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() && !isZarrStore(path) {
		return nil, fmt.Errorf("destination %s is a directory", path)
	}
	bands := max(opt.Bands, 1)
	format, err := outputFormat(path, opt.Format)
	if err != nil {
		return nil, err
	}
	format, canCreate, canCopy, err := driverCaps(format)
	if err != nil {
		return nil, err
	}
	// the temporary files go beside the destination, or to TMPDIR for standard output
	stage, err := stagePath(path, format)
	if err != nil {
		return nil, err
	}
	outfile.RemoveStale(stage)
	dtype, size, err := dataType(opt.Type)
	if err != nil {
		return nil, err
	}
	if t.Cols > math.MaxInt32 || t.Rows > math.MaxInt32 {
		return nil, fmt.Errorf("output size %dx%d: GDAL rasters have at most %d pixels a side", t.Cols, t.Rows, math.MaxInt32)
	}
	// a block of rows is held as float64 values of every band plus a mask flag per node
	if err := checkMemory(t.Cols, raster.BlockRows(t.Cols)*t.Cols*(8*bands+1), "a block of rows"); err != nil {
		return nil, err
	}
	if err := checkDisk(stage, t); err != nil {
		return nil, err
	}
	wkt, err := srsWKT(opt.SRS)
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, format: format, create: threadedOptions(format, opt.Create), cols: t.Cols, rows: t.Rows,
		warn: warner(opt.Warn), stage: stage, dtype: dtype}
	if IsStdout(path) {
		w.stdout = os.Stdout
	}
	w.errs = godalErrors(w.warn)
	if format == "GPKG" && !hasOption(opt.Create, "RASTER_TABLE") {
		// the table is named after the file, as gdal_translate names it, not after the
		// temporary name the driver sees
		w.create = append(slices.Clip(opt.Create), "RASTER_TABLE="+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	createFormat, createOpts, ext := format, w.create, filepath.Ext(stage)
	var nodata *float64
	if opt.SetNoData {
		nodata = &opt.NoData
		if nodataLost[format] {
			w.warn(fmt.Sprintf("output format %s keeps no nodata value: nodata nodes hold %g as a value", format, opt.NoData))
		}
	}
	_, copyOnly := copyOnly[format]
	if copyOnly {
		if err := probeCopy(format, w.create, filepath.Ext(path), bands, dtype, t, wkt, nodata); err != nil {
			return nil, fmt.Errorf("output format %s: %w", format, err)
		}
	}
	if !canCreate || copyOnly {
		if !canCopy {
			return nil, fmt.Errorf("output format %s cannot write rasters", format)
		}
		// a GTiff holds the rows until Commit copies them into the final format
		createFormat, createOpts, ext = "GTiff", nil, ".tif"
		if w.copyTo, err = outfile.Reserve(stage, filepath.Ext(stage)); err != nil {
			return nil, err
		}
	}
	if strings.EqualFold(createFormat, "GTiff") {
		createOpts = tiffOptions(createOpts, bands)
	}
	layout, cogOK := cogLayout(format, t.Cols, t.Rows, bands, dtype, size, w.create)
	// its rows of tiles take the place of the driver's blocks in GDAL's cache, whose bound a run
	// held to a memory budget counts (tiles.CacheBytes): wider rasters go to the driver
	cogMemory := cog.Memory(layout)
	cogOK = cogOK && w.copyTo != "" && int64(cogMemory) <= int64(C.GDALGetCacheMax64()) &&
		checkMemory(t.Cols, cogMemory, "the COG's rows of tiles") == nil
	if cogOK {
		// the staged GTiff holds only the raster's description (its pixels go to the COG),
		// and the rows the COG gives back if it is left to the driver (leaveCOG)
		createOpts = append(createOpts, "SPARSE_OK=TRUE")
	}
	if w.tmp, err = outfile.Reserve(stage, ext); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.start(createFormat, createOpts, bands, dtype, size, t, wkt, nodata); err != nil {
		w.Abort()
		return nil, fmt.Errorf("creating %s: %w", path, flat(err))
	}
	if cogOK {
		if err := w.startCOG(stage, layout); err != nil {
			w.Abort()
			return nil, fmt.Errorf("creating %s: %w", path, err)
		}
	}
	return w, nil
}

// threadedOptions adds NUM_THREADS=ALL_CPUS to the creation options of a compressed GTiff or
// COG (COG compresses by default) unless given: GDAL then compresses blocks on every core,
// and the COG's overviews too; the blocks' bytes are the same.
func threadedOptions(format string, co []string) []string {
	compressed := strings.EqualFold(format, "COG") || strings.EqualFold(format, "GTiff") && hasOption(co, "COMPRESS")
	for _, o := range co {
		if k, v, _ := strings.Cut(o, "="); strings.EqualFold(k, "COMPRESS") && strings.EqualFold(v, "NONE") {
			compressed = false
		}
	}
	if !compressed || hasOption(co, "NUM_THREADS") {
		return co
	}
	return append(append([]string(nil), co...), "NUM_THREADS=ALL_CPUS")
}

// copyOnly are the drivers that can Create but write some rasters right only through
// CreateCopy, as gdal_translate does, each with the reason (GDAL 3.6).
var copyOnly = map[string]string{
	// a Float32, Int16 or UInt16 band is a gridded coverage, whose nodata (data_null) Create
	// cannot set: SetNoDataValue fails without a message
	"GPKG": "sets no nodata on a gridded coverage it creates",
	// formats with a nodata value of their own: CreateCopy turns nodata nodes into it, Create
	// keeps them as values
	"GSBG":  "has its own nodata value (1.70141e38)",
	"GS7BG": "has its own nodata value (1.70141e38)",
	"ISIS3": "has its own nodata value (NULL) per type",
	"ILWIS": "has its own nodata value per type",
}

// nodataLost are the drivers whose files keep no nodata value (GDAL 3.6): a nodata node is
// written as a plain value, which the Writer warns about.
var nodataLost = map[string]bool{"ARG": true, "FITS": true, "VICAR": true, "XYZ": true,
	"Rasterlite": true, "HF2": true}

// tiffOptions adds defaults to a GTiff's creation options unless given: BigTIFF when the file
// may pass 4 GB, and band-interleaved bands, since bands are written one after the other
// (pixel-interleaved blocks would be read back and, when compressed, rewritten per band).
func tiffOptions(co []string, bands int) []string {
	out := append([]string(nil), co...)
	if !hasOption(co, "BIGTIFF") {
		out = append(out, "BIGTIFF=IF_SAFER")
	}
	if bands > 1 && !hasOption(co, "INTERLEAVE") {
		out = append(out, "INTERLEAVE=BAND")
	}
	return out
}

func (w *Writer) start(format string, co []string, bands int, dtype godal.DataType, size int,
	t raster.Target, wkt string, nodata *float64) error {
	eh := godal.ErrLogger(w.errs)
	ds, err := godal.Create(godal.DriverName(format), w.tmp, bands, dtype, t.Cols, t.Rows,
		godal.CreationOption(co...), eh)
	if err != nil {
		return err
	}
	w.ds = ds
	w.bands = ds.Bands()
	bs := w.bands[0].Structure()
	// GDAL's cache holds a row of blocks while rows are written (all bands', when interleaved)
	blockRow := int64(bs.BlockSizeY) * int64((t.Cols+bs.BlockSizeX-1)/bs.BlockSizeX*bs.BlockSizeX) * int64(size) * int64(bands)
	if err := checkMemory(t.Cols, int(min(blockRow, math.MaxInt/2)), "a row of the driver's blocks"); err != nil {
		return err
	}
	// the copy writes rows of at most 512-line blocks (COG's default): two of them, or 32 MB
	w.copyCache = max(32<<20, 2*512*int64(t.Cols)*int64(size)*int64(bands))
	w.flushRows, w.blockRows = strings.EqualFold(format, "GTiff"), bs.BlockSizeY
	w.direct = directRows[format]
	if err := ds.SetGeoTransform(t.GeoTransform, eh); err != nil {
		return err
	}
	if wkt != "" {
		if err := ds.SetProjection(wkt, eh); err != nil {
			return err
		}
	}
	if nodata != nil {
		for _, b := range w.bands {
			if err := b.SetNoData(*nodata, eh); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteRows writes rows row0..row0+rows-1 of band (from 1), values row-major; GDAL converts
// them to the band's type as gdal_grid's output is (rounded and clamped for integers).
func (w *Writer) WriteRows(band, row0, rows int, values []float64) error {
	if w.ds == nil {
		return errors.New("writer is closed")
	}
	if band < 1 || band > len(w.bands) {
		return fmt.Errorf("band %d: the raster has bands 1 to %d", band, len(w.bands))
	}
	if row0 < 0 || rows < 1 || row0+rows > w.rows {
		return fmt.Errorf("rows %d-%d: the raster has rows 0 to %d", row0, row0+rows-1, w.rows-1)
	}
	if len(values) != rows*w.cols {
		return fmt.Errorf("%d rows need %d values, got %d", rows, rows*w.cols, len(values))
	}
	if w.cog != nil && row0 != w.cogNext {
		if err := w.leaveCOG(); err != nil { // rows out of order: the driver writes the COG
			return fmt.Errorf("writing %s: %w", w.path, err)
		}
	}
	var err error
	if w.cog != nil {
		err = w.writeCOGRows(row0, rows, values)
	} else if err = w.writeBand(band, row0, rows, values); err == nil {
		w.flushBlocks(band, row0+rows)
	}
	if err != nil {
		return fmt.Errorf("writing %s band %d rows %d-%d: %w", w.path, band, row0, row0+rows-1, flat(err))
	}
	return nil
}

// writeBand writes rows of band, stepRows at a time converted to the band's type on every
// core as GDAL converts them (GDALCopyWords: rounded and clamped), which GDAL would do on the
// one thread that writes: it then only copies them.
func (w *Writer) writeBand(band, row0, rows int, values []float64) error {
	opts := []godal.BandIOOption{godal.ErrLogger(w.errs)}
	if w.direct {
		opts = append(opts, godal.ConfigOption("GDAL_ONE_BIG_READ=YES"))
	}
	b := w.bands[band-1]
	if w.dtype == godal.Float64 || !hasTypedSlice(w.dtype) {
		return b.Write(0, row0, values, w.cols, rows, opts...) // as they are, or converted by GDAL
	}
	step := w.stepRows()
	for r := 0; r < rows; r += step {
		n := min(step, rows-r)
		raw := w.convert(values[r*w.cols : (r+n)*w.cols])
		if err := b.Write(0, row0+r, typedSlice(w.dtype, raw), w.cols, n, opts...); err != nil {
			return err
		}
	}
	return nil
}

// convertNodes is about how many nodes the writer converts at a time (stepRows): a few MB
// beside the rows it is handed, which may be a whole row of tiles.
const convertNodes = 1 << 19

// stepRows is how many rows the writer converts at a time: about convertNodes nodes.
func (w *Writer) stepRows() int { return max(1, convertNodes/w.cols) }

// convert converts values (at most stepRows rows) to the band's type as GDAL converts them
// (GDALCopyWords), on every core, into w.pixels, and returns them.
func (w *Writer) convert(values []float64) []byte {
	size := int(C.GDALGetDataTypeSizeBytes(C.GDALDataType(w.dtype)))
	if w.pixels == nil {
		w.pixels = make([]byte, w.stepRows()*w.cols*size)
	}
	raw := w.pixels[:len(values)*size]
	parts.Each(len(values), max(1, min(runtime.GOMAXPROCS(0), len(values)>>15)), func(_, lo, hi int) {
		C.GDALCopyWords(unsafe.Pointer(&values[lo]), C.GDT_Float64, 8, unsafe.Pointer(&raw[lo*size]),
			C.GDALDataType(w.dtype), C.int(size), C.int(hi-lo))
	})
	return raw
}

// directRows are the drivers whose bands are GDAL's raw bands (rawdataset.cpp), to which
// whole rows of the band's type are written straight into the file (GDAL_ONE_BIG_READ) rather
// than through the block cache, which Close would write out on one thread (a 1.6 GB ENVI:
// 0.7-0.8 s after its last row on a 16-core H200 host).
var directRows = map[string]bool{"ENVI": true, "EHdr": true, "ERS": true, "ISCE": true, "PAux": true, "MFF": true}

// flushBlocks writes a GTiff band's cached blocks once the rows written end a row of them:
// a compressed GTiff otherwise compresses every block at Close (GDAL's cache, 5% of memory,
// holds them), seconds that an interrupt cannot stop. Whole blocks only: a partial one would
// be compressed and written twice.
func (w *Writer) flushBlocks(band, end int) {
	if !w.flushRows || end%w.blockRows != 0 && end != w.rows {
		return
	}
	C.GDALFlushRasterCache(C.GDALGetRasterBand(datasetHandle(w.ds), C.int(band)))
}

// Describe sets the description of band (from 1), which GDAL shows as the band's name: what
// it holds ("value", "alpha", ...).
func (w *Writer) Describe(band int, text string) error {
	if w.ds == nil {
		return errors.New("writer is closed")
	}
	if band < 1 || band > len(w.bands) {
		return fmt.Errorf("band %d: the raster has bands 1 to %d", band, len(w.bands))
	}
	if err := w.bands[band-1].SetDescription(text, godal.ErrLogger(w.errs)); err != nil {
		return fmt.Errorf("describing %s band %d: %w", w.path, band, flat(err))
	}
	return nil
}

// SetMetadata sets a metadata item of the dataset (the default domain): what GDAL shows as
// the raster's metadata, kept by drivers that store it (in the file or its .aux.xml).
func (w *Writer) SetMetadata(key, value string) error {
	if w.ds == nil {
		return errors.New("writer is closed")
	}
	if err := w.ds.SetMetadata(key, value, godal.ErrLogger(w.errs)); err != nil {
		return fmt.Errorf("metadata %s of %s: %w", key, w.path, flat(err))
	}
	return nil
}

// Commit flushes the raster, converts it when the driver can only CreateCopy, and renames the
// finished files onto the destination. On failure it cleans up as Abort does.
func (w *Writer) Commit() error { return w.CommitContext(context.Background()) }

// CommitContext is Commit, stopped (and cleaned up) within a block of lines of the conversion
// when ctx is done; it then returns ctx's error.
func (w *Writer) CommitContext(ctx context.Context) error {
	if err := w.Finish(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // while the raster was closed
		w.Abort()
		return err
	}
	return w.PublishContext(ctx)
}

// Finish flushes and closes the raster and converts it when the driver can only CreateCopy,
// leaving it under its temporary name (stopped within a block of lines of the conversion when
// ctx is done): Publish then renames it into place, and Abort removes it. A run of several
// outputs finishes them all before it publishes any, so that a failure leaves every existing
// output as it was.
func (w *Writer) Finish(ctx context.Context) error {
	if w.ds == nil {
		return errors.New("writer is closed")
	}
	var err error
	if w.cog != nil && w.cogNext != w.rows {
		err = w.leaveCOG() // rows missing: the driver writes the COG, as for other formats
	}
	if closeErr := w.ds.Close(godal.ErrLogger(w.errs)); err == nil {
		err = closeErr
	}
	w.ds, w.bands = nil, nil
	w.final = w.tmp
	if err == nil && w.copyTo != "" {
		if w.cog != nil {
			err = w.finishCOG(ctx)
		} else {
			err = w.copy(ctx)
		}
		w.final = w.copyTo
	}
	if err == nil {
		err = chmodUmask(w.final)
	}
	if err != nil {
		w.Abort()
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return err
		}
		return fmt.Errorf("writing %s: %w", w.path, flat(err))
	}
	return nil
}

// Publish renames a finished raster into place, or copies it to standard output.
func (w *Writer) Publish() error { return w.PublishContext(context.Background()) }

// PublishContext is Publish, whose copy to standard output stops when ctx is done.
func (w *Writer) PublishContext(ctx context.Context) error {
	if w.final == "" {
		return errors.New("writer is not finished")
	}
	if w.stdout != nil {
		if err := copyOut(ctx, w.final, w.stdout); err != nil {
			w.Abort()
			return fmt.Errorf("writing %s: %w", w.path, err)
		}
	} else if err := renameDataset(w.final, w.path); err != nil {
		w.Abort()
		return fmt.Errorf("writing %s: %w", w.path, flat(err))
	}
	w.final = ""
	w.Abort() // the GTiff a CreateCopy read from, if any
	return nil
}

// copy runs the driver's CreateCopy from the temporary GTiff, with the -co options; it stops
// when ctx is done. A COG's overviews are computed first on every core when aidw can make
// them as the driver would (see overviews.go).
func (w *Writer) copy(ctx context.Context) error {
	args := []string{"-of", w.format}
	for _, co := range w.create {
		args = append(args, "-co", co)
	}
	src := w.tmp
	if levels, ok := cogOverviewLevels(w.cols, w.rows, w.dtype, w.create); ok && len(levels) > 0 &&
		strings.EqualFold(w.format, "COG") {
		b := ovrBuild{ctx: ctx, src: w.tmp, stage: w.stage, levels: levels, workers: numThreads(w.create),
			radius: cubicRadius, errs: w.errs}
		restore := limitCache(w.copyCache) // the strips' rows pass through it once
		vrt, cleanup, err := b.withOverviews()
		restore()
		defer cleanup()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err == nil {
			src = vrt
		} // else the driver computes them, and reports what failed if it fails too
	}
	return translate(ctx, src, w.copyTo, args, w.copyCache, w.warn)
}

// numThreads is the NUM_THREADS creation option's thread count: every core unless a number.
func numThreads(co []string) int {
	if v, ok := optionValue(co, "NUM_THREADS"); ok && !strings.EqualFold(v, "ALL_CPUS") {
		return max(1, atoi(v))
	}
	return runtime.GOMAXPROCS(0)
}

// Abort closes and removes every temporary file; an existing destination stays as it was.
// It is safe to call after Commit and more than once.
func (w *Writer) Abort() {
	w.abandonCOG()
	if w.ds != nil {
		// its blocks still in GDAL's cache are dropped, not compressed and written (seconds
		// of a compressed GTiff's)
		discardOnClose(w.ds)
		w.ds.Close(godal.ErrLogger(w.errs))
		w.ds, w.bands = nil, nil
	}
	for _, tmp := range []string{w.tmp, w.copyTo} {
		if tmp == "" {
			continue
		}
		removeDataset(tmp)
	}
	w.tmp, w.copyTo, w.final = "", "", ""
}

// datasetFiles lists the files of the temporary dataset at tmp: tmp itself and the side files
// its driver wrote (x.hdr, x.tif.aux.xml, ...), all named after its unique stem.
func datasetFiles(tmp string) ([]string, error) {
	dir := filepath.Dir(tmp)
	stem := strings.TrimSuffix(filepath.Base(tmp), filepath.Ext(tmp))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n == stem || strings.HasPrefix(n, stem+".") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// renameDataset moves the temporary dataset's files onto the destination's names, the main
// file last, and removes a stale x.aux.xml of the old destination that the new one lacks.
func renameDataset(tmp, dst string) error {
	files, err := datasetFiles(tmp)
	if err != nil {
		return err
	}
	tmpStem := strings.TrimSuffix(filepath.Base(tmp), filepath.Ext(tmp))
	dstStem := strings.TrimSuffix(filepath.Base(dst), filepath.Ext(dst))
	dir := filepath.Dir(dst)
	staleAux := dst + ".aux.xml"
	for _, f := range files {
		// GDAL may list "./x.tif" as "x.tif": compare cleaned paths.
		if filepath.Clean(f) == filepath.Clean(tmp) {
			continue
		}
		to := filepath.Join(dir, dstStem+strings.TrimPrefix(filepath.Base(f), tmpStem))
		if to == staleAux {
			staleAux = ""
		}
		if err := os.Rename(f, to); err != nil {
			return err
		}
	}
	if st, err := os.Stat(tmp); err == nil && st.IsDir() {
		return replaceDir(tmp, dst)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	if staleAux != "" {
		if err := os.Remove(staleAux); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// replaceDir moves a dataset that is a directory (a Zarr store) onto dst, which may be an
// older store: it is moved aside first and removed once the new one is in place.
func replaceDir(tmp, dst string) error {
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		old, err := outfile.Reserve(dst, filepath.Ext(dst))
		if err != nil {
			return err
		}
		if err := os.Rename(dst, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.Rename(old, dst)
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, dst)
}

// chmodUmask gives the finished raster the mode a newly created file gets (0666 less the
// umask), as gdal_grid's output has: the temporary file it was written to is 0600.
func chmodUmask(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil // a Zarr store: the driver made it with the umask's mode
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	return os.Chmod(path, os.FileMode(0o666&^mask))
}

// outputFormat is -of, or gdal_grid's guess from the extension.
func outputFormat(path, format string) (string, error) {
	if format != "" {
		return format, nil
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext == "" {
		return "GTiff", nil
	}
	var found []string
	for i := range int(C.GDALGetDriverCount()) {
		d := C.GDALGetDriver(C.int(i))
		if driverItem(d, "DCAP_RASTER") == "" ||
			(driverItem(d, "DCAP_CREATE") == "" && driverItem(d, "DCAP_CREATECOPY") == "") {
			continue
		}
		for _, e := range strings.Fields(strings.ToLower(driverItem(d, "DMD_EXTENSIONS"))) {
			if e == ext {
				found = append(found, C.GoString(C.GDALGetDriverShortName(d)))
			}
		}
	}
	if len(found) == 0 && ext == "zarr" {
		found = append(found, "Zarr") // GDAL 3.6's Zarr driver declares no extension
	}
	if len(found) == 0 {
		return "", fmt.Errorf("cannot guess the output format of %s from its extension: give -of", path)
	}
	return found[0], nil
}

func driverItem(d C.GDALDriverH, key string) string {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	v := C.GDALGetMetadataItem(C.GDALMajorObjectH(d), ck, nil)
	if v == nil {
		return ""
	}
	return C.GoString(v)
}

// driverCaps gives the driver's own name for format (-of is any case) and whether it can
// Create and CreateCopy rasters.
func driverCaps(format string) (name string, canCreate, canCopy bool, err error) {
	cf := C.CString(format)
	defer C.free(unsafe.Pointer(cf))
	d := C.GDALGetDriverByName(cf)
	if d == nil || driverItem(d, "DCAP_RASTER") == "" {
		return "", false, false, fmt.Errorf("output format %q is not a GDAL raster driver", format)
	}
	if strings.EqualFold(format, "MEM") {
		return "", false, false, errors.New("output format MEM keeps the raster in memory and writes no file")
	}
	name = C.GoString(C.GDALGetDriverShortName(d))
	return name, driverItem(d, "DCAP_CREATE") != "", driverItem(d, "DCAP_CREATECOPY") != "", nil
}

// probeSeq makes the in-memory folders of one process's probes distinct.
var probeSeq atomic.Uint64

// probeCopy converts a raster of one node, with the output's bands, type, nodata,
// georeferencing and creation options, into the format, in memory: a copyOnly driver's
// CreateCopy runs only once the rows are written, so what it refuses (a data type, a band
// count, an option) is found now, before the work, as its Create would have found it.
func probeCopy(format string, co []string, ext string, bands int, dtype godal.DataType, t raster.Target,
	wkt string, nodata *float64) error {
	dir := fmt.Sprintf("/vsimem/aidw-probe-%d-%d/", os.Getpid(), probeSeq.Add(1))
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	defer C.VSIRmdirRecursive(cdir)
	eh := godal.ErrLogger(godalErrors(func(string) {}))
	ds, err := godal.Create(godal.GTiff, dir+"in.tif", bands, dtype, 1, 1, eh)
	if err != nil {
		return flat(err)
	}
	err = ds.SetGeoTransform(t.GeoTransform, eh)
	if err == nil && wkt != "" {
		err = ds.SetProjection(wkt, eh)
	}
	value := []float64{1} // a node that is not nodata: some drivers refuse a raster without one
	if nodata != nil && *nodata == 1 {
		value[0] = 2
	}
	for _, b := range ds.Bands() {
		if err == nil && nodata != nil {
			err = b.SetNoData(*nodata, eh)
		}
		if err == nil {
			err = b.Write(0, 0, value, 1, 1, eh)
		}
	}
	if cerr := ds.Close(eh); err == nil {
		err = cerr
	}
	if err != nil {
		return flat(err)
	}
	args := []string{"-of", format}
	for _, o := range co {
		args = append(args, "-co", o)
	}
	return translate(context.Background(), dir+"in.tif", dir+"out"+ext, args, 0, func(string) {})
}

// dataType parses -ot into the GDAL type and its size in bytes.
func dataType(name string) (godal.DataType, int, error) {
	if name == "" {
		name = "Float64"
	}
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	dt := C.GDALGetDataTypeByName(cn)
	if dt == C.GDT_Unknown {
		return 0, 0, fmt.Errorf("unknown output type %q (-ot)", name)
	}
	return godal.DataType(dt), int(C.GDALGetDataTypeSizeBytes(dt)), nil
}

func hasOption(opts []string, key string) bool {
	for _, o := range opts {
		if k, _, _ := strings.Cut(o, "="); strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// srsWKT turns -a_srs style input into WKT.
func srsWKT(def string) (string, error) {
	if def == "" {
		return "", nil
	}
	sr, err := spatialRef(def)
	if err != nil {
		return "", err
	}
	defer sr.Close()
	wkt, err := sr.WKT()
	if err != nil {
		return "", fmt.Errorf("CRS %q: %w", shorten(def), flat(err))
	}
	return wkt, nil
}

// checkDisk refuses a raster that cannot fit beside path even at one byte a node, whatever its
// type and compression: better said now than after the work.
func checkDisk(path string, t raster.Target) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &fs); err != nil {
		return nil // the destination check reports an unusable folder
	}
	nodes, free := float64(t.Cols)*float64(t.Rows), float64(fs.Bavail)*float64(fs.Bsize)
	if nodes > free {
		return fmt.Errorf("output size %dx%d (%.3g nodes) cannot fit in the %s free beside %s",
			t.Cols, t.Rows, nodes, bytesize.Text(free), path)
	}
	return nil
}

// checkMemory refuses work whose buffer would not fit in the memory available now.
func checkMemory(cols, bytes int, what string) error {
	avail, ok := memory.Available()
	if !ok || int64(bytes) <= avail.Bytes {
		return nil
	}
	return fmt.Errorf("output %d columns wide: %s needs %s, more than the %s of memory available",
		cols, what, bytesize.Text(float64(bytes)), bytesize.Text(float64(avail.Bytes)))
}
