package gdalio

/*
#include <stdlib.h>
#include <cpl_conv.h>
#include <gdal.h>
#include "ogr_read.h"
*/
import "C"

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// translate copies the dataset at src into dst with gdal_translate's arguments (the driver's
// CreateCopy), stopping within a block of lines when ctx is done: GDAL's progress callback
// checks a flag that a watcher sets. GDAL's block cache is held to cache bytes meanwhile:
// a cancelled copy still compresses and writes every dirty block it holds (a default cache of
// 5% of memory: seconds), and a row of the output's blocks is all the copy needs. Overviews are
// computed on every core unless GDAL_NUM_THREADS says otherwise. Warnings go to warn.
func translate(ctx context.Context, src, dst string, args []string, cache int64, warn func(string)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cancel := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(cancel))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			*(*int32)(unsafe.Pointer(cancel)) = 1
		case <-done:
		}
	}()
	defer wg.Wait() // the watcher is gone before the flag is freed
	defer close(done)

	csrc, cdst := C.CString(src), C.CString(dst)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cdst))
	argv, free := cStrings(args)
	defer free()
	var e C.aidw_err
	defer C.aidw_err_free(&e)
	defer limitCache(cache)()
	rc := withThreads(func() C.int { return C.aidw_translate(csrc, cdst, argv, cancel, &e) })
	if e.warnings != nil {
		for _, w := range strings.Split(C.GoString(e.warnings), "\n") {
			warn(w)
		}
	}
	if rc == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.New(oneLine(C.GoString(e.failure)))
}

// limitCache holds GDAL's block cache to at most cache bytes (0: as it is) until the function
// it returns is called.
func limitCache(cache int64) (restore func()) {
	old := int64(C.GDALGetCacheMax64())
	if cache <= 0 || cache >= old {
		return func() {}
	}
	C.GDALSetCacheMax64(C.GIntBig(cache))
	return func() { C.GDALSetCacheMax64(C.GIntBig(old)) }
}

// withThreads runs f with GDAL_NUM_THREADS=ALL_CPUS on its thread unless the option is set.
func withThreads(f func() C.int) C.int {
	key := C.CString("GDAL_NUM_THREADS")
	defer C.free(unsafe.Pointer(key))
	if C.CPLGetConfigOption(key, nil) != nil {
		return f()
	}
	runtime.LockOSThread() // a thread-local option: f's cgo call runs on this thread
	defer runtime.UnlockOSThread()
	all := C.CString("ALL_CPUS")
	defer C.free(unsafe.Pointer(all))
	C.CPLSetThreadLocalConfigOption(key, all)
	defer C.CPLSetThreadLocalConfigOption(key, nil)
	return f()
}
