package gdalio

/*
#include <gdal.h>
void aidw_discard_on_close(GDALDatasetH ds);
*/
import "C"

import (
	"unsafe"

	"github.com/airbusgeo/godal"
)

// discardOnClose makes closing ds drop its blocks still in GDAL's cache instead of writing
// them (a compressed GTiff compresses them: seconds for a large raster) and delete its files:
// for a dataset that is aborted. godal keeps the handle unexported as the first word of a
// Dataset (checked by TestDatasetHandle).
func discardOnClose(ds *godal.Dataset) {
	C.aidw_discard_on_close(datasetHandle(ds))
}

func datasetHandle(ds *godal.Dataset) C.GDALDatasetH {
	return C.GDALDatasetH(*(*unsafe.Pointer)(unsafe.Pointer(ds)))
}
