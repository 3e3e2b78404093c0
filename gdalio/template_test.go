package gdalio

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/airbusgeo/godal"
)

// makeRaster writes a one-band raster with godal directly; nodata nil leaves it unset.
func makeRaster(t *testing.T, path string, dt godal.DataType, cols, rows int, gt *[6]float64, nodata *float64, pix func(r, c int) float64) {
	t.Helper()
	register()
	ds, err := godal.Create(godal.GTiff, path, 1, dt, cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	if gt != nil {
		ds.SetGeoTransform(*gt)
		sr, _ := godal.NewSpatialRefFromEPSG(32631)
		ds.SetSpatialRef(sr)
	}
	if nodata != nil {
		ds.Bands()[0].SetNoData(*nodata)
	}
	buf := make([]float64, cols*rows)
	for r := range rows {
		for c := range cols {
			buf[r*cols+c] = pix(r, c)
		}
	}
	if err := ds.Bands()[0].Write(0, 0, buf, cols, rows); err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
}

// holes marks a scattered set of template pixels as nodata.
func holes(r, c int) bool { return (r*7+c*13)%11 == 0 || r == 0 }

func TestTemplateMask(t *testing.T) {
	dir := t.TempDir()
	const cols, rows = 3000, 800 // a block of 500 rows spans several read strips
	gt := [6]float64{4.5e5, 2, 0, 5.4e6, 0, -2}
	for _, c := range []struct {
		name   string
		dt     godal.DataType
		nodata float64
	}{
		{"float32 decimal nodata", godal.Float32, 0.1}, // compared as float32, as GDAL does
		{"float64 NaN nodata", godal.Float64, math.NaN()},
		{"int16", godal.Int16, -9999},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".tif")
			makeRaster(t, p, c.dt, cols, rows, &gt, &c.nodata, func(r, cc int) float64 {
				if holes(r, cc) {
					return c.nodata
				}
				return float64(r + cc)
			})
			tpl, err := ReadTemplate(p)
			if err != nil {
				t.Fatal(err)
			}
			if tpl.Target.Cols != cols || tpl.Target.Rows != rows || tpl.Target.GeoTransform != gt {
				t.Fatalf("target %dx%d %v", tpl.Target.Cols, tpl.Target.Rows, tpl.Target.GeoTransform)
			}
			if !strings.Contains(tpl.SRS, "UTM zone 31N") || tpl.NoData == nil || tpl.Target.Mask == nil {
				t.Fatalf("SRS %q nodata %v mask %v", tpl.SRS, tpl.NoData, tpl.Target.Mask != nil)
			}
			for _, blk := range [][2]int{{0, 500}, {500, 300}, {799, 1}} {
				skip := make([]bool, blk[1]*cols)
				if err := tpl.Target.Mask(blk[0], blk[1], skip); err != nil {
					t.Fatal(err)
				}
				for i, s := range skip {
					r, cc := blk[0]+i/cols, i%cols
					if s != holes(r, cc) {
						t.Fatalf("rows %v: node (%d,%d) skip=%v, want %v", blk, r, cc, s, holes(r, cc))
					}
				}
			}
		})
	}
}

func TestTemplateWithoutNoData(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plain.tif")
	gt := [6]float64{10, 1, 0, 20, 0, -1}
	makeRaster(t, p, godal.Byte, 4, 3, &gt, nil, func(r, c int) float64 { return 0 })
	tpl, err := ReadTemplate(p)
	if err != nil {
		t.Fatal(err)
	}
	if tpl.NoData != nil || tpl.Target.Mask != nil {
		t.Fatal("a band without nodata must give no mask")
	}
	want := raster.NorthUp(10, 17, 14, 20, 4, 3)
	if tpl.Target.GeoTransform != want.GeoTransform || tpl.Target.Cols != 4 || tpl.Target.Rows != 3 {
		t.Fatalf("target %+v", tpl.Target)
	}
}

func TestTemplateErrors(t *testing.T) {
	dir := t.TempDir()
	nogt := filepath.Join(dir, "nogt.tif")
	makeRaster(t, nogt, godal.Byte, 2, 2, nil, nil, func(r, c int) float64 { return 1 })
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.tif"):                     "reading template",
		writeFile(t, dir, "text.tif", "this is not a raster"): "reading template",
		nogt: "has no geotransform",
	} {
		_, err := ReadTemplate(path)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: error %q, want one line containing %q", filepath.Base(path), err, want)
		}
	}
}
