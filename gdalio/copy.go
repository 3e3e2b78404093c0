package gdalio

/*
#include <stdlib.h>
#include <string.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <cpl_conv.h>
#include <cpl_error.h>

typedef struct {
	char *failure;
	char *warnings;
} aidw_copy_err;

static void CPL_STDCALL aidw_copy_handler(CPLErr level, CPLErrorNum num, const char *msg) {
	(void)num;
	aidw_copy_err *e = (aidw_copy_err *)CPLGetErrorHandlerUserData();
	if (level >= CE_Failure) {
		if (e->failure == NULL) {
			e->failure = CPLStrdup(msg);
		}
		return;
	}
	if (level != CE_Warning) {
		return;
	}
	size_t have = e->warnings ? strlen(e->warnings) : 0, add = strlen(msg);
	if (have + add + 2 > 4096) {
		return;
	}
	e->warnings = (char *)CPLRealloc(e->warnings, have + add + 2);
	if (have > 0) {
		e->warnings[have++] = '\n';
	}
	memcpy(e->warnings + have, msg, add + 1);
}

// aidw_cancel_progress stops GDAL's work as soon as *arg is set.
static int CPL_STDCALL aidw_cancel_progress(double done, const char *msg, void *arg) {
	(void)done;
	(void)msg;
	return *(volatile int *)arg == 0;
}

// aidw_translate runs gdal_translate's library form from src to dst with argv, checking
// *cancel between blocks of lines; it returns 0 on success.
static int aidw_translate(const char *src, const char *dst, char **argv, volatile int *cancel, aidw_copy_err *e) {
	CPLErrorReset();
	CPLPushErrorHandlerEx(aidw_copy_handler, e);
	int rc = 1;
	GDALDatasetH in = GDALOpenEx(src, GDAL_OF_RASTER | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
	if (in != NULL) {
		GDALTranslateOptions *opt = GDALTranslateOptionsNew(argv, NULL);
		if (opt != NULL) {
			GDALTranslateOptionsSetProgress(opt, aidw_cancel_progress, (void *)cancel);
			GDALDatasetH out = GDALTranslate(dst, in, opt, NULL);
			GDALTranslateOptionsFree(opt);
			if (out != NULL) {
				GDALClose(out);
				rc = CPLGetLastErrorType() >= CE_Failure || *cancel;
			}
		}
		GDALClose(in);
	}
	if (rc && e->failure == NULL) {
		e->failure = CPLStrdup(*cancel ? "interrupted" : "unknown GDAL failure");
	}
	CPLPopErrorHandler();
	return rc;
}

static void aidw_copy_err_free(aidw_copy_err *e) {
	CPLFree(e->failure);
	CPLFree(e->warnings);
}
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
	var e C.aidw_copy_err
	defer C.aidw_copy_err_free(&e)
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
