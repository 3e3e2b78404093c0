package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirNames lists a folder's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestFarCoordinatesError: a sample whose squared distances overflow float64 made -a linear
// panic in the triangulation and leave its temporary file (issue 12, defect 1). It is now a
// one-line error before any work, for grid with every algorithm and for cv.
func TestFarCoordinatesError(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "p.csv", "x,y,z\n0,0,1\n1,0,2\n0,1,3\n1e155,1e155,5\n")
	for _, alg := range []string{"linear", "aidw", "invdist", "nearest"} {
		out := t.TempDir()
		code, _, stderr := runAidw(t, "grid", "-a", alg, "-txe", "0", "3", "-tye", "0", "3", "-outsize", "10", "10", src, filepath.Join(out, "p.tif"))
		msg := strings.TrimSpace(stderr)
		if code != 1 || !strings.HasPrefix(msg, "ERROR: ") || strings.Contains(msg, "\n") || !strings.Contains(msg, "float64") {
			t.Errorf("%s: exit %d, stderr %q: want exit 1 and one ERROR line naming float64", alg, code, stderr)
		}
		if names := dirNames(t, out); len(names) != 0 {
			t.Errorf("%s: left %v", alg, names)
		}
	}
	code, _, stderr := runAidw(t, "cv", "-q", "-a", "linear", "-a", "aidw", src)
	if msg := strings.TrimSpace(stderr); code != 1 || strings.Contains(msg, "\n") || !strings.Contains(msg, "float64") {
		t.Errorf("cv: exit %d, stderr %q: want exit 1 and one ERROR line naming float64", code, stderr)
	}
}

// panicWriter panics on the first write: the progress bar's, once the output is created.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("test panic in the progress output") }

// TestPanicRemovesTemporaryFile: a panic during a run still removes the temporary output, and
// becomes an internal error (exit 2, one line; the stack only with AIDW_DEBUG).
func TestPanicRemovesTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	src, _ := filepath.Abs("../../testdata/gdal/grid.vrt")
	a, err := parseGridArgs([]string{"-outsize", "5", "5", src, filepath.Join(dir, "out.tif")})
	if err != nil {
		t.Fatal(err)
	}
	err = protect(func() error { return runGrid(context.Background(), a, panicWriter{}, io.Discard) })
	var ie *internalError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v, want an internal error", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("a panic left %v", names)
	}
	var out strings.Builder
	t.Setenv("AIDW_DEBUG", "")
	if code := exitCode(err, &out); code != 2 || out.String() != "ERROR: internal error: test panic in the progress output\n" {
		t.Errorf("exit %d, printed %q", code, out.String())
	}
	out.Reset()
	t.Setenv("AIDW_DEBUG", "1")
	if exitCode(err, &out); !strings.Contains(out.String(), "goroutine") || !strings.Contains(out.String(), "runGrid") {
		t.Errorf("AIDW_DEBUG=1 printed %q, want the stack", out.String())
	}
}

// TestGPKGAndZarrOutput: GeoPackage and Zarr refused the temporary file that was created
// before the driver ran ("already exists") (issue 12, defect 2). Both are written, and equal
// the GeoTIFF of the same command.
func TestGPKGAndZarrOutput(t *testing.T) {
	dir := t.TempDir()
	args := []string{"grid", "-q", "-zfield", "elevation", "-ot", "Float32", "-outsize", "20", "20", "../../testdata/n43_samples.csv"}
	ref := filepath.Join(dir, "o.tif")
	if code, _, stderr := runAidw(t, append(args, ref)...); code != 0 {
		t.Fatalf("tif: exit %d: %s", code, stderr)
	}
	want := readRaster(t, ref, 1)
	for _, name := range []string{"o.gpkg", "o.zarr", "o.zarr"} { // the second Zarr replaces the first
		dst := filepath.Join(dir, name)
		if code, _, stderr := runAidw(t, append(args, dst)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		got := readRaster(t, dst, 1)
		if got.cols != 20 || got.rows != 20 {
			t.Fatalf("%s: %dx%d", name, got.cols, got.rows)
		}
		for i := range want.values {
			if got.values[i] != want.values[i] {
				t.Fatalf("%s: node %d = %v, the GeoTIFF has %v", name, i, got.values[i], want.values[i])
			}
		}
	}
	for _, n := range dirNames(t, dir) {
		if strings.Contains(n, "aidwtmp") {
			t.Errorf("left %s", n)
		}
	}
}
