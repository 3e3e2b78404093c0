package gdalio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/raster"
	"github.com/airbusgeo/godal"
)

// cogCase is a raster written as COG both through the Writer and by gdal_translate.
type cogCase struct {
	name       string
	cols, rows int
	bands      int
	typ        string
	nodata     bool
	co         []string // beyond COMPRESS=DEFLATE (caseOptions)
	fast       bool     // aidw computes the overviews (else the driver does)
}

var cogCases = []cogCase{
	{name: "Float32 nodata", cols: 1001, rows: 777, bands: 1, typ: "Float32", nodata: true, fast: true},
	{name: "Float32 no nodata", cols: 1001, rows: 777, bands: 1, typ: "Float32", fast: true},
	// 500x388, 250x194, 125x97: each level from the one before, odd sizes, ratios not 2
	{name: "Int16 nodata three levels", cols: 1001, rows: 777, bands: 1, typ: "Int16", nodata: true,
		co: []string{"BLOCKSIZE=128"}, fast: true},
	{name: "Float64 two bands", cols: 1030, rows: 601, bands: 2, typ: "Float64", nodata: true, fast: true},
	// below the block size: two levels all the same
	{name: "OVERVIEW_COUNT", cols: 700, rows: 333, bands: 1, typ: "Float32", nodata: true,
		co: []string{"OVERVIEW_COUNT=2"}, fast: true},
	{name: "AVERAGE is the driver's", cols: 1001, rows: 777, bands: 1, typ: "Float32", nodata: true,
		co: []string{"RESAMPLING=AVERAGE"}},
	{name: "Byte is the driver's", cols: 1001, rows: 777, bands: 1, typ: "Byte"},
	{name: "no overviews", cols: 1001, rows: 777, bands: 1, typ: "Float32", co: []string{"OVERVIEWS=NONE"}},
}

// demValue is a smooth surface with noise and, with nodata, holes of every shape: blocks,
// lines, single nodes (which the negative-lobed kernel's rule for valid runs must see).
func demValue(band, r, c int, nodata bool) float64 {
	if nodata {
		switch {
		case (r/37+c/53)%7 == 3 && r%37 < 20,
			r%101 == 5,
			(r*7919+c*104729)%97 == 0:
			return -9999
		}
	}
	h := uint32(r*73856093 ^ c*19349663 ^ band*83492791)
	h ^= h >> 13
	h *= 0x5bd1e995
	return 100*float64(band) + 40*math.Sin(float64(r)*0.031)*math.Cos(float64(c)*0.047) +
		float64(h%1000)/97
}

