package main

import (
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
	}
	return alg.NoData(), false
}
