package main

import (
	"path/filepath"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
)

// outputNoData is the bands' nodata value and whether it is set: the -a string's nodata=
// when given (as gdal_grid), else a template's nodata, which the algorithm then gives the
// nodes it cannot compute and the masked nodes, so that real zeros stay values. Otherwise
// none, as gdal_grid.
func outputNoData(a *gridArgs, alg interp.Algorithm, tmpl *gdalio.Template) (float64, bool) {
	switch {
	case a.nodataGiven:
		return alg.NoData(), true
	case tmpl != nil && tmpl.NoData != nil:
		interp.WithNoData(alg, *tmpl.NoData)
		return *tmpl.NoData, true
	case hasLAS(a.inputs()):
		interp.WithNoData(alg, lidarNoData)
		return lidarNoData, true
	}
	return alg.NoData(), false
}

// lidarNoData marks the empty cells of a DEM gridded from LAS/LAZ, as PDAL's writers.gdal
// and LAStools do: 0 is a real height.
const lidarNoData = -9999

// hasLAS says whether any input is LAS or LAZ, directories and globs expanded.
func hasLAS(srcs []string) bool {
	inputs, err := gdalio.ExpandInputs(srcs)
	if err != nil {
		return false
	}
	for _, p := range inputs {
		if ext := strings.ToLower(filepath.Ext(p)); ext == ".las" || ext == ".laz" {
			return true
		}
	}
	return false
}