// writeCOGCase writes the case's raster through the Writer as format (COG or a plain GTiff).
func writeCOGCase(t testing.TB, path, format string, cc cogCase) {
	t.Helper()
	opt := RasterOptions{Format: format, Type: cc.typ, Bands: cc.bands, Warn: func(m string) { t.Log(m) }}
	if format == "COG" {
		opt.Create = caseOptions(cc.co)
	}
	if cc.nodata {
		opt.NoData, opt.SetNoData = -9999, true
	}
	tg := raster.NorthUp(440720, 3750000, 440720+float64(cc.cols), 3750000+float64(cc.rows), cc.cols, cc.rows)
	w, err := Create(path, tg, opt)
	if err != nil {
		t.Fatal(err)
	}
	for b := 1; b <= cc.bands; b++ {
		for r0 := 0; r0 < cc.rows; r0 += 64 {
			rows := min(64, cc.rows-r0)
			vals := make([]float64, 0, rows*cc.cols)
			for r := r0; r < r0+rows; r++ {
				for c := range cc.cols {
					vals = append(vals, demValue(b, r, c, cc.nodata))
				}
			}
			if err := w.WriteRows(b, r0, rows, vals); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// caseOptions are a case's creation options: COMPRESS=DEFLATE unless they name a compression;
// "COMPRESS=" names none, the driver's default.
func caseOptions(co []string) []string {
	if v, set := optionValue(co, "COMPRESS"); set {
		if v == "" {
			return slices.DeleteFunc(slices.Clone(co), func(o string) bool { return o == "COMPRESS=" })
		}
		return co
	}
	return append([]string{"COMPRESS=DEFLATE"}, co...)
}

// gdalCOG is GDAL's own COG of src, with the case's options.
func gdalCOG(t *testing.T, src, dst string, co []string) {
	t.Helper()
	args := []string{"-q", "-of", "COG"}
	for _, o := range caseOptions(co) {
		args = append(args, "-co", o)
	}
	if out, err := exec.Command("gdal_translate", append(args, src, dst)...).CombinedOutput(); err != nil {
		t.Fatalf("gdal_translate: %v: %s", err, out)
	}
}

// levels reads every band of every level of a raster (level 0 the full resolution) as the
// bits of float64 values, which hold every type the cases use exactly.
func levels(t *testing.T, path string) [][][]uint64 {
	t.Helper()
	ds := openRaster(t, path)
	var out [][][]uint64
	for level := 0; ; level++ {
		var bands [][]uint64
		for _, b := range ds.Bands() {
			if level > 0 {
				ovr := b.Overviews()
				if level > len(ovr) {
					return out
				}
				b = ovr[level-1]
			}
			st := b.Structure()
			buf := make([]float64, st.SizeX*st.SizeY)
			if err := b.Read(0, 0, buf, st.SizeX, st.SizeY); err != nil {
				t.Fatal(err)
			}
			bits := make([]uint64, len(buf))
			for i, v := range buf {
				bits[i] = math.Float64bits(v)
			}
			bands = append(bands, bits)
		}
		out = append(out, bands)
	}
}

// sameLevels compares two rasters' levels: "" when every pixel of every level is the same,
// else where they first differ.
func sameLevels(got, want [][][]uint64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d levels, GDAL's COG has %d", len(got), len(want))
	}
	for l := range want {
		for b := range want[l] {
			if len(got[l][b]) != len(want[l][b]) {
				return fmt.Sprintf("level %d band %d: %d pixels, GDAL's %d", l, b+1, len(got[l][b]), len(want[l][b]))
			}
			diff, first := 0, -1
			for i := range want[l][b] {
				if got[l][b][i] != want[l][b][i] {
					if first < 0 {
						first = i
					}
					diff++
				}
			}
			if diff > 0 {
				return fmt.Sprintf("level %d band %d: %d pixels differ, first %d: %g, GDAL's %g", l, b+1, diff, first,
					math.Float64frombits(got[l][b][first]), math.Float64frombits(want[l][b][first]))
			}
		}
	}
	return ""
}

// TestCOGAsGDALWritesIt: a COG written by the Writer, whose overviews aidw computes on every
// core, has the pixels of gdal_translate -of COG's of the same raster at every level,
// with and without nodata, odd sizes, several levels, other types and bands; the cases that
// aidw leaves to the driver too.
func TestCOGAsGDALWritesIt(t *testing.T) {
	for _, cc := range cogCases {
		t.Run(cc.name, func(t *testing.T) {
			dt, _, err := dataType(cc.typ)
			if err != nil {
				t.Fatal(err)
			}
			co := append([]string{"COMPRESS=DEFLATE"}, cc.co...)
			if _, fast := cogOverviewLevels(cc.cols, cc.rows, dt, co); fast != cc.fast {
				t.Fatalf("aidw computes the overviews: %v, want %v", fast, cc.fast)
			}
			dir := t.TempDir()
			plain, ours, theirs := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "ours.tif"), filepath.Join(dir, "gdal.tif")
			writeCOGCase(t, plain, "GTiff", cc)
			writeCOGCase(t, ours, "COG", cc)
			gdalCOG(t, plain, theirs, cc.co)
			want := levels(t, theirs)
			if cc.name != "no overviews" && len(want) < 2 {
				t.Fatalf("GDAL's COG has %d levels: the case tests no overviews", len(want))
			}
			if d := sameLevels(levels(t, ours), want); d != "" {
				t.Fatal(d)
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*aidwtmp*")); len(files) > 0 {
				t.Fatalf("temporary files left: %v", files)
			}
		})
	}
}

// TestCOGOverviewMargin: the overviews made strip by strip match GDAL's only with GDAL's
// margin around each strip (the kernel's radius times the reduction): one source row less on
// each side and the pixels along the strips' edges differ, with and without nodata.
func TestCOGOverviewMargin(t *testing.T) {
	for _, cc := range cogCases[:3] {
		t.Run(cc.name, func(t *testing.T) {
			dir := t.TempDir()
			plain, theirs := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "gdal.tif")
			writeCOGCase(t, plain, "GTiff", cc)
			gdalCOG(t, plain, theirs, cc.co)
			want := levels(t, theirs)
			dt, _, _ := dataType(cc.typ)
			lv, ok := cogOverviewLevels(cc.cols, cc.rows, dt, append([]string{"COMPRESS=DEFLATE"}, cc.co...))
			if !ok || len(lv) == 0 {
				t.Fatal("no overviews to compute")
			}
			for _, radius := range []int{cubicRadius, cubicRadius - 1} {
				b := ovrBuild{ctx: context.Background(), src: plain, stage: filepath.Join(dir, "out.tif"), levels: lv,
					workers: 5, radius: radius, errs: godalErrors(func(m string) { t.Log(m) })}
				vrt, cleanup, err := b.withOverviews()
				if err != nil {
					t.Fatal(err)
				}
				d := sameLevels(levels(t, vrt), want)
				cleanup()
				if radius == cubicRadius && d != "" {
					t.Fatalf("GDAL's margin: %s", d)
				}
				if radius < cubicRadius && d == "" {
					t.Fatal("a thinner margin than GDAL's gives GDAL's pixels: the test cannot see a wrong margin")
				}
				t.Logf("margin of radius %d: %s", radius, d)
			}
		})
	}
}

