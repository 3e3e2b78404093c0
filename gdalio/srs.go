package gdalio

/*
#include <stdlib.h>
#include "ogr_read.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/aidw/aidw/sample"
	"github.com/airbusgeo/godal"
)

// transformChunk bounds the points handed to PROJ at once.
const transformChunk = 1 << 16

// SameSRS reports whether two CRS definitions (WKT or SetFromUserInput strings) describe the
// same CRS; an empty one matches only another empty one, and one GDAL cannot read matches
// nothing (TransformSamples then says why).
func SameSRS(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	register()
	ra, err := spatialRef(a)
	if err != nil {
		return false
	}
	defer ra.Close()
	rb, err := spatialRef(b)
	if err != nil {
		return false
	}
	defer rb.Close()
	return ra.IsSame(rb)
}

func spatialRef(def string) (*godal.SpatialRef, error) {
	sr, err := godal.NewSpatialRef(def, godal.ErrLogger(godalErrors(func(string) {})))
	if err != nil {
		return nil, fmt.Errorf("CRS %q: %w", shorten(def), flat(err))
	}
	return sr, nil
}

// shorten keeps error lines readable when a CRS is a long WKT.
func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// TransformSamples re-projects the samples' x and y (z is a value, not a height, and stays)
// from one CRS to another, in GIS axis order (x = easting or longitude). Samples that cannot
// be transformed are dropped and counted; the new origin is the first kept sample.
func TransformSamples(s *sample.Samples, fromSRS, toSRS string) (dropped int, err error) {
	register()
	for _, def := range []string{fromSRS, toSRS} {
		if _, err := srsWKT(def); err != nil {
			return 0, err
		}
	}
	cf, ct := C.CString(fromSRS), C.CString(toSRS)
	defer C.free(unsafe.Pointer(cf))
	defer C.free(unsafe.Pointer(ct))
	var ce cErr
	var same C.int
	tr := C.aidw_new_transform(cf, ct, &same, &ce.e)
	if err := ce.take(func(string) {}); err != nil || (tr == nil && same == 0) {
		return 0, fmt.Errorf("transforming samples from %q to %q: %v", shorten(fromSRS), shorten(toSRS), err)
	}
	if same != 0 {
		return 0, nil
	}
	defer C.OCTDestroyCoordinateTransformation(tr)
	s.Expand() // transformed coordinates leave the lattice
	// C memory: PROJ writes the results in place
	buf := (*C.double)(C.malloc(C.size_t(transformChunk) * 2 * C.sizeof_double))
	defer C.free(unsafe.Pointer(buf))
	okBuf := (*C.int)(C.malloc(C.size_t(transformChunk) * C.sizeof_int))
	defer C.free(unsafe.Pointer(okBuf))
	xy := unsafe.Slice((*float64)(unsafe.Pointer(buf)), 2*transformChunk)
	ok := unsafe.Slice((*int32)(unsafe.Pointer(okBuf)), transformChunk)
	xs, ys := xy[:transformChunk], xy[transformChunk:]
	n := s.Len()
	ox, oy := s.OriginX, s.OriginY
	kept := 0
	for c0 := 0; c0 < n; c0 += transformChunk {
		m := min(transformChunk, n-c0)
		for i := range m {
			xs[i], ys[i] = s.X[c0+i]+ox, s.Y[c0+i]+oy
		}
		var te cErr
		C.aidw_transform(tr, C.int(m), (*C.double)(unsafe.Pointer(&xs[0])), (*C.double)(unsafe.Pointer(&ys[0])), okBuf, &te.e)
		for i := range m {
			if ok[i] == 0 || !finite(xs[i]) || !finite(ys[i]) {
				continue
			}
			if kept == 0 {
				s.OriginX, s.OriginY = xs[i], ys[i]
			}
			s.X[kept], s.Y[kept], s.Z[kept] = xs[i]-s.OriginX, ys[i]-s.OriginY, s.Z[c0+i]
			kept++
		}
	}
	s.X, s.Y, s.Z = s.X[:kept], s.Y[:kept], s.Z[:kept]
	if kept == 0 && n > 0 {
		return n, errors.New("no sample could be transformed to the output CRS")
	}
	return n - kept, nil
}

// IsGeographic says whether srs ("" for none) is a geographic CRS, in degrees.
func IsGeographic(srs string) (bool, error) {
	if srs == "" {
		return false, nil
	}
	sr, err := spatialRef(srs)
	if err != nil {
		return false, err
	}
	defer sr.Close()
	return sr.Geographic(), nil
}
