package gdalio

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/raster"
)

// driverSkips are the raster drivers that write files but that a small gridded raster cannot
// go to as it is, each with the reason (GDAL 3.6).
var driverSkips = map[string]string{
	"MEM":             "writes no file (refused by Create)",
	"VRT":             "cannot be written through (VRTSourcedRasterBand)",
	"PDS4":            "its label names the image file, which the final rename changes",
	"NITF":            "its geotransform (IGEOLO) needs a geographic or UTM CRS",
	"DTED":            "needs a 1x1 degree tile in WGS 84 of a fixed size",
	"SRTMHGT":         "needs a 1x1 degree tile of 1201 or 3601 nodes",
	"USGSDEM":         "resamples onto its own product grid",
	"ADRG":            "needs three bands (RGB)",
	"WEBP":            "lossy, and three or four bands (RGB/RGBA)",
	"LCP":             "a landscape of 5, 7, 8 or 10 fixed bands",
	"NTv2":            "a datum grid shift of four bands in geographic degrees",
	"BLX":             "needs a size that is a multiple of 128",
	"KMLSUPEROVERLAY": "needs geographic coordinates in WGS 84",
	"BYN":             "a geoid grid in geographic degrees",
	"MBTiles":         "needs Web Mercator tiles at a zoom level's pixel size",
	"PDF":             "Create makes vector PDFs only; raster PDFs are rendered images",
	"PCRaster":        "needs the PCRASTER_VALUESCALE creation option",
	"Terragen":        "needs a heightfield span in metres (creation options)",
	"Leveller":        "needs the MINUSERPIXELVALUE creation option",
	"JPEG":            "lossy",
	"JP2OpenJPEG":     "lossy by default",
	"XPM":             "a palette image: values are quantised to its colours",
	"CALS":            "one-bit images",
	"NWT_GRD":         "rescales values into its own colour bands",
	"MFF2":            "writes a directory of its own layout and has no extension",
	"PostGISRaster":   "a database connection, not a file",
	"NGW":             "a web service",
	"WMS":             "a web service description",
	"WMTS":            "a web service description",
}

// driverExtensions give the drivers that declare no extension the one their files take.
var driverExtensions = map[string]string{
	"Zarr": "zarr", "ENVI": "bin", "ISCE": "slc", "ELAS": "elas", "HDF4Image": "hdf", "ISIS2": "cub",
	"VICAR": "vic", "FIT": "fit", "PAux": "raw", "LAN": "lan", "CTable2": "ct2", "ROI_PAC": "dem", "ARG": "arg",
}

// driverTypes override the data type for drivers whose declared list is not what they take.
var driverTypes = map[string]string{"ROI_PAC": "Int16", "MRF": "Byte"} // MRF's default PNG takes no Float32

// nodataSkips are the drivers whose test with nodata cannot pass, with the reason (GDAL 3.6).
var nodataSkips = map[string]string{
	"GRIB":   "GRIB2 packing of a band with nodata fails (gdal_translate too)",
	"SIGDEM": "keeps nodata -9999 whatever the band's",
}

// noGeoTransform are drivers that keep a geotransform only with a CRS they know.
var noGeoTransform = map[string]string{
	"ILWIS": "keeps georeferencing only with a CRS it can describe",
	"MFF":   "keeps georeferencing only in geographic coordinates",
	"VICAR": "writes no georeferencing by default",
	"PNM":   "has no georeferencing",
}

