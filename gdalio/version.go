package gdalio

/*
#include <stdlib.h>
#include <gdal.h>
*/
import "C"

import "unsafe"

// GDALVersion is the release of the GDAL library aidw runs on ("3.6.2").
func GDALVersion() string {
	register()
	key := C.CString("RELEASE_NAME")
	defer C.free(unsafe.Pointer(key))
	return C.GoString(C.GDALVersionInfo(key))
}
