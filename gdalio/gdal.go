package gdalio

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <gdal.h>
#include <cpl_conv.h>
#include "ogr_read.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/airbusgeo/godal"
)

// registerOnce registers GDAL's drivers the first time any entry point needs them, so callers
// need no set-up call.
var registerOnce sync.Once

func register() {
	registerOnce.Do(func() {
		godal.RegisterAll()
		// OGR's VRT driver validates a .vrt against its schema with libxml2, whose parser
		// prints errors on stderr itself, over several lines, quoting the file's raw bytes;
		// without validation a malformed .vrt is an ordinary GDAL error. --config or the
		// environment can still turn it on.
		key := C.CString("GDAL_XML_VALIDATION")
		defer C.free(unsafe.Pointer(key))
		if C.CPLGetConfigOption(key, nil) == nil {
			no := C.CString("NO")
			defer C.free(unsafe.Pointer(no))
			C.CPLSetConfigOption(key, no)
		}
	})
}

// LimitCache bounds GDAL's block cache (by default 5% of the machine's memory) to bytes, unless
// GDAL_CACHEMAX was set (environment or --config): a run held to a memory budget counts it.
func LimitCache(bytes int64) {
	register()
	key := C.CString("GDAL_CACHEMAX")
	defer C.free(unsafe.Pointer(key))
	if C.CPLGetConfigOption(key, nil) != nil {
		return
	}
	C.GDALSetCacheMax64(C.GIntBig(bytes))
}

// SetConfig sets GDAL configuration options given as KEY=VALUE (gdal_grid's --config KEY VALUE)
// for the whole process, as gdal_grid does: they must reach GDAL's own worker threads too.
// Call it once, before reading or writing.
func SetConfig(options []string) error {
	register()
	for _, kv := range options {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("config option %q is not KEY=VALUE", kv)
		}
		ck, cv := C.CString(k), C.CString(v)
		C.aidw_set_config(ck, cv)
		C.free(unsafe.Pointer(ck))
		C.free(unsafe.Pointer(cv))
	}
	return nil
}

// warner returns where GDAL's warnings go: the caller's function, or stderr as GDAL's own
// utilities print them.
func warner(w func(string)) func(string) {
	if w != nil {
		return w
	}
	return func(msg string) { fmt.Fprintln(os.Stderr, "Warning: "+PrintableLine(msg)) }
}

// godalErrors makes godal report failures as errors and pass warnings on, instead of its
// default of failing on any warning.
func godalErrors(warn func(string)) godal.ErrorHandler {
	return func(ec godal.ErrorCategory, code int, msg string) error {
		switch {
		case ec >= godal.CE_Failure:
			return errors.New(oneLine(msg))
		case ec == godal.CE_Warning:
			warn(msg)
		}
		return nil
	}
}

// cErr is what one C helper call captured from GDAL.
type cErr struct{ e C.aidw_err }

// take hands the warnings over and returns the failure, if any, releasing both.
func (c *cErr) take(warn func(string)) error {
	defer C.aidw_err_free(&c.e)
	if c.e.warnings != nil {
		for _, w := range strings.Split(C.GoString(c.e.warnings), "\n") {
			warn(w)
		}
	}
	if c.e.failure != nil {
		return errors.New(oneLine(C.GoString(c.e.failure)))
	}
	return nil
}

// cStrings converts a Go string list to a NULL-terminated C array; free releases it.
func cStrings(list []string) (arr **C.char, free func()) {
	if len(list) == 0 {
		return nil, func() {}
	}
	p := C.calloc(C.size_t(len(list)+1), C.size_t(unsafe.Sizeof(uintptr(0))))
	items := unsafe.Slice((**C.char)(p), len(list)+1)
	for i, s := range list {
		items[i] = C.CString(s)
	}
	return (**C.char)(p), func() {
		for _, s := range items[:len(list)] {
			C.free(unsafe.Pointer(s))
		}
		C.free(p)
	}
}

// oneLine folds GDAL's multi-line messages (SQL parse errors point at the offending text on
// extra lines) into one line, as every aidw error is.
func oneLine(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}

// flat makes a godal error one line: godal joins several GDAL failures with newlines.
func flat(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(oneLine(err.Error()))
}