// TestWriterEveryDriver writes a small raster with every GDAL raster driver that can create
// files (DCAP_CREATE or DCAP_CREATECOPY) and has an extension, through the Writer, and reads
// the values back. GPKG and Zarr refuse an existing path: the temporary name must not exist
// when the driver creates it (issue 12, defect 2).
func TestWriterEveryDriver(t *testing.T) {
	tg := raster.NorthUp(440720, 3750120, 440840, 3750210, 4, 3)
	tested := 0
	for _, d := range rasterWriters() {
		if why, ok := driverSkips[d.Name]; ok {
			t.Logf("skip %s: %s", d.Name, why)
			continue
		}
		ext := driverExtensions[d.Name]
		if len(d.Extensions) > 0 {
			ext = d.Extensions[0]
		}
		if ext == "" {
			t.Errorf("%s: no extension known: add it to driverExtensions or driverSkips", d.Name)
			continue
		}
		typ := "Byte"
		if len(d.Types) > 0 && !slices.Contains(d.Types, "Byte") {
			typ = d.Types[0]
			for _, pref := range []string{"Float32", "Int16", "Float64", "Int32", "UInt16"} {
				if slices.Contains(d.Types, pref) {
					typ = pref
					break
				}
			}
		}
		if ty, ok := driverTypes[d.Name]; ok {
			typ = ty
		}
		t.Run(d.Name, func(t *testing.T) { writeDriverRaster(t, d, ext, typ, tg, nil) })
		if why, ok := nodataSkips[d.Name]; ok {
			t.Logf("skip %s with nodata: %s", d.Name, why)
		} else {
			ndType := nodataType(d, typ)
			nodata := nodataFor(ndType)
			t.Run(d.Name+"/nodata", func(t *testing.T) { writeDriverRaster(t, d, ext, ndType, tg, &nodata) })
		}
		tested++
	}
	for _, must := range []string{"GTiff", "GPKG", "Zarr", "XYZ", "PNG", "AAIGrid", "HFA", "ENVI"} {
		if _, err := outputFormat("x", must); err != nil {
			t.Errorf("%s: %v", must, err)
		}
	}
	if tested < 20 {
		t.Errorf("only %d drivers tested", tested)
	}
}

// TestWriterReplacesZarrStore writes a Zarr store twice to the same destination: the second
// replaces the first (a Zarr dataset is a directory).
func TestWriterReplacesZarrStore(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "o.zarr")
	tg := raster.NorthUp(0, 0, 3, 2, 3, 2)
	for _, v := range []float64{1, 2} {
		w, err := Create(dst, tg, RasterOptions{Format: "Zarr", Type: "Float32"})
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, tg, 1, func(b, r, c int) float64 { return v })
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := readBand(t, openRaster(t, dst), 0); !slices.Equal(got, []float64{v, v, v, v, v, v}) {
			t.Fatalf("values %v, want %v", got, v)
		}
	}
	if files := dirtest.Names(t, dir); !slices.Equal(files, []string{"o.zarr"}) {
		t.Fatalf("files %v, want o.zarr only", files)
	}
}

// TestWriterRemovesStaleTemporaries: a run that was killed leaves its temporary file; the next
// run to the same destination removes it when its writer is gone, and never a live process's
// (issue 12, defect 12; which writers are gone: outfile's TestRemoveStale).
func TestWriterRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "dem.tif")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale, live := outfile.TempNameOf(dst, cmd.Process.Pid), outfile.TempNameOf(dst, os.Getpid())
	for _, f := range []string{stale, live} {
		os.WriteFile(f, nil, 0o644)
	}
	tg := raster.NorthUp(0, 0, 2, 2, 2, 2)
	w, err := Create(dst, tg, RasterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return 1 })
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"dem.tif", filepath.Base(live)}
	slices.Sort(want)
	if got := dirtest.Names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

// nodataType is the type a band with nodata is written in: Float32 where the driver takes it,
// as a DEM from LAS/LAZ (nodata -9999) is, else the type of the test without nodata.
func nodataType(d rasterDriver, typ string) string {
	if _, ok := driverTypes[d.Name]; !ok && (len(d.Types) == 0 || slices.Contains(d.Types, "Float32")) {
		return "Float32"
	}
	return typ
}

// nodataFor is a nodata value that the data type holds and that is none of the written values.
func nodataFor(typ string) float64 {
	switch typ {
	case "Byte":
		return 255
	case "UInt16", "UInt32":
		return 65535
	}
	return -9999
}

