package cog

/*
#cgo LDFLAGS: -ldeflate
#include <libdeflate.h>
*/
import "C"

import (
	"errors"
	"unsafe"
)

// compressor makes zlib streams with libdeflate, the library libtiff (and so GDAL's GTiff and
// COG drivers) compresses whole DEFLATE tiles with in Debian: at libtiff's level the tiles'
// bytes are GDAL's. One per goroutine.
type compressor struct {
	c *C.struct_libdeflate_compressor
}

// newCompressor makes a compressor for the zlib level that GDAL's LEVEL (or ZLEVEL) names:
// libtiff (tif_zip.c, ZIPEncode) asks libdeflate for one more from 6 to 9, "to get results as
// good as zlib".
func newCompressor(level int) (*compressor, error) {
	if level >= 6 && level <= 9 {
		level++
	}
	c := C.libdeflate_alloc_compressor(C.int(level))
	if c == nil {
		return nil, errors.New("libdeflate: cannot allocate a compressor")
	}
	return &compressor{c}, nil
}

// compressBound is the most bytes the zlib stream of n bytes takes (libdeflate's bound for
// any level, which a NULL compressor asks for).
func compressBound(n int) int { return int(C.libdeflate_zlib_compress_bound(nil, C.size_t(n))) }

// compress writes the zlib stream of in into out, at least compressBound(len(in)) bytes, and
// returns its length.
func (z *compressor) compress(out, in []byte) int {
	return int(C.libdeflate_zlib_compress(z.c, unsafe.Pointer(&in[0]), C.size_t(len(in)),
		unsafe.Pointer(&out[0]), C.size_t(len(out))))
}

func (z *compressor) close() { C.libdeflate_free_compressor(z.c) }
