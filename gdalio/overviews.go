package gdalio

/*
#include <stdlib.h>
#include <gdal.h>
#include "cubic.h"
*/
import "C"

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/aidw/aidw/internal/outfile"
	"github.com/airbusgeo/godal"
)

// The COG driver of GDAL 3.6 computes its overviews on one thread (GTIFFBuildOverviewsEx:
// reading, CUBIC resampling and writing a temporary file in turn): on 16 cores, as long as the
// whole rest of a command. So aidw computes them first, in strips on every core, with GDAL's own
// arithmetic (cubic.c), into one temporary GTiff per level, and hands the driver a VRT of the
// raster that names them as its overviews: with OVERVIEWS=AUTO the driver then copies those
// (COPY_SRC_OVERVIEWS) instead of computing its own, and the file is the one gdal_translate
// writes. Anything else than that exact case (another resampling, a tiling scheme, Byte or
// UInt16 data, another GDAL) keeps the driver's own overviews.

// cubicRadius is the CUBIC kernel's radius in output pixels (GWKGetFilterRadius(GRA_Cubic)).
const cubicRadius = 2

// ovrLevel is an overview's size in pixels.
type ovrLevel struct{ cols, rows int }

// cogOverviewLevels gives the overviews that GDAL 3.6's COG driver computes for a cols x rows
// raster of type dt written with the creation options co (cogdriver.cpp: halving until both
// sides fit a block, or OVERVIEW_COUNT levels), and whether aidw can compute them exactly
// (otherwise the driver computes them). No levels with ok means the COG has no overviews.
func cogOverviewLevels(cols, rows int, dt godal.DataType, co []string) (levels []ovrLevel, ok bool) {
	if !gdal36() || !cubicWorkType(dt) {
		return nil, false
	}
	resampling := "CUBIC"
	for _, key := range []string{"RESAMPLING", "OVERVIEW_RESAMPLING"} { // the latter wins
		if v, set := optionValue(co, key); set {
			resampling = v
		}
	}
	if !strings.EqualFold(resampling, "CUBIC") {
		return nil, false
	}
	if v, set := optionValue(co, "OVERVIEWS"); set && !strings.EqualFold(v, "AUTO") {
		return nil, false // none, or the driver's own from the source's (which has none)
	}
	if _, set := optionValue(co, "TARGET_SRS"); set {
		return nil, false // the driver warps first
	}
	if v, set := optionValue(co, "TILING_SCHEME"); set && !strings.EqualFold(v, "CUSTOM") {
		return nil, false
	}
	if v, _ := optionValue(co, "COMPRESS"); strings.EqualFold(v, "JPEG") {
		return nil, false // the driver may turn an alpha band into a mask
	}
	threshold, count := 512, -1
	if v, set := optionValue(co, "BLOCKSIZE"); set {
		threshold = atoi(v)
	}
	if v, set := optionValue(co, "OVERVIEW_COUNT"); set {
		count = atoi(v)
	}
	if threshold < 1 {
		return nil, false // the driver's own rule would not end
	}
	if !(cols > threshold || rows > threshold || count > 0) {
		return nil, true
	}
	for {
		if count < 0 && cols <= threshold && rows <= threshold ||
			count >= 0 && (len(levels) == count || cols == 1 && rows == 1) {
			return levels, true
		}
		cols, rows = max(cols/2, 1), max(rows/2, 1)
		levels = append(levels, ovrLevel{cols, rows})
	}
}

