package gdalio

/*
#include <gdal.h>
#include "cubic.h"
*/
import "C"

import (
	"errors"
	"math"
	"slices"
	"unsafe"

	"github.com/airbusgeo/godal"

	"github.com/aidw/aidw/internal/parts"
)

// ovrStream makes one overview level of a one-band COG from the rows of the level above it as
// they come (the raster's rows for the first level), so that neither level is ever held whole
// nor read back from a file: each strip of its rows is made once the strip's window of source
// rows (ovrGeometry.window, GDAL's margin) has come, by cubic.c on every worker, a share of the
// columns each. The pixels are those of ovrBuild.level's strips, and so of GDAL's COG driver.
type ovrStream struct {
	g       ovrGeometry
	info    ovrSource // of the one band
	size    int       // bytes a pixel of the band's type
	workers int
	height  int // overview rows a strip
	// src holds source rows base.. as Float32, GDAL's working type, and mask their validity
	src  []float32
	mask []byte
	base int
	done int // overview rows made
	// out holds a strip's pixels, bufs each worker's share of its columns
	out  []byte
	bufs [][]byte
	// emit receives the overview's rows in order, as pixels of the band's type
	emit func(pixels []byte) error
}

func newOvrStream(src, dst ovrLevel, info ovrSource, workers int, emit func([]byte) error) *ovrStream {
	g := newOvrGeometry(src, dst, cubicRadius)
	return &ovrStream{g: g, info: info, size: int(C.GDALGetDataTypeSizeBytes(C.GDALDataType(info.dtype))),
		workers: max(workers, 1), height: max(1, min(dst.rows, 64)), emit: emit}
}

// push appends whole source rows (pixels of the band's type) and makes every strip they
// complete.
func (s *ovrStream) push(pixels []byte) error {
	n := len(pixels) / s.size
	if n == 0 {
		return nil
	}
	at := len(s.src)
	s.src = slices.Grow(s.src, n)[:at+n]
	if s.info.useMask {
		s.mask = slices.Grow(s.mask, n)[:at+n]
	}
	// a share of the rows on each worker: on one, the conversion and the mask took as long as
	// the strips' resampling on every core
	parts.Each(n, max(1, min(s.workers, n/(64<<10))), func(_, lo, hi int) {
		px, i0, i1 := pixels[lo*s.size:hi*s.size], at+lo, at+hi
		C.GDALCopyWords(unsafe.Pointer(&px[0]), C.GDALDataType(s.info.dtype), C.int(s.size),
			unsafe.Pointer(&s.src[i0]), C.GDT_Float32, 4, C.int(i1-i0))
		if s.info.useMask {
			nodataMask(s.mask[i0:i1], px, s.info.dtype, s.info.nodata[0])
		}
	})
	return s.make()
}

// make makes the strips whose windows have come, and drops the source rows no strip needs.
func (s *ovrStream) make() error {
	cols := s.g.src.cols
	have := s.base + len(s.src)/cols
	for s.done < s.g.dst.rows {
		row1 := min(s.done+s.height, s.g.dst.rows)
		y0, rows := s.g.window(s.done, row1)
		if y0+rows > have {
			break
		}
		if err := s.strip(y0, rows, row1); err != nil {
			return err
		}
		s.done = row1
	}
	keep := have
	if s.done < s.g.dst.rows {
		keep, _ = s.g.window(s.done, min(s.done+s.height, s.g.dst.rows))
	}
	if drop := (keep - s.base) * cols; drop > 0 {
		s.src = s.src[:copy(s.src, s.src[drop:])]
		if s.info.useMask {
			s.mask = s.mask[:copy(s.mask, s.mask[drop:])]
		}
		s.base = keep
	}
	return nil
}

