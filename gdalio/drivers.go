package gdalio

/*
#include <gdal.h>
*/
import "C"

import "strings"

// rasterDriver is a GDAL raster driver that writes files: what it can do and the extensions
// and data types it declares.
type rasterDriver struct {
	Name               string
	Create, CreateCopy bool
	Extensions         []string // lower case, without dot
	Types              []string // DMD_CREATIONDATATYPES; empty when the driver lists none
}

// rasterWriters lists the registered raster drivers that have DCAP_CREATE or DCAP_CREATECOPY.
func rasterWriters() []rasterDriver {
	register()
	var out []rasterDriver
	for i := range int(C.GDALGetDriverCount()) {
		d := C.GDALGetDriver(C.int(i))
		if driverItem(d, "DCAP_RASTER") == "" {
			continue
		}
		rd := rasterDriver{Name: C.GoString(C.GDALGetDriverShortName(d)),
			Create: driverItem(d, "DCAP_CREATE") != "", CreateCopy: driverItem(d, "DCAP_CREATECOPY") != "",
			Extensions: strings.Fields(strings.ToLower(driverItem(d, "DMD_EXTENSIONS"))),
			Types:      strings.Fields(driverItem(d, "DMD_CREATIONDATATYPES"))}
		if rd.Create || rd.CreateCopy {
			out = append(out, rd)
		}
	}
	return out
}