// atoi is C's atoi, as GDAL reads a number option: leading digits, 0 when none.
func atoi(s string) int {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || end == 0 && (s[end] == '-' || s[end] == '+')) {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// optionValue is the value of the first NAME=VALUE option named key (any case), the one GDAL's
// CSLFetchNameValue finds.
func optionValue(co []string, key string) (string, bool) {
	for _, o := range co {
		if k, v, _ := strings.Cut(o, "="); strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// gdal36 says whether the GDAL loaded is a 3.6 release, whose resampling cubic.c follows.
func gdal36() bool {
	key := C.CString("VERSION_NUM")
	defer C.free(unsafe.Pointer(key))
	v, _ := strconv.Atoi(C.GoString(C.GDALVersionInfo(key)))
	return v >= 3060000 && v < 3070000
}

// cubicWorkType says whether GDAL resamples dt as Float32 (GDALGetOvrWorkDataType: all but
// Byte and UInt16, complex aside), the case cubic.c follows; aidw writes these types through
// godal's slices.
func cubicWorkType(dt godal.DataType) bool {
	switch dt {
	case godal.Int16, godal.Int32, godal.UInt32, godal.Float32, godal.Float64:
		return true
	}
	return false
}

// ovrBuild computes the overviews of a raster file into temporary GTiffs beside stage.
type ovrBuild struct {
	ctx     context.Context
	src     string // the raster (GTiff)
	stage   string // temporary names are made beside it
	levels  []ovrLevel
	workers int
	// radius is the kernel's radius used for a strip's margin: cubicRadius, less in tests
	// that show what too thin a margin does
	radius int
	errs   godal.ErrorHandler
}

// ovrSource describes the raster whose overviews are built.
type ovrSource struct {
	bands     int
	dtype     godal.DataType
	nodata    []float64
	hasNodata []bool
	useMask   bool // GDAL reads the nodata mask (band 1's mask is not all valid)
}

// withOverviews computes the COG's overviews of src and returns a VRT of src that has them, and
// a function that removes the temporary files (to call once the COG is written).
func (b ovrBuild) withOverviews() (vrt string, cleanup func(), err error) {
	var files []string
	cleanup = func() {
		for _, f := range files {
			removeDataset(f)
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	info, cols, rows, err := b.describe()
	if err != nil {
		return "", cleanup, err
	}
	prev, prevCols := b.src, cols
	for i, l := range b.levels {
		path, err := outfile.Reserve(b.stage, ".tif")
		if err == nil {
			path, err = filepath.Abs(path) // the VRT names it
		}
		if err != nil {
			return "", cleanup, err
		}
		files = append(files, path)
		// GDAL makes a level from the one before it when that is wider, else from the raster
		from := b.src
		fromSize := ovrLevel{cols, rows}
		if i > 0 && prevCols > l.cols {
			from, fromSize = prev, b.levels[i-1]
		}
		if err := b.level(info, from, fromSize, path, l); err != nil {
			return "", cleanup, err
		}
		prev, prevCols = path, l.cols
	}
	vrt, err = outfile.Reserve(b.stage, ".vrt")
	if err != nil {
		return "", cleanup, err
	}
	files = append(files, vrt)
	if err := b.vrt(vrt, files[:len(files)-1], info.bands); err != nil {
		return "", cleanup, err
	}
	return vrt, cleanup, nil
}

// describe reads the raster's bands, type, nodata and mask flags.
func (b ovrBuild) describe() (ovrSource, int, int, error) {
	eh := godal.ErrLogger(b.errs)
	ds, err := godal.Open(b.src, godal.RasterOnly(), eh)
	if err != nil {
		return ovrSource{}, 0, 0, err
	}
	defer ds.Close(eh)
	bands := ds.Bands()
	s := ds.Structure()
	info := ovrSource{bands: len(bands), dtype: bands[0].Structure().DataType,
		useMask: bands[0].MaskFlags()&C.GMF_ALL_VALID == 0}
	for _, band := range bands {
		nd, ok := band.NoData()
		info.nodata = append(info.nodata, nd)
		info.hasNodata = append(info.hasNodata, ok)
	}
	return info, s.SizeX, s.SizeY, nil
}

// ovrStrip is a strip of an overview's rows, resampled.
type ovrStrip struct {
	row0, rows int
	bands      []any // the pixels of each band, of the band's type
	err        error
}

// level writes the overview of size l made from the raster at from (of size fromSize) into a
// new GTiff at path, in strips of rows on every worker, each strip read with GDAL's margin.
func (b ovrBuild) level(info ovrSource, from string, fromSize ovrLevel, path string, l ovrLevel) error {
	eh := godal.ErrLogger(b.errs)
	out, err := godal.Create(godal.GTiff, path, info.bands, info.dtype, l.cols, l.rows,
		godal.CreationOption("BIGTIFF=IF_SAFER"), eh)
	if err != nil {
		return err
	}
	defer func() {
		if out != nil {
			discardOnClose(out)
			out.Close(eh)
		}
	}()
	for i, band := range out.Bands() {
		if info.hasNodata[i] {
			if err := band.SetNoData(info.nodata[i], eh); err != nil {
				return err
			}
		}
	}
	g := newOvrGeometry(fromSize, l, b.radius)
	// a few strips per worker, each with at most about 16 MB of buffers
	perRow := g.yRatio * float64(fromSize.cols*5+l.cols*9)
	height := max(1, min((l.rows+4*b.workers-1)/(4*b.workers), int(16<<20/max(perRow, 1))))
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	jobs := make(chan [2]int)
	go func() {
		defer close(jobs)
		for row := 0; row < l.rows; row += height {
			select {
			case jobs <- [2]int{row, min(height, l.rows-row)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	results := make(chan ovrStrip)
	var wg sync.WaitGroup
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.resampleStrips(ctx, info, from, g, jobs, results)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	bands := out.Bands()
	for s := range results {
		if err == nil {
			err = s.err
		}
		for i := 0; err == nil && i < len(s.bands); i++ {
			err = bands[i].Write(0, s.row0, s.bands[i], l.cols, s.rows, eh)
		}
		if err != nil {
			cancel() // the workers stop; results drains
		}
	}
	if err == nil {
		err = b.ctx.Err()
	}
	if err != nil {
		return err
	}
	ds := out
	out = nil
	return ds.Close(eh)
}

// ovrGeometry is how GDALRegenerateOverviewsMultiBand maps an overview onto its source: the
// ratios of their sizes, and the margin of source rows read around a chunk (the kernel's
// radius times the reduction), which makes a chunk's pixels those of the whole raster.
type ovrGeometry struct {
	src, dst       ovrLevel
	xRatio, yRatio float64
	margin         int
}

func newOvrGeometry(src, dst ovrLevel, radius int) ovrGeometry {
	g := ovrGeometry{src: src, dst: dst,
		xRatio: float64(src.cols) / float64(dst.cols), yRatio: float64(src.rows) / float64(dst.rows)}
	g.margin = radius * max(int(0.5+g.xRatio), int(0.5+g.yRatio), 1)
	return g
}

// window gives the source rows read for overview rows row0..row1-1.
func (g ovrGeometry) window(row0, row1 int) (y0, rows int) {
	y0 = int(float64(row0) * g.yRatio)
	y1 := int(math.Ceil(float64(row1) * g.yRatio))
	if y1 > g.src.rows || row1 == g.dst.rows {
		y1 = g.src.rows
	}
	rows = y1 - y0 + 2*g.margin
	y0 -= g.margin
	if y0 < 0 {
		rows += y0
		y0 = 0
	}
	return y0, min(rows, g.src.rows-y0)
}

// resampleStrips resamples the strips that come on jobs (first row, rows), reading from its own
// handle of the source: GDAL datasets are not for concurrent use.
func (b ovrBuild) resampleStrips(ctx context.Context, info ovrSource, from string, g ovrGeometry,
	jobs <-chan [2]int, results chan<- ovrStrip) {
	send := func(s ovrStrip) bool {
		select {
		case results <- s:
			return s.err == nil
		case <-ctx.Done():
			return false
		}
	}
	eh := godal.ErrLogger(b.errs)
	ds, err := godal.Open(from, godal.RasterOnly(), eh)
	if err != nil {
		send(ovrStrip{err: err})
		return
	}
	defer ds.Close(eh)
	bands := ds.Bands()
	var chunk []float32
	var mask []byte
	for job := range jobs {
		s := ovrStrip{row0: job[0], rows: job[1]}
		y0, rows := g.window(job[0], job[0]+job[1])
		n := rows * g.src.cols
		chunk = slices.Grow(chunk[:0], n)[:n]
		if info.useMask {
			mask = slices.Grow(mask[:0], n)[:n]
		}
		for i, band := range bands {
			out, err := b.resampleBand(info, i, band, g, y0, rows, s, chunk, mask)
			if err != nil {
				s.err = fmt.Errorf("overview of %s, rows %d-%d: %w", from, s.row0, s.row0+s.rows-1, err)
				break
			}
			s.bands = append(s.bands, out)
		}
		if !send(s) {
			return
		}
	}
}

// resampleBand reads the source rows y0.. of a band (and its nodata mask when GDAL reads it)
// and resamples them into the strip's rows of the band's type.
func (b ovrBuild) resampleBand(info ovrSource, i int, band godal.Band, g ovrGeometry, y0, rows int,
	s ovrStrip, chunk []float32, mask []byte) (any, error) {
	eh := godal.ErrLogger(b.errs)
	if err := band.Read(0, y0, chunk, g.src.cols, rows, eh); err != nil {
		return nil, err
	}
	var cmask *C.uchar
	if info.useMask {
		if err := band.MaskBand().Read(0, y0, mask, g.src.cols, rows, eh); err != nil {
			return nil, err
		}
		cmask = (*C.uchar)(unsafe.Pointer(&mask[0]))
	}
	out, ptr := typedBuffer(info.dtype, s.rows*g.dst.cols)
	hasNodata := C.int(0)
	if info.hasNodata[i] {
		hasNodata = 1
	}
	if C.aidw_cubic_chunk(C.double(g.xRatio), C.double(g.yRatio), (*C.float)(unsafe.Pointer(&chunk[0])), cmask,
		0, C.int(g.src.cols), C.int(y0), C.int(rows), 0, C.int(g.dst.cols), C.int(s.row0), C.int(s.row0+s.rows),
		C.GDALDataType(info.dtype), hasNodata, C.float(float32(info.nodata[i])), ptr) != 0 {
		return nil, errors.New("out of memory")
	}
	return out, nil
}

// typedBuffer makes a slice of n values of type dt (one of cubicWorkType's) and its address.
func typedBuffer(dt godal.DataType, n int) (any, unsafe.Pointer) {
	b := make([]byte, n*int(C.GDALGetDataTypeSizeBytes(C.GDALDataType(dt))))
	return typedSlice(dt, b), unsafe.Pointer(&b[0])
}

// hasTypedSlice says whether typedSlice has a slice of dt's values.
func hasTypedSlice(dt godal.DataType) bool {
	switch dt {
	case godal.Byte, godal.UInt16, godal.Int16, godal.Int32, godal.UInt32, godal.Float32, godal.Float64:
		return true
	}
	return false
}

// typedSlice is pixels (of a type hasTypedSlice holds) as a slice of that type.
func typedSlice(dt godal.DataType, pixels []byte) any {
	p := unsafe.Pointer(&pixels[0])
	switch dt {
	case godal.Byte:
		return pixels
	case godal.UInt16:
		return unsafe.Slice((*uint16)(p), len(pixels)/2)
	case godal.Int16:
		return unsafe.Slice((*int16)(p), len(pixels)/2)
	case godal.Int32:
		return unsafe.Slice((*int32)(p), len(pixels)/4)
	case godal.UInt32:
		return unsafe.Slice((*uint32)(p), len(pixels)/4)
	case godal.Float32:
		return unsafe.Slice((*float32)(p), len(pixels)/4)
	default:
		return unsafe.Slice((*float64)(p), len(pixels)/8)
	}
}

// vrt writes a VRT of the raster (gdal_translate -of VRT: its georeferencing, nodata,
// descriptions and metadata) that names the level files as every band's overviews.
func (b ovrBuild) vrt(path string, levels []string, bands int) error {
	if err := translate(b.ctx, b.src, path, []string{"-of", "VRT"}, 0, func(string) {}); err != nil {
		return err
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	parts := strings.Split(string(text), "</VRTRasterBand>")
	if len(parts) != bands+1 {
		return fmt.Errorf("VRT of %s: %d bands, expected %d", b.src, len(parts)-1, bands)
	}
	var out strings.Builder
	for band, part := range parts[:bands] {
		out.WriteString(part)
		for _, l := range levels {
			out.WriteString(`  <Overview><SourceFilename relativeToVRT="0">`)
			xml.EscapeText(&out, []byte(l))
			fmt.Fprintf(&out, "</SourceFilename><SourceBand>%d</SourceBand></Overview>\n  ", band+1)
		}
		out.WriteString("</VRTRasterBand>")
	}
	out.WriteString(parts[bands])
	return os.WriteFile(path, []byte(out.String()), 0o600)
}
