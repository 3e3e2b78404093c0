package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/tiles"
)

// `aidw grid -tile` and `-memory` give the in-memory raster bit for bit (read back through
// GDAL), tiles smaller than the neighbourhoods, the extent taken from the samples.
func TestGridTiledFlags(t *testing.T) {
	dir := t.TempDir()
	lastest.Survey(t, filepath.Join(dir, "in"), 4000, 1, false)
	in := filepath.Join(dir, "in")
	for _, alg := range []string{"aidw:max_points=12", "aidw:k=10:max_points=16:diagnostics=yes", "invdistnn:radius=8:max_points=12",
		"average:radius1=6:radius2=6", "nearest", "linear"} {
		run := func(extra ...string) string {
			t.Helper()
			dst := filepath.Join(dir, fmt.Sprintf("out%d.tif", len(extra)))
			args := append(append([]string{"grid", "-q", "-a", alg, "-tr", "2.5", "2.5"}, extra...), in, dst)
			if code, _, stderr := runAidw(t, args...); code != 0 {
				t.Fatalf("%s %v: exit %d: %s", alg, extra, code, stderr)
			}
			return dst
		}
		want := run()
		bands := 1
		if strings.Contains(alg, "diagnostics") {
			bands = 5
		}
		for _, extra := range [][]string{{"-tile", "9"}, {"-memory", "1MB", "-tile", "13"}} {
			got := run(extra...)
			for b := 1; b <= bands; b++ {
				sameRaster(t, fmt.Sprintf("%s %v band %d", alg, extra, b), readRaster(t, got, b), readRaster(t, want, b))
			}
		}
	}
}

// A real survey's tiles (Haystack Rock, whose coordinates round differently from the origin
// than the synthetic ones) give the in-memory raster for linear, whose tiles check that their
// samples lie in the job's box, and local AIDW.
func TestGridTiledHaystack(t *testing.T) {
	dir := t.TempDir()
	for _, alg := range []string{"linear", "linear:radius=2", "aidw:max_points=12"} {
		run := func(extra ...string) string {
			t.Helper()
			dst := filepath.Join(dir, fmt.Sprintf("out%d.tif", len(extra)))
			args := append(append([]string{"grid", "-q", "-a", alg, "-tr", "0.5", "0.5"}, extra...), "../../testdata/Haystack_Rock.las", dst)
			if code, _, stderr := runAidw(t, args...); code != 0 {
				t.Fatalf("%s %v: exit %d: %s", alg, extra, code, stderr)
			}
			return dst
		}
		want := run()
		got := run("-tile", "64")
		sameRaster(t, alg+" -tile 64", readRaster(t, got, 1), readRaster(t, want, 1))
	}
}

// -memory alone tiles LAS input whose headers declare more points than the budget holds,
// and the raster is still the in-memory one.
func TestGridMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	lastest.Survey(t, filepath.Join(dir, "in"), 6000, 2, false)
	in := filepath.Join(dir, "in")
	grid := []string{"grid", "-a", "aidw:max_points=12", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "200", "150"}
	want, got := filepath.Join(dir, "want.tif"), filepath.Join(dir, "got.tif")
	if code, _, stderr := runAidw(t, append(append(grid, "-q"), in, want)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runAidw(t, append(grid, "-memory", "400KB", in, got)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "100 - done.") {
		t.Fatalf("no progress to the end: %q", stdout)
	}
	sameRaster(t, "-memory 400KB", readRaster(t, got, 1), readRaster(t, want, 1))
}

