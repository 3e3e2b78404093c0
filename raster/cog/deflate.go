package cog

/*
#cgo LDFLAGS: -ldeflate
#include <libdeflate.h>
*/
import "C"

import (
	"compress/zlib"
	"errors"
	"io"
	"unsafe"

	tifflzw "golang.org/x/image/tiff/lzw"
)

// encoder compresses a tile: compress writes the codes of in into out, which holds at least
// encodedBound bytes, and returns their length.
type encoder interface {
	compress(out, in []byte) int
	close()
}

// newEncoder makes an encoder of the layout's compression.
func newEncoder(l Layout) (encoder, error) {
	if l.Compression == LZW {
		return new(lzwCompressor), nil
	}
	return newCompressor(l.Level)
}

// encodedBound is the most bytes the layout's compression makes of n.
func encodedBound(l Layout, n int) int {
	if l.Compression == LZW {
		return lzwBound(n)
	}
	return compressBound(n)
}

// decode fills tile with the pixels of the compressed tile src, for Rows: Go's own decoders.
func decode(l Layout, src io.Reader, tile []byte) error {
	var r io.Reader
	if l.Compression == LZW {
		lr := tifflzw.NewReader(src, tifflzw.MSB, 8)
		defer lr.Close()
		r = lr
	} else {
		zr, err := zlib.NewReader(src)
		if err != nil {
			return err
		}
		r = zr
	}
	_, err := io.ReadFull(r, tile)
	return err
}

// TIFF's compression codes of the tiles this package writes (Layout.Compression).
const (
	LZW     = 5
	Deflate = 8
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