// TestCOGOverviewsCancelled: an interrupted overview computation returns the context's error
// and leaves none of its temporary files.
func TestCOGOverviewsCancelled(t *testing.T) {
	cc := cogCases[0]
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.tif")
	writeCOGCase(t, plain, "GTiff", cc)
	dt, _, _ := dataType(cc.typ)
	lv, _ := cogOverviewLevels(cc.cols, cc.rows, dt, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := ovrBuild{ctx: ctx, src: plain, stage: filepath.Join(dir, "out.tif"), levels: lv, workers: 2,
		radius: cubicRadius, errs: godalErrors(func(m string) { t.Log(m) })}
	if _, _, err := b.withOverviews(); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want %v", err, context.Canceled)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*aidwtmp*")); len(files) > 0 {
		t.Fatalf("temporary files left: %v", files)
	}
}

// BenchmarkCOGOverviews times the copy of a 3163 x 3163 Float32 raster (1e7 nodes, with nodata
// holes) into a DEFLATE COG on every core: "driver" is GDAL's COG driver computing the
// overviews itself, "aidw" the overviews computed by aidw ("overviews", also timed alone)
// and then copied by the driver. cpu-s/op is the process's user + system time.
func BenchmarkCOGOverviews(b *testing.B) {
	register()
	cc := cogCase{cols: 3163, rows: 3163, bands: 1, typ: "Float32", nodata: true}
	dir := b.TempDir()
	plain := filepath.Join(dir, "plain.tif")
	writeCOGCase(b, plain, "GTiff", cc)
	co := threadedOptions("COG", []string{"COMPRESS=DEFLATE"})
	args := []string{"-of", "COG"}
	for _, o := range co {
		args = append(args, "-co", o)
	}
	lv, _ := cogOverviewLevels(cc.cols, cc.rows, godal.Float32, co)
	build := ovrBuild{ctx: context.Background(), src: plain, stage: filepath.Join(dir, "out.tif"), levels: lv,
		workers: numThreads(co), radius: cubicRadius, errs: godalErrors(func(string) {})}
	run := func(b *testing.B, f func() error) {
		cpu0 := processCPU()
		for b.Loop() {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
	out := filepath.Join(dir, "cog.tif")
	b.Run("driver", func(b *testing.B) {
		run(b, func() error { return translate(context.Background(), plain, out, args, 64<<20, func(string) {}) })
	})
	b.Run("overviews", func(b *testing.B) {
		run(b, func() error {
			_, cleanup, err := build.withOverviews()
			cleanup()
			return err
		})
	})
	b.Run("aidw", func(b *testing.B) {
		run(b, func() error {
			vrt, cleanup, err := build.withOverviews()
			defer cleanup()
			if err != nil {
				return err
			}
			return translate(context.Background(), vrt, out, args, 64<<20, func(string) {})
		})
	})
}

// processCPU is the user + system time this process has spent.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
