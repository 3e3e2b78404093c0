package gdalio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aidw/aidw/internal/testload"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/raster/cog"
)

// sameAsDriver compares the COG at ours with GDAL's at theirs: both TIFF or both BigTIFF, the
// same directories with the same tags, tile offsets aside, and every tile's bytes, leader and
// trailer the same. "" when they are.
func sameAsDriver(t *testing.T, ours, theirs string) string {
	t.Helper()
	a, err := cog.Directories(ours)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cog.Directories(theirs)
	if err != nil {
		t.Fatal(err)
	}
	fa, _ := os.ReadFile(ours)
	fb, _ := os.ReadFile(theirs)
	if len(a) != len(b) || fa[2] != fb[2] {
		return fmt.Sprintf("%d directories, TIFF version %d; GDAL's: %d, %d", len(a), fa[2], len(b), fb[2])
	}
	for d := range a {
		if len(a[d]) != len(b[d]) {
			return fmt.Sprintf("directory %d: %d tags, GDAL's %d", d, len(a[d]), len(b[d]))
		}
		var offA, offB, counts []uint64
		for i, ta := range a[d] {
			tb := b[d][i]
			switch {
			case ta.Code != tb.Code || ta.Type != tb.Type || ta.Count != tb.Count:
				return fmt.Sprintf("directory %d: tag %d (type %d, %d values), GDAL's %d (type %d, %d values)",
					d, ta.Code, ta.Type, ta.Count, tb.Code, tb.Type, tb.Count)
			case ta.Code == 324:
				offA, offB = values(ta), values(tb)
			case !bytes.Equal(ta.Value, tb.Value):
				return fmt.Sprintf("directory %d: tag %d's value differs from GDAL's", d, ta.Code)
			case ta.Code == 325:
				counts = values(ta)
			}
		}
		for k := range offA {
			if !bytes.Equal(fa[offA[k]-4:offA[k]+counts[k]+4], fb[offB[k]-4:offB[k]+counts[k]+4]) {
				return fmt.Sprintf("directory %d: tile %d differs from GDAL's", d, k)
			}
		}
	}
	return ""
}

// values decodes a LONG or LONG8 array tag.
func values(t cog.Tag) []uint64 {
	var out []uint64
	for i := range int(t.Count) {
		if t.Type == 4 {
			out = append(out, uint64(binary.LittleEndian.Uint32(t.Value[4*i:])))
		} else {
			out = append(out, binary.LittleEndian.Uint64(t.Value[8*i:]))
		}
	}
	return out
}

// validCOG runs GDAL's validate_cloud_optimized_geotiff.py on path when python3-gdal is there.
func validCOG(t *testing.T, path string) {
	t.Helper()
	const script = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py"
	if _, err := os.Stat(script); err != nil {
		t.Log("python3-gdal is not installed: GDAL's COG validator not run")
		return
	}
	if out, err := exec.Command("/usr/bin/python3", script, "--full-check=yes", path).CombinedOutput(); err != nil {
		t.Fatalf("GDAL's COG validator: %v: %s", err, out)
	}
}

