package gdalio

/*
#include <stdlib.h>
#include <string.h>
#include "cpl_error.h"
#include "cpl_vsi.h"

// aidw_vsi_read reads up to n bytes and, when fewer come, hands over the failure GDAL reported
// on this thread (*err, to be freed; NULL at a plain end of file) instead of printing it: a
// reader told only of a short read would take it for a truncated file.
static size_t aidw_vsi_read(void *buf, size_t n, VSILFILE *fp, char **err) {
	CPLPushErrorHandler(CPLQuietErrorHandler);
	CPLErrorReset();
	size_t got = VSIFReadL(buf, 1, n, fp);
	CPLPopErrorHandler();
	*err = NULL;
	if (got < n && CPLGetLastErrorType() >= CE_Failure && CPLGetLastErrorMsg()[0] != 0)
		*err = strdup(CPLGetLastErrorMsg());
	return got;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unsafe"

	"github.com/aidw/aidw/lidar"
)

// isVSI says whether path names a file of one of GDAL's virtual file systems (/vsizip/,
// /vsigzip/, /vsicurl/, /vsis3/, ...), which only GDAL can open.
func isVSI(path string) bool { return strings.HasPrefix(path, "/vsi") }

// vsiFile reads a file through GDAL's virtual file API with ranged reads: a remote file
// fetches only the ranges asked for. A VSI handle has one position, so reads take turns.
type vsiFile struct {
	mu   sync.Mutex
	fp   *C.VSILFILE
	size int64
}

// openVSI opens a file of GDAL's virtual file systems for ranged reads.
func openVSI(path string) (*vsiFile, error) {
	register()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	mode := C.CString("rb")
	defer C.free(unsafe.Pointer(mode))
	fp := C.VSIFOpenL(cpath, mode)
	if fp == nil {
		return nil, fmt.Errorf("%s: no such file, or GDAL's virtual file systems cannot open it", path)
	}
	if C.VSIFSeekL(fp, 0, C.SEEK_END) != 0 {
		C.VSIFCloseL(fp)
		return nil, fmt.Errorf("%s: its size cannot be read", path)
	}
	return &vsiFile{fp: fp, size: int64(C.VSIFTellL(fp))}, nil
}

func (f *vsiFile) Size() int64 { return f.size }

// ReadAt implements io.ReaderAt.
func (f *vsiFile) ReadAt(b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if C.VSIFSeekL(f.fp, C.vsi_l_offset(off), C.SEEK_SET) != 0 {
		return 0, fmt.Errorf("seeking to byte %d failed", off)
	}
	n, err := f.read(b)
	if n < len(b) && err == nil {
		err = io.EOF
	}
	return n, err
}

// read reads at the current position; the error is GDAL's reason for a short read, if it gave
// one (an HTTP server that ignores range requests, a broken connection).
func (f *vsiFile) read(b []byte) (int, error) {
	var cerr *C.char
	n := int(C.aidw_vsi_read(unsafe.Pointer(&b[0]), C.size_t(len(b)), f.fp, &cerr))
	if cerr == nil {
		return n, nil
	}
	defer C.free(unsafe.Pointer(cerr))
	return n, errors.New(oneLine(C.GoString(cerr)))
}

// Read reads from the current position: with ReadAt's turns, a vsiFile is also a stream.
func (f *vsiFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.read(b)
	if n == 0 && err == nil {
		err = io.EOF
	}
	return n, err
}

func (f *vsiFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fp != nil {
		C.VSIFCloseL(f.fp)
		f.fp = nil
	}
	return nil
}

// OpenInput opens a file that a native reader (LAS family, delimited text) reads with ranged
// reads: local files directly (concurrent reads, no cgo), virtual ones through GDAL.
func OpenInput(path string) (lidar.Source, error) {
	if isVSI(path) {
		return openVSI(path)
	}
	return lidar.OpenLocal(path)
}