// LAS input that -memory holds at its in-memory peak (lidar.InMemoryBytes and the process's
// share, tiles.FitsInMemory) runs untiled with local AIDW, within that budget as measured; a
// megabyte less tiles it, with the same raster. A form that holds more per sample is tiled.
func TestGridInMemoryWithinBudget(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	var headers []lidar.Header
	for _, p := range lastest.Survey(t, in, 2_000_000, 3, false) {
		h, err := lidar.ReadHeader(lidar.OpenLocal, p)
		if err != nil {
			t.Fatal(err)
		}
		headers = append(headers, h)
	}
	need := lidar.InMemoryBytes(headers)
	budget := int64(1)
	aidw := tiles.Rule{Family: tiles.Nearest, K: 12}
	for !tiles.FitsInMemory(aidw, int64(lidar.Points(headers)), need, budget<<20) {
		budget++
	}
	grid := []string{"grid", "-a", "aidw:max_points=12", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "400", "300"}
	run := func(mb int64, dst string) (string, int64) {
		t.Helper()
		code, stdout, stderr, peak := runAidwPeak(t, append(grid, "-memory", fmt.Sprintf("%dMB", mb), in, dst)...)
		if code != 0 {
			t.Fatalf("-memory %dMB: exit %d: %s", mb, code, stderr)
		}
		return stdout, peak
	}
	want, got := filepath.Join(dir, "in-memory.tif"), filepath.Join(dir, "tiled.tif")
	stdout, peak := run(budget, want)
	if strings.Contains(stdout, "Tiled run") {
		t.Errorf("-memory %dMB holds %.0f MB of samples, yet the run was tiled: %q", budget, need/1e6, stdout)
	}
	if peak > budget<<20 {
		t.Errorf("-memory %dMB: the run in memory peaked at %d MiB", budget, peak>>20)
	}
	if stdout, _ := run(budget-1, got); !strings.Contains(stdout, "Tiled run") {
		t.Errorf("-memory %dMB: not tiled: %q", budget-1, stdout)
	}
	sameRaster(t, "in memory against tiled", readRaster(t, got, 1), readRaster(t, want, 1))
	// invdistnn holds gdal's quadtree order besides (83 bytes a point at 1e7 against local
	// AIDW's 38): the same budget tiles it
	nn := []string{"grid", "-a", "invdistnn:radius=3:max_points=12", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "400", "300"}
	code, stdout, stderr := runAidw(t, append(nn, "-memory", fmt.Sprintf("%dMB", budget), in, got)...)
	if code != 0 || !strings.Contains(stdout, "Tiled run") {
		t.Errorf("invdistnn, -memory %dMB: exit %d, not tiled: %q %s", budget, code, stdout, stderr)
	}
}

// -memory runs the global forms whose samples do not fit the budget by streaming the samples
// past each tile's nodes: the raster is the in-memory one, for LAS and text inputs.
func TestGridMemoryGlobalStreams(t *testing.T) {
	dir := t.TempDir()
	lastest.Survey(t, filepath.Join(dir, "in"), 6000, 2, false)
	csv := filepath.Join(dir, "pts.csv")
	surveyLineCSV(t, csv, 6000)
	for _, in := range []string{filepath.Join(dir, "in"), csv} {
		for _, alg := range []string{"aidw", "aidw:k=9:diagnostics=yes", "average_distance", "range", "average_distance_pts"} {
			grid := []string{"grid", "-a", alg, "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "100", "75"}
			want, got := filepath.Join(dir, "want.tif"), filepath.Join(dir, "got.tif")
			if code, _, stderr := runAidw(t, append(append(grid, "-q"), in, want)...); code != 0 {
				t.Fatalf("%s: exit %d: %s", alg, code, stderr)
			}
			code, stdout, stderr := runAidw(t, append(grid, "-memory", "400KB", in, got)...)
			if code != 0 {
				t.Fatalf("%s -memory 400KB: exit %d: %s", alg, code, stderr)
			}
			if !strings.Contains(stdout, "Tiled run") || !strings.Contains(stdout, "100 - done.") {
				t.Fatalf("%s: not a tiled run to the end: %q", alg, stdout)
			}
			bands := 1
			if strings.Contains(alg, "diagnostics") {
				bands = 5
			}
			for k := 1; k <= bands; k++ {
				sameRaster(t, fmt.Sprintf("%s on %s, -memory 400KB, band %d", alg, filepath.Base(in), k), readRaster(t, got, k), readRaster(t, want, k))
			}
		}
	}
	// above the far field's thresholds its operators and tree must fit the budget
	far := filepath.Join(dir, "far")
	lastest.Survey(t, far, 12000, 3, false)
	code, _, stderr := runAidw(t, "grid", "-q", "-a", "aidw", "-outsize", "500", "400", "-memory", "900KB", far, filepath.Join(dir, "far.tif"))
	if code != 1 || !strings.Contains(stderr, "far field") || !strings.Contains(stderr, "operators and tree") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("far-field aidw under 900KB: exit %d, %q; want a one-line refusal naming the far field's needs", code, stderr)
	}
}