// strip makes overview rows done..row1-1 from source rows y0.. (rows of them) and emits them.
func (s *ovrStream) strip(y0, rows, row1 int) error {
	cols, dstCols := s.g.src.cols, s.g.dst.cols
	at := (y0 - s.base) * cols
	chunk := s.src[at : at+rows*cols]
	var mask *C.uchar
	if s.info.useMask {
		mask = (*C.uchar)(unsafe.Pointer(&s.mask[at]))
	}
	n := row1 - s.done
	s.out = slices.Grow(s.out[:0], n*dstCols*s.size)[:n*dstCols*s.size]
	hasNodata := C.int(0)
	if s.info.hasNodata[0] {
		hasNodata = 1
	}
	// the columns in shares of at least 64, each made into its own buffer, then laid into its
	// columns of the rows
	shares := max(1, min(s.workers, dstCols/64))
	failed := make([]bool, shares)
	s.bufs = slices.Grow(s.bufs[:0], shares)[:shares]
	bufs := s.bufs
	parts.Each(dstCols, shares, func(p, x0, x1 int) {
		w := (x1 - x0) * s.size
		bufs[p] = slices.Grow(bufs[p][:0], n*w)[:n*w]
		failed[p] = C.aidw_cubic_chunk(C.double(s.g.xRatio), C.double(s.g.yRatio),
			(*C.float)(unsafe.Pointer(&chunk[0])), mask, 0, C.int(cols), C.int(y0), C.int(rows),
			C.int(x0), C.int(x1), C.int(s.done), C.int(row1), C.GDALDataType(s.info.dtype), hasNodata,
			C.float(float32(s.info.nodata[0])), unsafe.Pointer(&bufs[p][0])) != 0
		if failed[p] {
			return
		}
		for r := range n {
			copy(s.out[(r*dstCols+x0)*s.size:][:w], bufs[p][r*w:(r+1)*w])
		}
	})
	if slices.Contains(failed, true) {
		return errors.New("overview: out of memory")
	}
	return s.emit(s.out)
}

// nodataMask sets mask to 0 where pixels (of type dt) hold nodata and 255 elsewhere, as GDAL 3.6's
// nodata mask band sees them (GDALNoDataMaskBand: exact for integers, ARE_REAL_EQUAL within
// two float ulps for floating point, NaN matching a NaN nodata).
func nodataMask(mask, pixels []byte, dt godal.DataType, nodata float64) {
	p := unsafe.Pointer(&pixels[0])
	switch dt {
	case godal.Int16:
		maskEqual(mask, unsafe.Slice((*int16)(p), len(mask)), int16(nodata))
	case godal.Int32:
		maskEqual(mask, unsafe.Slice((*int32)(p), len(mask)), int32(nodata))
	case godal.UInt32:
		maskEqual(mask, unsafe.Slice((*uint32)(p), len(mask)), uint32(nodata))
	case godal.Float32:
		v, nd := unsafe.Slice((*float32)(p), len(mask)), float32(nodata)
		const eps = float32(1.1920929e-07) // FLT_EPSILON
		for i, x := range v {
			isNodata := x == nd || abs32(x-nd) < eps*abs32(x+nd)*2
			if nd != nd {
				isNodata = x != x
			}
			mask[i] = validity(isNodata)
		}
	default:
		v := unsafe.Slice((*float64)(p), len(mask))
		const eps = float64(float32(1.1920929e-07))
		for i, x := range v {
			isNodata := x == nodata || math.Abs(x-nodata) < eps*math.Abs(x+nodata)*2
			if math.IsNaN(nodata) {
				isNodata = math.IsNaN(x)
			}
			mask[i] = validity(isNodata)
		}
	}
}

// maskEqual sets mask from integer pixels: nodata where they equal nd.
func maskEqual[T int16 | int32 | uint32](mask []byte, v []T, nd T) {
	for i, x := range v {
		mask[i] = validity(x == nd)
	}
}

// validity is a mask byte as GDAL's mask bands give it: 0 for nodata, 255 for a value.
func validity(isNodata bool) byte {
	if isNodata {
		return 0
	}
	return 255
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
