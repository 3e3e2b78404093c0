package gdalio

/*
#include <stdlib.h>
#include "ogr_read.h"
*/
import "C"

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unsafe"
)

// translate copies the dataset at src into dst with gdal_translate's arguments (the driver's
// CreateCopy), stopping within a block of lines when ctx is done: GDAL's progress callback
// checks a flag that a watcher sets. Warnings go to warn.
func translate(ctx context.Context, src, dst string, args []string, warn func(string)) error {
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
	rc := C.aidw_translate(csrc, cdst, argv, cancel, &e)
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