// TestCOGWrittenAsTheDriverWritesIt: the one-band DEFLATE COGs that aidw writes itself have
// GDAL's COG driver's directories, tags and tile bytes (the layout of the values aside), and
// pass GDAL's validator; the others are the driver's.
func TestCOGWrittenAsTheDriverWritesIt(t *testing.T) {
	cases := append(slices.Clone(cogCases),
		cogCase{name: "Float64 LEVEL=9 BIGTIFF=YES", cols: 1100, rows: 530, bands: 1, typ: "Float64",
			co: []string{"LEVEL=9", "BIGTIFF=YES"}, fast: true},
		cogCase{name: "Int32 IF_SAFER NUM_THREADS=3", cols: 1300, rows: 600, bands: 1, typ: "Int32", nodata: true,
			co: []string{"BIGTIFF=IF_SAFER", "NUM_THREADS=3"}, fast: true},
		// seven images filling at once, each overview as the level above it comes
		cogCase{name: "Float32 six levels BLOCKSIZE=64", cols: 2100, rows: 1500, bands: 1, typ: "Float32", nodata: true,
			co: []string{"BLOCKSIZE=64"}, fast: true},
		// LZW: the driver's default, and named
		cogCase{name: "Float32 LZW by default", cols: 1001, rows: 777, bands: 1, typ: "Float32", nodata: true,
			co: []string{"COMPRESS="}, fast: true},
		cogCase{name: "Int16 LZW PREDICTOR=YES", cols: 1300, rows: 900, bands: 1, typ: "Int16", nodata: true,
			co: []string{"COMPRESS=LZW", "PREDICTOR=YES"}, fast: true},
		cogCase{name: "Float64 LZW PREDICTOR=YES", cols: 700, rows: 600, bands: 1, typ: "Float64",
			co: []string{"COMPRESS=LZW", "PREDICTOR=YES"}, fast: true},
		cogCase{name: "Float32 PREDICTOR=YES (floating point)", cols: 1001, rows: 777, bands: 1, typ: "Float32", nodata: true,
			co: []string{"PREDICTOR=YES"}, fast: true},
		cogCase{name: "Float64 PREDICTOR=FLOATING_POINT", cols: 700, rows: 600, bands: 1, typ: "Float64",
			co: []string{"PREDICTOR=FLOATING_POINT", "BLOCKSIZE=256"}, fast: true},
		cogCase{name: "Float32 PREDICTOR=STANDARD (horizontal)", cols: 600, rows: 600, bands: 1, typ: "Float32",
			co: []string{"PREDICTOR=STANDARD"}, fast: true},
		cogCase{name: "Int16 PREDICTOR=YES (horizontal)", cols: 1001, rows: 777, bands: 1, typ: "Int16", nodata: true,
			co: []string{"PREDICTOR=YES"}, fast: true})
	for _, cc := range cases {
		t.Run(cc.name, func(t *testing.T) {
			dt, size, err := dataType(cc.typ)
			if err != nil {
				t.Fatal(err)
			}
			_, written := cogLayout("COG", cc.cols, cc.rows, cc.bands, dt, size, threadedOptions("COG", caseOptions(cc.co)))
			wantWritten := cc.fast && cc.bands == 1
			if written != wantWritten {
				t.Fatalf("aidw writes the COG: %v, want %v", written, wantWritten)
			}
			dir := t.TempDir()
			plain, ours, theirs := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "ours.tif"), filepath.Join(dir, "gdal.tif")
			writeCOGCase(t, plain, "GTiff", cc)
			writeCOGCase(t, ours, "COG", cc)
			gdalCOG(t, plain, theirs, cc.co)
			if d := sameLevels(levels(t, ours), levels(t, theirs)); d != "" {
				t.Fatal(d)
			}
			if d := sameAsDriver(t, ours, theirs); d != "" {
				t.Fatal(d)
			}
			validCOG(t, ours)
		})
	}
}

// TestCOGLeftToTheDriver: the COGs that aidw does not write as the driver would go to the driver.
func TestCOGLeftToTheDriver(t *testing.T) {
	for _, c := range []struct {
		typ   string
		bands int
		co    []string
	}{
		{"Float32", 1, []string{"COMPRESS=ZSTD"}},
		{"Float32", 1, []string{"COMPRESS=NONE"}},
		{"Float32", 2, []string{"COMPRESS=DEFLATE"}},
		{"Byte", 1, []string{"COMPRESS=DEFLATE"}},
		{"Int32", 1, []string{"COMPRESS=DEFLATE", "PREDICTOR=FLOATING_POINT"}}, // the driver's error
		{"Float32", 1, []string{"COMPRESS=DEFLATE", "RESAMPLING=AVERAGE"}},
		{"Float32", 1, []string{"COMPRESS=DEFLATE", "QUALITY=80"}},
		{"Float32", 1, []string{"COMPRESS=DEFLATE", "BLOCKSIZE=100"}},
	} {
		dt, size, err := dataType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cogLayout("COG", 3000, 2000, c.bands, dt, size, c.co); ok {
			t.Errorf("%s, %d bands, %v: aidw writes it", c.typ, c.bands, c.co)
		}
	}
}

