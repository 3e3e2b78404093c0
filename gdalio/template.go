package gdalio

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/raster"
	"github.com/airbusgeo/godal"
)

// maskStripNodes bounds the template pixels read at once, whatever the block asked for.
const maskStripNodes = 1 << 20

// Template is the output grid taken from a raster (-like).
type Template struct {
	// Target has the template's size and geotransform; its Mask marks the nodes where the
	// template's first band is nodata, read block by block from the file.
	Target raster.Target
	// SRS is the template's CRS as WKT, "" when it has none.
	SRS string
	// NoData is band 1's nodata value, nil when the band has none (then Target.Mask is nil).
	NoData *float64
}

// ReadTemplate reads a template raster's grid, CRS and nodata.
func ReadTemplate(path string) (*Template, error) {
	register()
	eh := godal.ErrLogger(godalErrors(warner(nil)))
	// SiblingFiles() lets GDAL find side files (x.aux.xml, world files): godal hides them
	// by default, which would lose a PNG template's georeferencing.
	ds, err := godal.Open(path, godal.RasterOnly(), godal.SiblingFiles(), eh)
	if err != nil {
		return nil, fmt.Errorf("reading template %s: %w", path, flat(err))
	}
	defer ds.Close(eh)
	st := ds.Structure()
	if st.NBands < 1 {
		return nil, fmt.Errorf("reading template %s: it has no band", path)
	}
	gt, err := ds.GeoTransform(eh)
	if err != nil {
		return nil, fmt.Errorf("reading template %s: it has no geotransform", path)
	}
	t := &Template{
		Target: raster.Target{Cols: st.SizeX, Rows: st.SizeY, GeoTransform: gt},
		SRS:    ds.Projection(),
	}
	if err := t.Target.Validate(); err != nil {
		return nil, fmt.Errorf("template %s: %w", path, err)
	}
	band := ds.Bands()[0]
	if nd, ok := band.NoData(); ok {
		t.NoData = &nd
		t.Target.Mask = maskReader(path, st.SizeX, band.Structure().DataType, nd)
	}
	return t, nil
}

// maskReader returns a Target.Mask that reopens the template for each block and reads its rows
// in strips, so the template never sits in memory whole.
func maskReader(path string, cols int, dt godal.DataType, nodata float64) func(row0, rows int, skip []bool) error {
	isNoData := noDataTest(dt, nodata)
	return func(row0, rows int, skip []bool) error {
		if len(skip) != rows*cols {
			return fmt.Errorf("mask of %d rows needs %d flags, got %d", rows, rows*cols, len(skip))
		}
		eh := godal.ErrLogger(godalErrors(warner(nil)))
		ds, err := godal.Open(path, godal.RasterOnly(), godal.SiblingFiles(), eh)
		if err != nil {
			return fmt.Errorf("reading template %s: %w", path, flat(err))
		}
		defer ds.Close(eh)
		band := ds.Bands()[0]
		strip := max(1, min(rows, maskStripNodes/cols))
		buf := make([]float64, strip*cols)
		for r := 0; r < rows; r += strip {
			n := min(strip, rows-r)
			if err := band.Read(0, row0+r, buf[:n*cols], cols, n, eh); err != nil {
				return fmt.Errorf("reading template %s rows %d-%d: %w", path, row0+r, row0+r+n-1, flat(err))
			}
			for i, v := range buf[:n*cols] {
				skip[r*cols+i] = isNoData(v)
			}
		}
		return nil
	}
}

// noDataTest compares in the band's own precision, as GDAL's nodata mask does: a Float32 band
// holds float32(nodata), which differs from nodata itself for most decimals.
func noDataTest(dt godal.DataType, nodata float64) func(float64) bool {
	switch {
	case math.IsNaN(nodata):
		return math.IsNaN
	case dt == godal.Float32 || dt == godal.CFloat32:
		nd := float32(nodata)
		return func(v float64) bool { return float32(v) == nd }
	default:
		return func(v float64) bool { return v == nodata }
	}
}
