package gdalio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/raster"
	"github.com/airbusgeo/godal"
)

// openRaster opens a raster with godal directly, independently of the code under test.
func openRaster(t *testing.T, path string) *godal.Dataset {
	t.Helper()
	ds, err := godal.Open(path, godal.RasterOnly(), godal.SiblingFiles(), godal.ErrLogger(godalErrors(func(string) {})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	return ds
}

func readBand(t *testing.T, ds *godal.Dataset, band int) []float64 {
	t.Helper()
	st := ds.Structure()
	buf := make([]float64, st.SizeX*st.SizeY)
	if err := ds.Bands()[band].Read(0, 0, buf, st.SizeX, st.SizeY); err != nil {
		t.Fatal(err)
	}
	return buf
}

func value(band, row, col int) float64 { return float64(band*1000+row*10+col) + 0.3 }

// writeAll writes every band in blocks of two rows.
func writeAll(t *testing.T, w *Writer, tg raster.Target, bands int, f func(b, r, c int) float64) {
	t.Helper()
	for b := 1; b <= bands; b++ {
		for r0 := 0; r0 < tg.Rows; r0 += 2 {
			rows := min(2, tg.Rows-r0)
			vals := make([]float64, 0, rows*tg.Cols)
			for r := r0; r < r0+rows; r++ {
				for c := range tg.Cols {
					vals = append(vals, f(b, r, c))
				}
			}
			if err := w.WriteRows(b, r0, rows, vals); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.tif")
	tg := raster.NorthUp(440720, 3750120, 441920, 3751320, 7, 5)
	w, err := Create(dst, tg, RasterOptions{Type: "Float32", SRS: "EPSG:26711", NoData: -9999, SetNoData: true, Bands: 2, Create: []string{"COMPRESS=DEFLATE"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Fatalf("destination exists before Commit: %v", err)
	}
	if files := dirtest.Names(t, dir); len(files) != 1 || !strings.HasPrefix(files[0], "out"+outfile.TempInfix) {
		t.Fatalf("files while writing %v, want one temporary file beside the destination", files)
	}
	writeAll(t, w, tg, 2, value)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if files := dirtest.Names(t, dir); !slices.Equal(files, []string{"out.tif"}) {
		t.Fatalf("files after Commit %v, want only out.tif", files)
	}
	ds := openRaster(t, dst)
	st := ds.Structure()
	if st.SizeX != 7 || st.SizeY != 5 || st.NBands != 2 || st.DataType != godal.Float32 {
		t.Fatalf("structure %+v, want 7x5, 2 bands, Float32", st)
	}
	gt, err := ds.GeoTransform()
	if err != nil || gt != [6]float64{440720, 1200.0 / 7, 0, 3751320, 0, -240} {
		t.Fatalf("geotransform %v (%v)", gt, err)
	}
	want, _ := godal.NewSpatialRefFromEPSG(26711)
	if !ds.SpatialRef().IsSame(want) {
		t.Fatalf("CRS %q, want EPSG:26711", ds.Projection())
	}
	for b := range 2 {
		if nd, ok := ds.Bands()[b].NoData(); !ok || nd != -9999 {
			t.Fatalf("band %d nodata %v %v, want -9999", b+1, nd, ok)
		}
		got := readBand(t, ds, b)
		for r := range 5 {
			for c := range 7 {
				if v := got[r*7+c]; v != float64(float32(value(b+1, r, c))) {
					t.Fatalf("band %d (%d,%d) = %v, want %v", b+1, r, c, v, float32(value(b+1, r, c)))
				}
			}
		}
	}
}

func TestWriterTypesAndNoNoData(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "b.tif")
	tg := raster.NorthUp(0, 0, 4, 1, 4, 1)
	w, err := Create(dst, tg, RasterOptions{Type: "Byte"})
	if err != nil {
		t.Fatal(err)
	}
	// GDAL converts to integer types by rounding to nearest and clamping to the range
	if err := w.WriteRows(1, 0, 1, []float64{1.4, 1.6, 300, -5}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ds := openRaster(t, dst)
	if got := readBand(t, ds, 0); !slices.Equal(got, []float64{1, 2, 255, 0}) {
		t.Fatalf("Byte values %v, want 1 2 255 0", got)
	}
	if _, ok := ds.Bands()[0].NoData(); ok || ds.Structure().DataType != godal.Byte {
		t.Fatal("want a Byte band without nodata")
	}
	if ds.Projection() != "" {
		t.Fatalf("CRS %q, want none", ds.Projection())
	}
}

func TestWriterCreateCopyAndSideFiles(t *testing.T) {
	dir := t.TempDir()
	tg := raster.NorthUp(10, 20, 13, 22, 3, 2)
	for _, c := range []struct {
		name, format, typ string
		files             []string
	}{
		{"out.png", "PNG", "Byte", []string{"out.png", "out.png.aux.xml"}},              // CreateCopy only
		{"out.tiff", "COG", "Float32", []string{"out.tiff"}},                            // CreateCopy only
		{"out.bin", "ENVI", "Int16", []string{"out.bin", "out.bin.aux.xml", "out.hdr"}}, // side files
		{"out.img", "", "UInt16", []string{"out.img"}},                                  // format guessed: HFA
	} {
		t.Run(c.format, func(t *testing.T) {
			sub := filepath.Join(dir, c.name+".d")
			os.Mkdir(sub, 0o755)
			dst := filepath.Join(sub, c.name)
			w, err := Create(dst, tg, RasterOptions{Format: c.format, Type: c.typ, SRS: "EPSG:32631", NoData: 7, SetNoData: true})
			if err != nil {
				t.Fatal(err)
			}
			writeAll(t, w, tg, 1, func(b, r, c int) float64 { return float64(10*r + c + 1) })
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if files := dirtest.Names(t, sub); !slices.Equal(files, c.files) {
				t.Fatalf("files %v, want %v", files, c.files)
			}
			ds := openRaster(t, dst)
			if got := readBand(t, ds, 0); !slices.Equal(got, []float64{1, 2, 3, 11, 12, 13}) {
				t.Fatalf("values %v", got)
			}
			if gt, _ := ds.GeoTransform(); gt != tg.GeoTransform {
				t.Fatalf("geotransform %v, want %v", gt, tg.GeoTransform)
			}
			if nd, ok := ds.Bands()[0].NoData(); !ok || nd != 7 {
				t.Fatalf("nodata %v %v, want 7", nd, ok)
			}
		})
	}
}

func TestWriterAbortAndReplace(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "keep.tif")
	old := []byte("previous result")
	os.WriteFile(dst, old, 0o644)
	os.WriteFile(dst+".aux.xml", []byte("<PAMDataset>stale</PAMDataset>"), 0o644)
	tg := raster.NorthUp(0, 0, 2, 2, 2, 2)
	w, err := Create(dst, tg, RasterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteRows(1, 0, 1, []float64{1, 2})
	w.Abort()
	w.Abort() // harmless twice
	if got, _ := os.ReadFile(dst); string(got) != string(old) {
		t.Fatalf("destination changed by Abort: %q", got)
	}
	if files := dirtest.Names(t, dir); !slices.Equal(files, []string{"keep.tif", "keep.tif.aux.xml"}) {
		t.Fatalf("files after Abort %v, want the old ones only", files)
	}
	if err := w.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
	// a failure inside Commit (CreateCopy rejects the option) leaves the old files alone too
	png := filepath.Join(dir, "keep.png")
	os.WriteFile(png, old, 0o644)
	w, err = Create(png, tg, RasterOptions{Format: "PNG", Type: "Byte", Create: []string{"ZLEVEL=99"}})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return 1 })
	if err := w.Commit(); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Commit with a bad PNG option: error %q, want one line", err)
	}
	if got, _ := os.ReadFile(png); string(got) != string(old) {
		t.Fatalf("destination changed by a failed Commit: %q", got)
	}
	if files := dirtest.Names(t, dir); len(files) != 3 {
		t.Fatalf("files after a failed Commit %v, want the 3 old ones", files)
	}
	// a successful Commit replaces the file and drops the stale PAM side file
	w, err = Create(dst, tg, RasterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return 5 })
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if files := dirtest.Names(t, dir); !slices.Equal(files, []string{"keep.png", "keep.tif"}) {
		t.Fatalf("files after replacing %v", files)
	}
	if got := readBand(t, openRaster(t, dst), 0); !slices.Equal(got, []float64{5, 5, 5, 5}) {
		t.Fatalf("replaced values %v", got)
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	tg := raster.NorthUp(0, 0, 2, 2, 2, 2)
	cases := []struct {
		path string
		t    raster.Target
		opt  RasterOptions
		want string
	}{
		{filepath.Join(dir, "nodir", "x.tif"), tg, RasterOptions{}, "cannot write"},
		{dir, tg, RasterOptions{}, "is a directory"},
		{filepath.Join(dir, "x.tif"), tg, RasterOptions{Format: "NoSuchDriver"}, `output format "NoSuchDriver" is not a GDAL raster driver`},
		{filepath.Join(dir, "x.tif"), tg, RasterOptions{Format: "ESRI Shapefile"}, "not a GDAL raster driver"},
		{filepath.Join(dir, "x.tif"), tg, RasterOptions{Format: "MEM"}, "writes no file"},
		{filepath.Join(dir, "x.tif"), tg, RasterOptions{Type: "Float128"}, `unknown output type "Float128"`},
		{filepath.Join(dir, "x.tif"), tg, RasterOptions{SRS: "EPSG:999999"}, `CRS "EPSG:999999"`},
		{filepath.Join(dir, "x.qqq"), tg, RasterOptions{}, "cannot guess the output format"},
		{filepath.Join(dir, "x.tif"), raster.NorthUp(0, 0, 1, 1, 100000, 100000), RasterOptions{Create: []string{"BLOCKYSIZE=100000", "COMPRESS=DEFLATE"}}, "a row of the driver's blocks needs 74.5 GiB, more than the"},
		{filepath.Join(dir, "x.tif"), raster.NorthUp(0, 0, 1, 1, 1<<40, 1), RasterOptions{}, "at most 2147483647 pixels a side"},
		{filepath.Join(dir, "x.tif"), raster.NorthUp(0, 0, 0, 1, 2, 2), RasterOptions{}, "no area"},
	}
	for _, c := range cases {
		w, err := Create(c.path, c.t, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			if w != nil {
				w.Abort()
			}
			t.Fatalf("Create(%s, %+v): error %q, want one line containing %q", c.path, c.opt, err, c.want)
		}
	}
	if files := dirtest.Names(t, dir); len(files) != 0 {
		t.Fatalf("failed Creates left %v", files)
	}
	if err := checkMemory(10, 1<<60, "a test buffer"); err == nil || !strings.Contains(err.Error(), "a test buffer needs") {
		t.Fatalf("checkMemory of an exabyte: %v", err)
	}
	if err := CheckDestination(filepath.Join(dir, "nodir", "x.tif")); err == nil {
		t.Fatal("CheckDestination accepted a missing folder")
	}
	if err := CheckDestination(filepath.Join(dir, "ok.tif")); err != nil || len(dirtest.Names(t, dir)) != 0 {
		t.Fatalf("CheckDestination: %v, files %v", err, dirtest.Names(t, dir))
	}
	w, err := Create(filepath.Join(dir, "x.tif"), tg, RasterOptions{Bands: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, c := range []struct {
		band, row0, rows, n int
		want                string
	}{
		{3, 0, 1, 2, "band 3: the raster has bands 1 to 2"},
		{0, 0, 1, 2, "band 0"},
		{1, 1, 2, 4, "rows 1-2: the raster has rows 0 to 1"},
		{1, 0, 1, 3, "1 rows need 2 values, got 3"},
	} {
		if err := w.WriteRows(c.band, c.row0, c.rows, make([]float64, c.n)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("WriteRows%v: error %v, want %q", c, err, c.want)
		}
	}
}

func TestOutputFormatGuess(t *testing.T) {
	register()
	for path, want := range map[string]string{"a.tif": "GTiff", "a.TIFF": "GTiff", "a": "GTiff", "a.img": "HFA", "a.png": "PNG", "a.asc": "AAIGrid"} {
		if got, err := outputFormat(path, ""); err != nil || got != want {
			t.Fatalf("outputFormat(%s) = %q, %v; want %s", path, got, err, want)
		}
	}
	if got, _ := outputFormat("a.png", "GTiff"); got != "GTiff" {
		t.Fatalf("-of must win over the extension, got %s", got)
	}
}

func TestWriterLargeRasterInBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 4000 x 3000 raster")
	}
	dir := t.TempDir()
	dst := filepath.Join(dir, "big.tif")
	tg := raster.NorthUp(0, 0, 4000, 3000, 4000, 3000)
	w, err := Create(dst, tg, RasterOptions{Type: "Float32", Create: []string{"TILED=YES"}})
	if err != nil {
		t.Fatal(err)
	}
	step := 700 // not a multiple of the 256-row tiles
	vals := make([]float64, step*tg.Cols)
	for r0 := 0; r0 < tg.Rows; r0 += step {
		rows := min(step, tg.Rows-r0)
		for i := range rows * tg.Cols {
			vals[i] = float64(r0 + i/tg.Cols)
		}
		if err := w.WriteRows(1, r0, rows, vals[:rows*tg.Cols]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ds := openRaster(t, dst)
	row := make([]float64, tg.Cols)
	for _, r := range []int{0, 699, 700, 2999} {
		if err := ds.Bands()[0].Read(0, r, row, tg.Cols, 1); err != nil {
			t.Fatal(err)
		}
		if row[0] != float64(r) || row[tg.Cols-1] != float64(r) || math.IsNaN(row[17]) {
			t.Fatalf("row %d reads %v..%v", r, row[0], row[tg.Cols-1])
		}
	}
}

// TestWriterConvertsAsGDAL writes rows that GDAL's conversion rounds and clamps (NaN, the
// infinities, halves, values beyond the type) in blocks of uneven height, to every type and to
// a raw driver (rows straight to the file) and a GTiff: each file equals, byte for byte, the one
// GDAL writes from the same float64 rows through its own conversion and block cache.
func TestWriterConvertsAsGDAL(t *testing.T) {
	register()
	tg := raster.NorthUp(0, 0, 700, 500, 700, 500)
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.5, 1.5, -0.5, -2.5, 254.5, 255.5, 65535.5,
		-32768.5, 3e38, 4e38, -4e38, 2147483647.5, 4294967296, 1e-46, -0}
	values := make([]float64, tg.Cols*tg.Rows)
	for i := range values {
		values[i] = specials[i%len(specials)] + float64(i/len(specials)%3)*0.25
		if i%7 == 0 {
			values[i] = float64(i%997) - 300.25
		}
	}
	for _, format := range []string{"ENVI", "GTiff"} {
		for _, typ := range []string{"Byte", "UInt16", "Int16", "UInt32", "Int32", "Float32", "Float64"} {
			dir := t.TempDir()
			ext := map[string]string{"ENVI": ".img", "GTiff": ".tif"}[format]
			got, want := filepath.Join(dir, "got"+ext), filepath.Join(dir, "want"+ext)
			w, err := Create(got, tg, RasterOptions{Format: format, Type: typ})
			if err != nil {
				t.Fatal(err)
			}
			for row0, step := 0, 1; row0 < tg.Rows; row0, step = row0+step, step*2+1 {
				rows := min(step, tg.Rows-row0)
				if err := w.WriteRows(1, row0, rows, values[row0*tg.Cols:(row0+rows)*tg.Cols]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			dt, _, err := dataType(typ)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := godal.Create(godal.DriverName(format), want, 1, dt, tg.Cols, tg.Rows)
			if err != nil {
				t.Fatal(err)
			}
			if err := ds.SetGeoTransform(tg.GeoTransform); err != nil {
				t.Fatal(err)
			}
			if err := ds.Bands()[0].Write(0, 0, values, tg.Cols, tg.Rows); err != nil {
				t.Fatal(err)
			}
			if err := ds.Close(); err != nil {
				t.Fatal(err)
			}
			a, errA := os.ReadFile(got)
			b, errB := os.ReadFile(want)
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s %s: the file differs from GDAL's (%d and %d bytes; %v %v)", format, typ, len(a), len(b), errA, errB)
			}
		}
	}
}