// -memory tiles a text input too (its samples spilled in the census): the raster is the
// in-memory one, and a budget too small for one tile is refused, which shows the tiled path ran.
func TestGridMemoryText(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pts.csv")
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range 3000 {
		x, y := float64(i*37%1000)/5, float64(i*91%750)/5
		fmt.Fprintf(&b, "%.1f,%.1f,%.2f\n", x, y, 10+float64(i%17)/3)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := []string{"grid", "-q", "-a", "invdistnn:radius=5:max_points=8", "-txe", "0", "200", "-tye", "0", "150", "-outsize", "100", "75"}
	want, got := filepath.Join(dir, "want.tif"), filepath.Join(dir, "got.tif")
	if code, _, stderr := runAidw(t, append(grid, in, want)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runAidw(t, append(grid, "-memory", "1MB", in, got)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameRaster(t, "csv -memory 1MB", readRaster(t, got, 1), readRaster(t, want, 1))
	code, _, stderr := runAidw(t, append(grid, "-memory", "1KB", in, filepath.Join(dir, "small.tif"))...)
	if code == 0 || !strings.Contains(stderr, "too small for a tile") {
		t.Fatalf("-memory 1KB: exit %d, %q; want a refusal from the tiled run", code, stderr)
	}
}

// An output name with '#' writes one raster per input, named after it: each covers the cells
// of its input's samples and equals that window of the one-raster run bit for bit (its edge
// nodes computed from the neighbouring inputs' samples), with the one-raster run's georeference.
func TestGridBatchPerInput(t *testing.T) {
	dir := t.TempDir()
	paths := lastest.Survey(t, filepath.Join(dir, "in"), 4000, 3, false)
	for _, alg := range []string{"aidw:max_points=12", "invdistnn:radius=6:max_points=12", "nearest"} {
		grid := []string{"grid", "-q", "-a", alg, "-tr", "2", "2"}
		whole := filepath.Join(dir, "whole.tif")
		if code, _, stderr := runAidw(t, append(grid, filepath.Join(dir, "in"), whole)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		out := filepath.Join(dir, "out", "dem_#.tif")
		os.MkdirAll(filepath.Dir(out), 0o755)
		if code, _, stderr := runAidw(t, append(grid, "-tile", "11", filepath.Join(dir, "in"), out)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		w := readRaster(t, whole, 1)
		cells := 0
		for _, p := range paths {
			name := strings.TrimSuffix(filepath.Base(p), ".las")
			got := readRaster(t, filepath.Join(dir, "out", "dem_"+name+".tif"), 1)
			c0 := int(math.Round((got.gt[0] - w.gt[0]) / w.gt[1]))
			r0 := int(math.Round((got.gt[3] - w.gt[3]) / w.gt[5]))
			if got.gt[1] != w.gt[1] || got.gt[5] != w.gt[5] || c0 < 0 || r0 < 0 || c0+got.cols > w.cols || r0+got.rows > w.rows {
				t.Fatalf("%s: %s: geotransform %v (%dx%d) is no window of %v (%dx%d)", alg, name, got.gt, got.cols, got.rows, w.gt, w.cols, w.rows)
			}
			for r := range got.rows {
				for c := range got.cols {
					g, want := got.values[r*got.cols+c], w.values[(r0+r)*w.cols+c0+c]
					if math.Float64bits(g) != math.Float64bits(want) {
						t.Fatalf("%s: %s: node %d,%d is %v, the one-raster run's %v", alg, name, c, r, g, want)
					}
				}
			}
			cells += got.cols * got.rows
		}
		if cells < w.cols*w.rows {
			t.Fatalf("%s: the per-input rasters cover %d cells of the whole's %d", alg, cells, w.cols*w.rows)
		}
	}
}

// One raster per input is all or nothing: when an output cannot be written, the outputs
// already computed are not published, and an existing one keeps its bytes.
func TestGridBatchFailureLeavesOutputs(t *testing.T) {
	dir := t.TempDir()
	lastest.Survey(t, filepath.Join(dir, "in"), 2000, 4, false)
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(out, "dem_q1.tif"), 0o755) // the second output cannot be made
	old := []byte("an earlier run's raster")
	os.WriteFile(filepath.Join(out, "dem_q0.tif"), old, 0o644)
	code, _, stderr := runAidw(t, "grid", "-q", "-a", "nearest", "-tr", "2", "2", filepath.Join(dir, "in"), filepath.Join(out, "dem_#.tif"))
	if code == 0 {
		t.Fatal("the run succeeded with an output it cannot write")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "dem_q0.tif")); string(b) != string(old) {
		t.Fatalf("the first output was replaced by a failed run (%s)", stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the failed run left %v", names)
	}
}

// An interrupt stops a tiled run between and inside tiles: the exit is the signal's, and
// neither the output, nor a temporary, nor a one-raster-per-input output is left.
func TestInterruptTiled(t *testing.T) {
	src := latticeCSV(t)
	for _, dst := range []string{"o.tif", "o_#.tif"} {
		out := t.TempDir()
		cmd := exec.Command(aidwBin, "grid", "-a", "invdist", "-threads", "1", "-outsize", "2000", "2000", "-tile", "400", src, filepath.Join(out, dst))
		signalAtProgress(t, cmd, syscall.SIGINT)
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("%s: exit %d, want 130", dst, code)
		}
		if names := dirtest.Names(t, out); len(names) != 0 {
			t.Errorf("%s: left %v", dst, names)
		}
	}
}

// -memory streams invdist's all-samples form past the tiles (samples that do not fit half the
// budget) in each form the in-memory run takes: the far-field tree (100 x 100 nodes), power
// 2's batches of a row and gdal's loop at each node (smoothing, power 10, which the tree does
// not take), with nodes on samples and samples given twice (the exact hits go to a second
// pass of gdal's loop). The raster is the in-memory one, bit for bit; and the budget counts
// the tree's boxes, which a tile of 16 x 16 nodes does not fit in 400KB.
func TestGridMemoryInvDistStreams(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "pts.csv")
	surveyLineCSV(t, csv, 20000)
	for _, c := range []struct {
		alg, cols, rows, top, memory string
	}{{"invdist", "100", "100", "5400200", "2MB"}, {"invdist:power=3", "100", "100", "5400200", "2MB"}, {"invdist", "100", "75", "5400150", "2MB"},
		{"invdist:smoothing=0.5", "100", "75", "5400150", "2MB"}, {"invdist:power=10", "120", "90", "5400150", "2MB"}, {"invdist", "100", "100", "5400200", "400KB"}} {
		// 2 x 2 cells put nodes on samples
		grid := []string{"grid", "-a", c.alg, "-txe", "450000", "450200", "-tye", "5400000", c.top, "-outsize", c.cols, c.rows}
		want, got := filepath.Join(dir, "want.tif"), filepath.Join(dir, "got.tif")
		code, stdout, stderr := runAidw(t, append(grid, "-memory", c.memory, csv, got)...)
		if c.memory == "400KB" {
			if code != 1 || !strings.Contains(stderr, "too small for a tile") {
				t.Fatalf("%s -memory 400KB onto the tree: exit %d, %q; want the budget refused", c.alg, code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%s -memory %s: exit %d: %s", c.alg, c.memory, code, stderr)
		}
		if !strings.Contains(stdout, "Tiled run") || !strings.Contains(stdout, "100 - done.") {
			t.Fatalf("%s: not a tiled run to the end: %q", c.alg, stdout)
		}
		if code, _, stderr := runAidw(t, append(append(grid, "-q"), csv, want)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.alg, code, stderr)
		}
		sameRaster(t, c.alg+", -memory "+c.memory, readRaster(t, got, 1), readRaster(t, want, 1))
	}
}

// surveyLineCSV writes n samples on a lattice of 0.2 over 200 x 150 from (450000, 5400000): places
// repeat every 3000 samples with other values, and every odd metre is a place.
func surveyLineCSV(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range n {
		x, y := 450000+float64(i*37%1000)/5, 5400000+float64(i*91%750)/5
		fmt.Fprintf(&b, "%.1f,%.1f,%.2f\n", x, y, 10+float64(i%17)/3)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
