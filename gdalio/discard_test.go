package gdalio

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/raster"
)

// An aborted dataset is dropped by GDAL itself on close (its cached blocks unwritten): the
// handle discardOnClose takes from godal is the dataset's.
func TestDiscardOnClose(t *testing.T) {
	dir := t.TempDir()
	tg := raster.NorthUp(0, 0, 300, 200, 300, 200)
	w, err := Create(filepath.Join(dir, "o.tif"), tg, RasterOptions{Type: "Float32", Create: []string{"COMPRESS=DEFLATE"}})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, tg, 1, func(b, r, c int) float64 { return math.Sin(float64(r * c)) })
	tmp := w.tmp
	discardOnClose(w.ds)
	w.ds.Close()
	w.ds = nil
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the discarded dataset %s is still there (%v)", tmp, err)
	}
	w.Abort()
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
}

// Compressed GTiff and COG are written on every core (NUM_THREADS=ALL_CPUS unless given) and
// decode to the same pixels as with one thread; an explicit NUM_THREADS or COMPRESS=NONE is
// left alone.
func TestThreadedCompressionSamePixels(t *testing.T) {
	for _, c := range []struct {
		format string
		co     []string
		want   bool
	}{{"GTiff", []string{"COMPRESS=DEFLATE"}, true}, {"GTiff", nil, false}, {"COG", nil, true},
		{"COG", []string{"COMPRESS=NONE"}, false}, {"GTiff", []string{"COMPRESS=ZSTD", "num_threads=2"}, false}} {
		if got := slices.Contains(threadedOptions(c.format, c.co), "NUM_THREADS=ALL_CPUS"); got != c.want {
			t.Errorf("%s %v: NUM_THREADS=ALL_CPUS added %v, want %v", c.format, c.co, got, c.want)
		}
	}
	dir := t.TempDir()
	tg := raster.NorthUp(0, 0, 1500, 1100, 1500, 1100)
	for _, format := range []string{"GTiff", "COG"} {
		var pixels [][]float64
		for _, threads := range []string{"NUM_THREADS=1", ""} {
			co := []string{"COMPRESS=DEFLATE", "TILED=YES"}
			if format == "COG" {
				co = []string{"COMPRESS=DEFLATE"}
			}
			if threads != "" {
				co = append(co, threads)
			}
			path := filepath.Join(dir, format+threads+".tif")
			w, err := Create(path, tg, RasterOptions{Format: format, Type: "Float32", Create: co, Bands: 2})
			if err != nil {
				t.Fatal(err)
			}
			writeAll(t, w, tg, 2, func(b, r, c int) float64 { return float64(b) * math.Sin(float64(r*c)/97) })
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			ds := openRaster(t, path)
			pixels = append(pixels, append(readBand(t, ds, 0), readBand(t, ds, 1)...))
		}
		if !slices.Equal(pixels[0], pixels[1]) {
			t.Errorf("%s: the pixels written on every core differ from one thread's", format)
		}
	}
}