// TestCOGWithinGDALCache: a COG whose rows of tiles need more than GDAL's block cache (which a
// run held to a memory budget bounds and counts) is left to the driver.
func TestCOGWithinGDALCache(t *testing.T) {
	tg := raster.NorthUp(0, 0, 3000, 2000, 3000, 2000)
	dt, size, _ := dataType("Float32")
	layout, ok := cogLayout("COG", 3000, 2000, 1, dt, size, []string{"COMPRESS=DEFLATE"})
	if !ok {
		t.Fatal("aidw does not write this COG")
	}
	for _, c := range []struct {
		cache  int64
		writes bool
	}{{int64(cog.Memory(layout)), true}, {int64(cog.Memory(layout)) - 1, false}} {
		restore := limitCache(c.cache)
		w, err := Create(filepath.Join(t.TempDir(), "o.tif"), tg, RasterOptions{Format: "COG", Type: "Float32",
			Create: []string{"COMPRESS=DEFLATE"}})
		restore()
		if err != nil {
			t.Fatal(err)
		}
		if (w.cog != nil) != c.writes {
			t.Errorf("GDAL's cache of %d bytes, rows of tiles of %d: aidw writes the COG %v, want %v",
				c.cache, cog.Memory(layout), w.cog != nil, c.writes)
		}
		w.Abort()
	}
}

// TestCOGRowsOutOfOrder: rows that come out of order leave the COG to the driver: the rows the
// COG took (a compressed row of tiles, decoded, and part of the next) go back to the staged
// raster, and the file is GDAL's all the same, with and without a predictor.
func TestCOGRowsOutOfOrder(t *testing.T) {
	for _, co := range [][]string{{"COMPRESS=DEFLATE"}, {"COMPRESS=DEFLATE", "PREDICTOR=YES"}} {
		t.Run(co[len(co)-1], func(t *testing.T) { rowsOutOfOrder(t, co) })
	}
}

func rowsOutOfOrder(t *testing.T, co []string) {
	cc := cogCases[0]
	dir := t.TempDir()
	plain, ours, theirs := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "ours.tif"), filepath.Join(dir, "gdal.tif")
	writeCOGCase(t, plain, "GTiff", cc)
	tg := raster.NorthUp(440720, 3750000, 440720+float64(cc.cols), 3750000+float64(cc.rows), cc.cols, cc.rows)
	w, err := Create(ours, tg, RasterOptions{Format: "COG", Type: cc.typ, Create: co,
		NoData: -9999, SetNoData: true})
	if err != nil {
		t.Fatal(err)
	}
	if w.cog == nil {
		t.Fatal("aidw does not write this COG: the test shows nothing")
	}
	// rows 0-599 in order (past the first row of 512-line tiles), then 700-776, then 600-699
	for _, r0 := range []int{0, 100, 200, 300, 400, 500, 700, 600} {
		if r0 == 700 && w.cog == nil {
			t.Fatal("rows in order left the COG")
		}
		rows := min(100, cc.rows-r0)
		vals := make([]float64, 0, rows*cc.cols)
		for r := r0; r < r0+rows; r++ {
			for c := range cc.cols {
				vals = append(vals, demValue(1, r, c, true))
			}
		}
		if err := w.WriteRows(1, r0, rows, vals); err != nil {
			t.Fatal(err)
		}
	}
	if w.cog != nil {
		t.Fatal("rows out of order still go to aidw's COG")
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	gdalCOG(t, plain, theirs, nil)
	if d := sameLevels(levels(t, ours), levels(t, theirs)); d != "" {
		t.Fatal(d)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*aidwtmp*")); len(files) > 0 {
		t.Fatalf("temporary files left: %v", files)
	}
}

// TestCOGAbortAtOnce: a COG aborted as soon as it is created (an interrupt while the command
// starts) stops its goroutines and leaves no file, however they were scheduled.
func TestCOGAbortAtOnce(t *testing.T) {
	dir := t.TempDir()
	tg := raster.NorthUp(0, 0, 3000, 2000, 3000, 2000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			w, err := Create(filepath.Join(dir, "o.tif"), tg, RasterOptions{Format: "COG", Type: "Float32"})
			if err != nil {
				t.Error(err)
				return
			}
			w.Abort()
		}
	}()
	// a hang's bound: 50 rounds take well under a second on an idle machine
	bound := testload.Bound(2*time.Minute, 1)
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("Abort did not return within %v", bound)
	}
	if names, _ := os.ReadDir(dir); len(names) > 0 {
		t.Fatalf("left %v", names)
	}
}