// writeDriverRaster writes a 4x3 raster of 1..24 in driver d's format through the Writer and
// reads it back; with nodata, the band declares it and its first node holds it, and both must
// read back (in the file, or in its .aux.xml for drivers without a place for it).
func writeDriverRaster(t *testing.T, d rasterDriver, ext, typ string, tg raster.Target, nodata *float64) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out."+ext)
	var warned []string
	opt := RasterOptions{Format: d.Name, Type: typ, SRS: "EPSG:26711", Warn: func(m string) { warned = append(warned, m) }}
	want := []float64{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24}
	if nodata != nil {
		opt.NoData, opt.SetNoData = *nodata, true
		want[0] = *nodata
	}
	w, err := Create(dst, tg, opt)
	if err != nil {
		t.Fatalf("Create %s (%s): %v", dst, typ, err)
	}
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return want[r*4+c] })
	if err := w.Commit(); err != nil {
		t.Fatalf("Commit %s (%s): %v", dst, typ, err)
	}
	for _, f := range dirtest.Names(t, dir) {
		if strings.Contains(f, outfile.TempInfix) {
			t.Errorf("temporary file %s left", f)
		}
	}
	ds := openRaster(t, dst)
	st := ds.Structure()
	if st.SizeX != 4 || st.SizeY != 3 {
		t.Fatalf("size %dx%d, want 4x3", st.SizeX, st.SizeY)
	}
	got := readBand(t, ds, 0)
	if nodata != nil && nodataLost[d.Name] {
		if !slices.ContainsFunc(warned, func(m string) bool { return strings.Contains(m, "keeps no nodata") }) {
			t.Errorf("no warning that %s keeps no nodata: %q", d.Name, warned)
		}
		return
	}
	if nodata != nil {
		// a format with a nodata value of its own holds that one: the node must read as nodata
		nd, ok := ds.Bands()[0].NoData()
		if !ok || (got[0] != nd && !(math.IsNaN(got[0]) && math.IsNaN(nd))) {
			t.Fatalf("node 0 reads %v, nodata %v (set %v): want nodata", got[0], nd, ok)
		}
		got[0] = want[0]
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Fatalf("values %v, want %v", got, want)
		}
	}
	if _, ok := noGeoTransform[d.Name]; ok {
		return
	}
	if gt, err := ds.GeoTransform(); err != nil || gt != tg.GeoTransform {
		for i := range gt {
			if math.Abs(gt[i]-tg.GeoTransform[i]) > 1e-6*math.Max(1, math.Abs(gt[i])) {
				t.Errorf("geotransform %v, want %v", gt, tg.GeoTransform)
				break
			}
		}
	}
}

// TestWriterGPKGCoverage writes a Float32 GeoPackage with nodata, as a LAZ DEM is (issue 27,
// defect 1: Create failed with "unknown cpl error 3"): a gridded coverage whose table is named
// after the file, as gdal_translate names it, and whose values are exact (TIFF tiles).
func TestWriterGPKGCoverage(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "dem.gpkg")
	tg := raster.NorthUp(0, 0, 3, 2, 3, 2)
	w, err := Create(dst, tg, RasterOptions{Type: "Float32", NoData: -9999, SetNoData: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-9999, 1.25, 2.5e6, 3.125, -4, 5} // all exact in float32
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return want[r*3+c] })
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ds := openRaster(t, dst)
	if got := readBand(t, ds, 0); !slices.Equal(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	if nd, ok := ds.Bands()[0].NoData(); !ok || nd != -9999 {
		t.Errorf("nodata %v (set %v), want -9999", nd, ok)
	}
	if id := ds.Metadata("IDENTIFIER"); id != "dem" {
		t.Errorf("table %q, want dem", id)
	}
	// what CreateCopy refuses is refused by Create, before the work
	for _, c := range []struct {
		opt  RasterOptions
		want string
	}{
		{RasterOptions{Type: "Float64"}, "Float32"},
		{RasterOptions{Type: "Float32", Bands: 6}, "band"},
	} {
		out := t.TempDir()
		if _, err := Create(filepath.Join(out, "x.gpkg"), tg, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.opt, err, c.want)
		}
		if files := dirtest.Names(t, out); len(files) != 0 {
			t.Errorf("%+v: left %v", c.opt, files)
		}
	}
}
