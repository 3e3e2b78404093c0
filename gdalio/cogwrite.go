package gdalio

/*
#include <gdal.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aidw/aidw/internal/gdalbool"
	"github.com/aidw/aidw/raster/cog"
	"github.com/airbusgeo/godal"
)

// A one-band DEFLATE or LZW COG is written by aidw (raster/cog) rather than by GDAL's COG driver,
// which compresses every tile in a copy after the gridding: as the raster's rows come, its tiles
// are compressed on every core and its CUBIC overviews made (ovrstream.go) and compressed too,
// and the file is laid out as the driver lays it out, with the driver's tags (those of the
// staged GTiff, which holds no pixels) and libdeflate's tile bytes at the driver's level. Other
// COGs (several bands, other compressions and resamplings) keep the driver and overviews.go.

// cogOptions are the creation options the COG path follows as the driver does; any other
// leaves the COG to the driver.
var cogOptions = map[string]bool{"COMPRESS": true, "LEVEL": true, "BLOCKSIZE": true, "BIGTIFF": true,
	"NUM_THREADS": true, "RESAMPLING": true, "OVERVIEW_RESAMPLING": true, "OVERVIEWS": true,
	"OVERVIEW_COUNT": true, "PREDICTOR": true}

// cogLayout is the layout of a COG that aidw writes itself, and whether it can.
func cogLayout(format string, cols, rows, bands int, dt godal.DataType, size int, co []string) (cog.Layout, bool) {
	if !strings.EqualFold(format, "COG") || bands != 1 {
		return cog.Layout{}, false
	}
	for _, o := range co {
		if k, _, _ := strings.Cut(o, "="); !cogOptions[strings.ToUpper(k)] {
			return cog.Layout{}, false
		}
	}
	compression := uint16(cog.LZW) // the driver's default
	if v, set := optionValue(co, "COMPRESS"); set && strings.EqualFold(v, "DEFLATE") {
		compression = cog.Deflate
	} else if set && !strings.EqualFold(v, "LZW") {
		return cog.Layout{}, false
	}
	predictor, ok := cogPredictor(co, dt)
	if !ok {
		return cog.Layout{}, false
	}
	levels, ok := cogOverviewLevels(cols, rows, dt, co)
	if !ok {
		return cog.Layout{}, false
	}
	l := cog.Layout{Sizes: [][2]int{{cols, rows}}, Block: 512, SampleBytes: size, Compression: compression,
		Level: 6, Predictor: predictor}
	for _, lv := range levels {
		l.Sizes = append(l.Sizes, [2]int{lv.cols, lv.rows})
	}
	if v, set := optionValue(co, "BLOCKSIZE"); set {
		l.Block = atoi(v)
	}
	if v, set := optionValue(co, "LEVEL"); set {
		l.Level = atoi(v)
	}
	l.BigTIFF, _ = optionValue(co, "BIGTIFF")
	if l.Block < 16 || l.Block%16 != 0 || l.Level < 1 || l.Level > 12 {
		return cog.Layout{}, false // the driver's own message
	}
	switch dt {
	case godal.Float32, godal.Float64:
		l.SampleFormat = 3
	case godal.Int16, godal.Int32:
		l.SampleFormat = 2
	default:
		l.SampleFormat = 1
	}
	return l, true
}

// cogPredictor is TIFF's predictor for the COG driver's PREDICTOR option (cogdriver.cpp: YES
// is the floating point one for floating point data, the horizontal one otherwise), and
// whether aidw writes it: not the floating point one for integers, which libtiff refuses.
func cogPredictor(co []string, dt godal.DataType) (uint16, bool) {
	v, set := optionValue(co, "PREDICTOR")
	on, known := gdalbool.Parse(v)
	floating := dt == godal.Float32 || dt == godal.Float64
	switch {
	case !set || known && !on:
		return 1, true
	case strings.EqualFold(v, "STANDARD"):
		return 2, true
	case strings.EqualFold(v, "FLOATING_POINT") && floating, on && floating:
		return 3, true
	case on:
		return 2, true
	}
	return 0, false
}

// writeCOGRows writes rows row0.. of the one band to the COG and its overviews, stepRows at a
// time, converted to the band's type (convert).
func (w *Writer) writeCOGRows(row0, rows int, values []float64) error {
	step := w.stepRows()
	for r := 0; r < rows; r += step {
		raw := w.convert(values[r*w.cols : (r+min(step, rows-r))*w.cols])
		if err := w.cog.WriteRows(0, raw); err != nil {
			return err
		}
		sendRows(w.ovr, 0, raw)
	}
	w.cogNext = row0 + rows
	return nil
}

// startCOG starts aidw's COG of layout: its file, and a stream for each overview level.
func (w *Writer) startCOG(stage string, layout cog.Layout) error {
	f, err := cog.Create(stage, layout, numThreads(w.create))
	if err != nil {
		return err
	}
	w.cog = f
	band := w.bands[0]
	nodata, hasNodata := band.NoData()
	info := ovrSource{bands: 1, dtype: w.dtype, nodata: []float64{nodata}, hasNodata: []bool{hasNodata},
		useMask: band.MaskFlags()&C.GMF_ALL_VALID == 0}
	// the levels' goroutines see feeds, never w.ovr, which stopOverviews may clear first
	feeds := make([]*ovrFeed, len(layout.Sizes)-1)
	for i, s := range layout.Sizes[1:] {
		// GDAL makes a level from the one before it when that is wider, else from the raster
		from := 0
		if prev := layout.Sizes[i]; i > 0 && prev[0] > s[0] {
			from = i
		}
		image := i + 1
		feeds[i] = newOvrFeed(newOvrStream(ovrLevel{layout.Sizes[from][0], layout.Sizes[from][1]},
			ovrLevel{s[0], s[1]}, info, numThreads(w.create), func(pixels []byte) error {
				if err := f.WriteRows(image, pixels); err != nil {
					return err
				}
				sendRows(feeds, image, pixels)
				return nil
			}), from)
	}
	for _, feed := range feeds {
		feed.start()
	}
	w.ovr = feeds
	return nil
}

// ovrFeed runs an overview level's stream on a goroutine of its own, which the rows of the
// image it is made from reach through a few buffers, so that the levels are made side by
// side and the raster's writer keeps feeding the compression. With one goroutine for every
// level, their conversions, masks and resampling came one after the other, the raster's
// writer waited for them 5-30 ms every 52 rows, and a 1e8-node COG's rows took 1.50-1.62 s on
// 16 cores; 1.20-1.22 s with a goroutine a level and the conversion shared (ovrStream.push),
// where the gridding gives them in 0.5-0.7 s.
type ovrFeed struct {
	stream *ovrStream
	// from is the COG image the level is made from: the raster (0), or the level before it
	from int
	// in takes the rows, in the buffers of free, nil once closed; done gives the stream's
	// error once in is closed
	in, free chan []byte
	done     chan error
}

// ovrBuffers is how many blocks of rows wait for a level at most.
const ovrBuffers = 3

func newOvrFeed(s *ovrStream, from int) *ovrFeed {
	f := &ovrFeed{stream: s, from: from, in: make(chan []byte, ovrBuffers), free: make(chan []byte, ovrBuffers),
		done: make(chan error, 1)}
	for range ovrBuffers {
		f.free <- nil
	}
	return f
}

// start runs the level's goroutine, which takes every block of rows, after an error too, so
// that no sender waits forever.
func (f *ovrFeed) start() {
	in, free, done := f.in, f.free, f.done
	go func() {
		var err error
		for pixels := range in {
			if err == nil {
				err = f.stream.push(pixels)
			}
			free <- pixels[:0]
		}
		done <- err
	}()
}

// sendRows hands rows of COG image i (0: the raster) to the levels made from it.
func sendRows(feeds []*ovrFeed, i int, pixels []byte) {
	for _, f := range feeds {
		if f.from == i {
			f.in <- append(<-f.free, pixels...)
		}
	}
}

// stopOverviews waits for every level to take its rows, in order (each level sends its last
// rows to those made from it before they are closed), and returns their errors.
func (w *Writer) stopOverviews() error {
	var errs []error
	for _, f := range w.ovr {
		if f.in != nil {
			close(f.in)
			f.in = nil
			errs = append(errs, <-f.done)
		}
	}
	return errors.Join(errs...)
}

// leaveCOG leaves the COG to GDAL's driver: the rows it took go to the staged GTiff, whose
// rows then come as for other formats.
func (w *Writer) leaveCOG() error {
	if err := w.stopOverviews(); err != nil {
		w.abandonCOG()
		return err
	}
	row := 0
	err := w.cog.Rows(func(pixels []byte) error {
		n := len(pixels) / (w.cols * w.cog.Layout().SampleBytes)
		if err := w.bands[0].Write(0, row, typedSlice(w.dtype, pixels), w.cols, n, godal.ErrLogger(w.errs)); err != nil {
			return fmt.Errorf("rows %d-%d back to the staged raster: %w", row, row+n-1, err)
		}
		row += n
		return nil
	})
	w.abandonCOG()
	return err
}

// abandonCOG stops the COG and removes its files.
func (w *Writer) abandonCOG() {
	if w.cog != nil {
		w.stopOverviews()
		w.cog.Abort()
		w.cog, w.ovr = nil, nil
	}
}

// finishCOG writes the COG at copyTo, whose tiles are made, with the staged raster's
// georeferencing, nodata and metadata.
func (w *Writer) finishCOG(ctx context.Context) error {
	if err := w.stopOverviews(); err != nil {
		return err
	}
	for i, f := range w.ovr {
		if s := f.stream; s.done != s.g.dst.rows {
			return fmt.Errorf("overview %d: %d of %d rows made", i+1, s.done, s.g.dst.rows)
		}
	}
	tags, err := cog.ReadTags(w.tmp)
	if err != nil {
		return err
	}
	err = w.cog.Finish(ctx, w.copyTo, cog.Descriptive(tags))
	w.cog, w.ovr = nil, nil
	return err
}
