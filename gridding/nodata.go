package gridding

import (
	"slices"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/lidar"
)

// outputNoData is the bands' nodata value and whether it is set: the -a string's nodata=
// when given (as gdal_grid), else a template's nodata, which the algorithm then gives the
// nodes it cannot compute and the masked nodes, so that real zeros stay values. Otherwise
// none, as gdal_grid.
func (r *run) outputNoData(tmpl *gdalio.Template) (float64, bool) {
	switch {
	case r.nodataGiven:
		return r.alg.NoData(), true
	case tmpl != nil && tmpl.NoData != nil:
		interp.WithNoData(r.alg, *tmpl.NoData)
		return *tmpl.NoData, true
	case slices.ContainsFunc(r.inputs, lidar.IsLAS):
		interp.WithNoData(r.alg, lidarNoData)
		return lidarNoData, true
	}
	return r.alg.NoData(), false
}

// lidarNoData marks the empty cells of a DEM gridded from LAS/LAZ, as PDAL's writers.gdal
// and LAStools do: 0 is a real height.
const lidarNoData = -9999
