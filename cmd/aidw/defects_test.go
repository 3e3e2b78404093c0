package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/tiles"
	"github.com/airbusgeo/godal"

	"github.com/aidw/aidw/internal/testload"
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
		if names := dirtest.Names(t, out); len(names) != 0 {
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
	err = protect(func() error { return runGrid(context.Background(), a, nil, panicWriter{}, io.Discard) })
	openProgress.Store(nil) // the panicking writer's progress line: nothing to end
	var ie *internalError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v, want an internal error", err)
	}
	if names := dirtest.Names(t, dir); len(names) != 0 {
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
	for _, n := range dirtest.Names(t, dir) {
		if strings.Contains(n, "aidwtmp") {
			t.Errorf("left %s", n)
		}
	}
}

// runAidwIn runs the binary in a working directory.
func runAidwIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(aidwBin, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestDestinationIsSource: a destination that is one of the sources was overwritten silently
// (issue 12, defect 3). It is refused before any reading, whatever the spelling (./s.xyz, a
// hard link, a glob), and so is a destination inside a source directory of LAS tiles.
func TestDestinationIsSource(t *testing.T) {
	dir := t.TempDir()
	text := "x y elevation\n0 0 1\n1 0 2\n0 1 3\n1 1 4\n"
	writeFile(t, dir, "s.xyz", text)
	if err := os.Link(filepath.Join(dir, "s.xyz"), filepath.Join(dir, "link.xyz")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("s.xyz", filepath.Join(dir, "sym.xyz"))
	tiles := filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	las, _ := os.ReadFile("../../testdata/Haystack_Rock.las")
	os.WriteFile(filepath.Join(tiles, "a.las"), las, 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"same name", []string{"s.xyz", "s.xyz"}, "is the source"},
		{"dot slash", []string{"./s.xyz", "s.xyz"}, "is the source"},
		{"hard link", []string{"s.xyz", "link.xyz"}, "is the source"},
		{"symbolic link", []string{"sym.xyz", "s.xyz"}, "is the source"},
		{"absolute", []string{filepath.Join(dir, "s.xyz"), "s.xyz"}, "is the source"},
		{"glob", []string{"*.xyz", "link.xyz"}, "is the source"},
		{"second source", []string{"tiles", "s.xyz", "./link.xyz"}, "is the source"},
		{"inside a LAS directory", []string{"tiles", "tiles/dem.xyz"}, "inside the source directory"},
		{"inside a LAS directory, other spelling", []string{"./tiles/", "tiles/../tiles/dem.xyz"}, "inside the source directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"grid", "-q", "-zfield", "elevation", "-of", "XYZ", "-outsize", "20", "20"}, c.args...)
			code, stderr := runAidwIn(t, dir, args...)
			if msg := strings.TrimSpace(stderr); code != 1 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("exit %d, stderr %q: want exit 1 and one line saying %q", code, stderr, c.want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "s.xyz")); string(b) != text {
				t.Fatalf("the source was changed: %q", b)
			}
			if _, err := os.Stat(filepath.Join(tiles, "dem.xyz")); err == nil {
				t.Fatal("wrote into the source directory")
			}
		})
	}
	// a destination beside the sources is fine
	if code, stderr := runAidwIn(t, dir, "grid", "-q", "-zfield", "elevation", "-outsize", "4", "4", "s.xyz", "out.tif"); code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestInterruptDuringCopy: formats written in two steps (XYZ, PNG, COG: a GTiff, then the
// driver's CreateCopy) ignored SIGINT and SIGTERM during the copy (issue 12, defect 4). The
// copy now stops within a second and leaves no file.
func TestInterruptDuringCopy(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			src := writeFile(t, dir, "s.csv", "x,y,z\n0,0,1\n10,0,2\n0,10,3\n10,10,4\n5,5,5\n")
			out := filepath.Join(dir, "out")
			os.Mkdir(out, 0o755)
			cmd := exec.Command(aidwBin, "grid", "-q", "-a", "nearest", "-outsize", "3000", "3000", "-of", "XYZ", src, filepath.Join(out, "o.xyz"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// the copy has begun when the driver's temporary .xyz appears beside the GTiff
			deadline := time.Now().Add(60 * time.Second)
			for copying := false; !copying; time.Sleep(5 * time.Millisecond) {
				select {
				case err := <-exited:
					t.Fatalf("finished before the copy was seen: %v %s", err, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no copy phase seen in 60 s")
				}
				for _, n := range dirtest.Names(t, out) {
					copying = copying || strings.HasSuffix(n, ".xyz") && strings.Contains(n, "aidwtmp")
				}
			}
			time.Sleep(50 * time.Millisecond)
			load := testload.Factor()
			sent := time.Now()
			cmd.Process.Signal(sig)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 10 s after the signal")
			}
			if took := time.Since(sent); took > testload.Bound(time.Second, load) {
				t.Errorf("exited %v after the signal, want within a second times the load factor %.1f", took, load)
			}
			if code, want := cmd.ProcessState.ExitCode(), 128+int(sig); code != want {
				t.Errorf("exit %d after %v, want %d", code, sig, want)
			}
			if msg := strings.TrimSpace(stderr.String()); !strings.HasPrefix(msg, "ERROR: ") || strings.Contains(msg, "context") {
				t.Errorf("stderr %q, want one ERROR line saying it was interrupted", msg)
			}
			if names := dirtest.Names(t, out); len(names) != 0 {
				t.Errorf("left %v", names)
			}
		})
	}
}

// TestMessages checks the wording fixed by issue 12, defect 8: column messages read as
// English, a bad -a_srs says it is not a CRS, and a binary file's bytes never reach the
// terminal.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	noZ := writeFile(t, dir, "noz.csv", "x,y,height\n1,2,3\n2,3,4\n")
	garbage := writeFile(t, dir, "garbage.csv", "\x7fELF\x02\x01,\x00\x00\x1b[31mRED,\x01zz"+strings.Repeat("A", 200)+"\n1,2,3\n4,5,6\n")
	fieldName := writeFile(t, dir, "f.geojson", `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"\u001b[31mz\u0001":1},"geometry":{"type":"Point","coordinates":[1,2]}}]}`)
	badVRT := writeFile(t, dir, "b.vrt", "<OGRVRTDataSource><OGRVRTLayer name=\"\x1b[31mx\x07\"><SrcDataSource>\x1b[2Jnothere\x01.csv</SrcDataSource></OGRVRTLayer></OGRVRTDataSource>")
	garbageValue := writeFile(t, dir, "value.csv", "x,y,z\n1,2,3\n1,2,\x1b[2J\x1b[31mRED\x07\x00"+strings.Repeat("\xff", 100)+"\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no z column", []string{noZ}, "no column named z in the header (columns: x, y, height)"},
		{"no zfield column", []string{"-zfield", "elev", noZ}, `no -zfield column "elev" in the header`},
		{"bad a_srs", []string{"-a_srs", "garbage", noZ}, "-a_srs garbage: not a valid CRS ("},
		{"binary header", []string{garbage}, `\x7fELF\x02\x01`},
		{"binary value", []string{garbageValue}, `z value "\x1b[2J\x1b[31mRED\x07\x00\xff`},
		// issue 27, defect 7: an OGR field name, GDAL's messages, libxml2's parser
		{"field name", []string{"-zfield", "zz", fieldName}, `(fields: \x1b[31mz\x01)`},
		{"malformed vrt", []string{badVRT}, `layer \x1b[31mx\x07`},
		{"gdal message", []string{"-where", "\x1b[31m=", noZ}, `Occurred around : \x1b[31m=`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runAidw(t, append(append([]string{"grid", "-q"}, c.args...), filepath.Join(out, "o.tif"))...)
			msg := strings.TrimSuffix(stderr, "\n")
			if code != 1 || !strings.HasPrefix(msg, "ERROR: ") || !strings.Contains(msg, c.want) {
				t.Errorf("exit %d, stderr %q: want exit 1 and an ERROR containing %q", code, stderr, c.want)
			}
			for _, b := range []byte(msg) {
				if b < 0x20 || b == 0x7f || b >= 0x80 {
					t.Fatalf("stderr %q has the byte %#x", stderr, b)
				}
			}
			if len(msg) > 300 {
				t.Errorf("stderr is %d bytes long: %q", len(msg), msg)
			}
		})
	}
	// cv checks -a_srs too
	if code, _, stderr := runAidw(t, "cv", "-q", "-a_srs", "garbage", noZ); code != 1 || !strings.Contains(stderr, "-a_srs garbage: not a valid CRS") {
		t.Errorf("cv: exit %d, stderr %q", code, stderr)
	}
}

// TestInterruptWhileComputing: an interrupt reported "context canceled" with exit 1, after
// the progress on the same line (issue 12, defect 8). It now says so on a line of its own and
// exits as shells report the signal: 130 for SIGINT, 143 for SIGTERM.
func TestInterruptWhileComputing(t *testing.T) {
	src := latticeCSV(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(aidwBin, "grid", "-a", "invdist", "-threads", "1", "-outsize", "2000", "2000", src, filepath.Join(out, "o.tif"))
			got := signalAtProgress(t, cmd, sig)
			want := map[syscall.Signal]string{syscall.SIGINT: "interrupted", syscall.SIGTERM: "terminated"}[sig]
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit %d, want %d", code, 128+int(sig))
			}
			if !strings.Contains(got, "\nERROR: "+want+"\n") || strings.Contains(got, "context") {
				t.Errorf("output %q: want the progress, then ERROR: %s on its own line", got, want)
			}
			if names := dirtest.Names(t, out); len(names) != 0 {
				t.Errorf("left %v", names)
			}
		})
	}
}

// TestWhereOnCSV: -where on a CSV goes through OGR's CSV driver, which found no geometry
// columns and read z as text ("Type mismatch") unless -oo X_POSSIBLE_NAMES=x was given (issue
// 12, defect 9). It now finds the columns as the native reader does; the raster equals the
// one of the same filter done by hand.
func TestWhereOnCSV(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	for _, header := range []string{"x,y,z", "X;Y;Z", "Easting,x,y,z", ""} {
		t.Run(header, func(t *testing.T) {
			delim := ","
			if strings.Contains(header, ";") {
				delim = ";"
			}
			var all, kept strings.Builder
			if header != "" {
				all.WriteString(header + "\n")
				kept.WriteString(header + "\n")
			}
			for range 300 {
				x, y, z := 1000+rng.Float64()*100, 2000+rng.Float64()*100, rng.Float64()*200
				row := fmt.Sprintf("%.3f%s%.3f%s%.3f\n", x, delim, y, delim, z)
				if strings.HasPrefix(header, "Easting") {
					row = "7" + delim + row
				}
				all.WriteString(row)
				if z > 100 {
					kept.WriteString(row)
				}
			}
			src := writeFile(t, dir, "all.csv", all.String())
			hand := writeFile(t, dir, "kept.csv", kept.String())
			zname := "z"
			if header == "" {
				zname = "field_3"
			}
			grid := []string{"grid", "-q", "-a", "invdistnn:radius=20", "-txe", "1000", "1100", "-tye", "2000", "2100", "-outsize", "30", "30"}
			a, b := filepath.Join(dir, "where.tif"), filepath.Join(dir, "hand.tif")
			if code, _, stderr := runAidw(t, append(grid, "-where", zname+" > 100", src, a)...); code != 0 {
				t.Fatalf("-where: exit %d: %s", code, stderr)
			}
			if code, _, stderr := runAidw(t, append(grid, hand, b)...); code != 0 {
				t.Fatalf("by hand: exit %d: %s", code, stderr)
			}
			got, want := readRaster(t, a, 1), readRaster(t, b, 1)
			for i := range want.values {
				if got.values[i] != want.values[i] {
					t.Fatalf("node %d: %v with -where, %v filtered by hand", i, got.values[i], want.values[i])
				}
			}
		})
	}
}

// TestUsageAndUnknownCommand: `aidw grid` and `aidw cv` without arguments exited 0, and an
// unknown command printed help and exited 0 (issue 12, defect 10). Now: usage on stderr and
// exit 1 (gdal_grid's), and `unknown command "..."` with exit 1; -h still prints usage on
// stdout with exit 0.
func TestUsageAndUnknownCommand(t *testing.T) {
	// every command that parses its own arguments (plan and mosaic exited 0: issue 27, defect 6)
	var cmds []string
	for _, c := range newApp(nil).Commands {
		if c.SkipFlagParsing {
			cmds = append(cmds, c.Name)
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("commands %v: want grid, plan, mosaic and cv at least", cmds)
	}
	for _, cmd := range cmds {
		code, stdout, stderr := runAidw(t, cmd)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "Usage: aidw "+cmd+" ") {
			t.Errorf("aidw %s: exit %d, stdout %q, stderr %.40q: want exit 1 and the usage on stderr", cmd, code, stdout, stderr)
		}
		code, stdout, _ = runAidw(t, cmd, "-h")
		if code != 0 || !strings.HasPrefix(stdout, "Usage: aidw "+cmd+" ") {
			t.Errorf("aidw %s -h: exit %d, stdout %.40q: want exit 0 and the usage", cmd, code, stdout)
		}
	}
	code, stdout, stderr := runAidw(t, "nosuchcmd")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, `ERROR: unknown command "nosuchcmd"`) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("aidw nosuchcmd: exit %d, stdout %.40q, stderr %q", code, stdout, stderr)
	}
}

// makeTemplate writes a Float32 GeoTIFF template over [0,10] x [0,10], 10 x 10, with the
// given nodata on its left column and top row.
func makeTemplate(t *testing.T, path string, nodata float64) {
	t.Helper()
	ds, err := godal.Create(godal.GTiff, path, 1, godal.Float32, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	ds.SetGeoTransform([6]float64{0, 1, 0, 10, 0, -1})
	b := ds.Bands()[0]
	b.SetNoData(nodata)
	v := make([]float32, 100)
	for i := range v {
		if i%10 == 0 || i < 10 {
			v[i] = float32(nodata)
		} else {
			v[i] = 1
		}
	}
	if err := b.Write(0, 0, v, 10, 10); err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLikeTemplateNoData: with -like, a template with nodata made the output's nodata the
// algorithm's default, 0, so real zeros were masked (issue 12, defect 11). The output takes
// the template's nodata (or the -a string's nodata= when given) for masked nodes, nodes the
// algorithm cannot compute, and the band.
func TestLikeTemplateNoData(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl.tif")
	makeTemplate(t, tmpl, -9999)
	// values are 0 on the left half, 7 on the right; the far corner has no sample within 1.5
	src := writeFile(t, dir, "s.csv", "x,y,z\n1,1,0\n2,5,0\n3,9,0\n6,1,7\n7,5,7\n7.5,7.5,7\n")
	for _, c := range []struct {
		alg    string
		nodata float64
	}{{"nearest:radius1=3:radius2=3", -9999}, {"nearest:radius1=3:radius2=3:nodata=-1", -1}} {
		dst := filepath.Join(dir, "out.tif")
		if code, _, stderr := runAidw(t, "grid", "-q", "-a", c.alg, "-like", tmpl, src, dst); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := readRaster(t, dst, 1)
		if !r.hasNoData || r.nodata != c.nodata {
			t.Fatalf("%s: band nodata %v (set %v), want %v", c.alg, r.nodata, r.hasNoData, c.nodata)
		}
		zeros, empty := 0, 0
		for i, v := range r.values {
			masked := i%10 == 0 || i < 10
			switch {
			case masked && v != c.nodata:
				t.Fatalf("%s: masked node %d = %v, want %v", c.alg, i, v, c.nodata)
			case !masked && v == 0:
				zeros++
			case !masked && v == c.nodata:
				empty++
			}
		}
		if zeros == 0 || empty == 0 {
			t.Errorf("%s: %d real zeros and %d empty nodes: want both", c.alg, zeros, empty)
		}
	}
}

// TestLiDARNoDataDefault: a DEM from LAS/LAZ (a file, or a directory of tiles) marks its empty
// cells -9999 and sets the band's nodata unless the -a string names nodata=; other inputs keep
// gdal_grid's default (0, no nodata).
func TestLiDARNoDataDefault(t *testing.T) {
	dir := t.TempDir()
	las, _ := filepath.Abs("../../testdata/Haystack_Rock.las")
	tiles := filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	os.Symlink(las, filepath.Join(tiles, "a.las"))
	// a box wider than the points, and a small radius, so that some cells are empty
	grid := []string{"grid", "-q", "-txe", "2230700", "2231150", "-tye", "252050", "252450", "-outsize", "45", "40"}
	for _, c := range []struct {
		name, alg, src string
		nodata         float64
		set            bool
	}{
		{"las", "invdistnn:radius=5", las, -9999, true},
		{"tiles directory", "invdistnn:radius=5", tiles, -9999, true},
		{"las with nodata=", "invdistnn:radius=5:nodata=-32768", las, -32768, true},
		{"csv", "invdistnn:radius=0.012", "../../testdata/n43_samples.csv", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "dem.tif")
			args := append([]string{}, grid...)
			if c.src != las && c.src != tiles {
				args = []string{"grid", "-q", "-zfield", "elevation", "-outsize", "45", "40"}
			}
			if code, _, stderr := runAidw(t, append(args, "-a", c.alg, c.src, dst)...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			r := readRaster(t, dst, 1)
			if r.hasNoData != c.set || (c.set && r.nodata != c.nodata) {
				t.Fatalf("band nodata %v (set %v), want %v (set %v)", r.nodata, r.hasNoData, c.nodata, c.set)
			}
			empty, values := 0, 0
			for _, v := range r.values {
				if v == c.nodata {
					empty++
				} else {
					values++
				}
			}
			if empty == 0 || values == 0 {
				t.Errorf("%d empty cells and %d values: want both", empty, values)
			}
		})
	}
}

// TestTargetAlignedPixels: -tap with -tr snaps the extent outwards to whole multiples of the
// resolution, so that cells are exactly the resolution asked (gdalwarp's -tap); -tap without
// -tr is an error; -tr alone keeps gdal_grid's rounding.
func TestTargetAlignedPixels(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "s.csv", "x,y,z\n1000.37,2000.81,1\n1010.2,2003.05,2\n1004.9,2007.66,3\n")
	for _, c := range []struct {
		xres, yres             float64
		xmin, ymax, cols, rows float64
		tr0, tr1               string
	}{
		{1, 1, 1000, 2008, 11, 8, "1", "1"},         // floor 1000.37, ceil 1010.2 -> 1011; 2000 .. 2008
		{0.5, 2, 1000, 2008, 21, 4, "0.5", "2"},     // 1000 .. 1010.5; 2000 .. 2008
		{3, 0.25, 999, 2007.75, 4, 28, "3", "0.25"}, // 999 .. 1011; 2000.75 .. 2007.75
	} {
		dst := filepath.Join(dir, "out.tif")
		if code, _, stderr := runAidw(t, "grid", "-q", "-a", "nearest", "-tr", c.tr0, c.tr1, "-tap", src, dst); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := readRaster(t, dst, 1)
		want := [6]float64{c.xmin, c.xres, 0, c.ymax, 0, -c.yres}
		if r.gt != want || float64(r.cols) != c.cols || float64(r.rows) != c.rows {
			t.Errorf("-tr %s %s -tap: %dx%d %v, want %vx%v %v", c.tr0, c.tr1, r.cols, r.rows, r.gt, c.cols, c.rows, want)
		}
		for _, v := range []float64{r.gt[0] / c.xres, r.gt[3] / c.yres, (r.gt[3] + float64(r.rows)*r.gt[5]) / c.yres} {
			if v != math.Round(v) {
				t.Errorf("-tr %s %s -tap: edge at %v resolutions, want whole", c.tr0, c.tr1, v)
			}
		}
	}
	// -tr alone keeps the samples' box and rounds the size, as gdal_grid
	dst := filepath.Join(dir, "plain.tif")
	if code, _, stderr := runAidw(t, "grid", "-q", "-a", "nearest", "-tr", "1", "1", src, dst); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := readRaster(t, dst, 1); r.gt[0] != 1000.37 || r.cols != 10 {
		t.Errorf("-tr without -tap: %d columns from %v, want 10 from 1000.37", r.cols, r.gt[0])
	}
	code, _, stderr := runAidw(t, "grid", "-q", "-tap", "-outsize", "4", "4", src, filepath.Join(dir, "x.tif"))
	if code != 1 || !strings.Contains(stderr, "-tap needs -tr") {
		t.Errorf("-tap without -tr: exit %d, stderr %q", code, stderr)
	}
}

// TestProvenanceMetadata: the output records how it was made as dataset metadata: the
// algorithm as given, its name and every parameter's value, the inputs, the sample filters
// and aidw's version.
func TestProvenanceMetadata(t *testing.T) {
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	os.Mkdir(tiles, 0o755)
	las, _ := filepath.Abs("../../testdata/Haystack_Rock.las")
	os.Symlink(las, filepath.Join(tiles, "a.las"))
	os.Symlink(las, filepath.Join(tiles, "b.las"))
	for _, ext := range []string{"tif", "png"} { // GTiff, and a CreateCopy format (metadata in .aux.xml)
		dst := filepath.Join(dir, "dem."+ext)
		args := []string{"grid", "-q", "-a", "invdistnn:radius=5:max_points=8", "-class", "0,2", "-zrange", "-10", "300", "-returns", "first", "-outsize", "20", "20"}
		if ext == "png" {
			args = append(args, "-ot", "Byte")
		}
		if code, _, stderr := runAidw(t, append(args, tiles, dst)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, stderr)
		}
		ds, err := godal.Open(dst, godal.SiblingFiles()) // a PNG's metadata is in its .aux.xml
		if err != nil {
			t.Fatal(err)
		}
		md := ds.Metadatas()
		ds.Close()
		code, version, _ := runAidw(t, "--version")
		if code != 0 {
			t.Fatalf("--version: exit %d", code)
		}
		want := map[string]string{
			"AIDW_ALGORITHM":      "invdistnn:radius=5:max_points=8",
			"AIDW_ALGORITHM_NAME": "invdistnn",
			"AIDW_INPUT_COUNT":    "2",
			"AIDW_INPUTS":         filepath.Join(tiles, "a.las") + ", " + filepath.Join(tiles, "b.las"),
			"AIDW_FILTERS":        "-class 0,2 -returns first -zrange -10 300",
			"AIDW_VERSION":        strings.TrimSpace(version),
		}
		for k, v := range want {
			if md[k] != v {
				t.Errorf("%s: %s = %q, want %q", ext, k, md[k], v)
			}
		}
		for _, p := range []string{"invdistnn:", ":radius=5", ":max_points=8", ":power=2", ":nodata=-9999"} {
			if !strings.Contains(md["AIDW_ALGORITHM_PARAMETERS"], p) {
				t.Errorf("%s: AIDW_ALGORITHM_PARAMETERS = %q, want %s among them", ext, md["AIDW_ALGORITHM_PARAMETERS"], p)
			}
		}
	}
}

// TestVersion: --version prints aidw's version, its VCS stamp when the build has one, and the
// GDAL release it runs on.
func TestVersion(t *testing.T) {
	code, out, _ := runAidw(t, "--version")
	v := godal.Version()
	gdal := fmt.Sprintf(" GDAL %d.%d.%d\n", v.Major(), v.Minor(), v.Revision())
	if code != 0 || !strings.HasPrefix(out, "aidw ") || !strings.HasSuffix(out, gdal) {
		t.Errorf("--version: exit %d, %q: want aidw <version> ... GDAL %d.%d.%d", code, out, v.Major(), v.Minor(), v.Revision())
	}
	for _, c := range []struct {
		ldflags, main string
		settings      map[string]string
		want          string
	}{
		{"dev", "(devel)", map[string]string{"vcs.revision": "abc1234def567", "vcs.time": "2026-11-23T10:00:00Z", "vcs.modified": "true"},
			"aidw dev (git abc1234, 2026-11-23, modified) GDAL 3.6.2"},
		{"dev", "v0.4.0", map[string]string{"vcs.revision": "0123456789", "vcs.time": "2026-01-02T00:00:00Z", "vcs.modified": "false"},
			"aidw v0.4.0 (git 0123456, 2026-01-02) GDAL 3.6.2"},
		{"0.5.0", "(devel)", nil, "aidw 0.5.0 GDAL 3.6.2"},
	} {
		if got := formatVersion(c.ldflags, c.main, c.settings, "3.6.2"); got != c.want {
			t.Errorf("formatVersion(%q, %q, %v) = %q, want %q", c.ldflags, c.main, c.settings, got, c.want)
		}
	}
}

// -device gpu:<n> and -gpus name the GPUs: a count, or a list.
func TestGPUSelection(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []int
		err  string
	}{
		{[]string{"-device", "gpu"}, nil, ""},
		{[]string{"-device", "gpu:1"}, []int{1}, ""},
		{[]string{"-device", "gpu", "-gpus", "2"}, []int{0, 1}, ""},
		{[]string{"-gpus", "0,2"}, []int{0, 2}, ""},
		{[]string{"-gpus", "0,0"}, nil, "named twice"},
		{[]string{"-gpus", "0"}, nil, "use 1 or more"},
		{[]string{"-device", "gpu:x"}, nil, "count or a comma-separated list"},
	} {
		a, err := parseGridArgs(append(c.args, "in.csv", "out.tif"))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want one saying %q", c.args, err, c.err)
			}
		case err != nil:
			t.Errorf("%v: %v", c.args, err)
		case !slices.Equal(a.gpus, c.want):
			t.Errorf("%v: GPUs %v, want %v", c.args, a.gpus, c.want)
		}
	}
}

// signalAtProgress starts cmd with its output and errors on one stream, as a terminal shows
// them, sends sig once the progress has started, and returns the whole output once cmd ends.
func signalAtProgress(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) string {
	t.Helper()
	r := startMerged(t, cmd)
	var got strings.Builder
	buf := make([]byte, 64)
	for !strings.Contains(got.String(), "0.") {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("output ended before progress: %q", got.String())
		}
		got.Write(buf[:n])
	}
	cmd.Process.Signal(sig)
	rest, _ := io.ReadAll(r)
	got.Write(rest)
	cmd.Wait()
	return got.String()
}

// startMerged starts cmd with its output and errors on one pipe, which it returns.
func startMerged(t *testing.T, cmd *exec.Cmd) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return r
}

// latticeCSV writes 20,000 samples on a 200 x 100 lattice as text, enough for an all-samples
// run to last while a test interrupts it, and returns its path.
func latticeCSV(t *testing.T) string {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("x,y,z\n")
	for i := range 20000 {
		fmt.Fprintf(&csv, "%d,%d,%d\n", i%200, i/200, i%7)
	}
	return writeFile(t, t.TempDir(), "s.csv", csv.String())
}

// TestMosaicDestinationIsPlanFile: `aidw mosaic plan.json plan.tiles/tile-00000.tif` overwrote
// a tile of its own plan (issue 27, defect 3). A destination that is the plan, one of its tiles
// (by any path) or lies in its tile folder is refused, and the tiles stay as they were.
func TestMosaicDestinationIsPlanFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 1000, 1, false)
	m, n := planJob(t, dir, "job.json", "-a", "invdistnn:radius=6", "-tr", "4", "4", "-tile", "20", in)
	runTiles(t, m, n)
	tile0 := tiles.TilePath(m, 0)
	before, err := os.ReadFile(tile0)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(tiles.TileDir(m), link); err != nil {
		t.Fatal(err)
	}
	for _, dst := range []string{tile0, filepath.Join(link, filepath.Base(tile0)), filepath.Join(tiles.TileDir(m), "all.tif"), m} {
		code, _, stderr := runAidw(t, "mosaic", "-q", m, dst)
		if code != 1 || !strings.Contains(stderr, "give an") {
			t.Errorf("mosaic to %s: exit %d, %q: want exit 1 refusing the destination", dst, code, stderr)
		}
	}
	if after, _ := os.ReadFile(tile0); !slices.Equal(before, after) {
		t.Fatalf("tile 0 was overwritten")
	}
	if _, err := os.Stat(filepath.Join(tiles.TileDir(m), "all.tif")); err == nil {
		t.Errorf("a refused mosaic was written into the tile folder")
	}
	mosaic(t, m, filepath.Join(dir, "all.tif"))
}

// TestGPUsAskedForAreRequired: where no GPU opens (the CPU build, a machine without one),
// naming GPUs with -gpus was silently ignored while -device gpu was an error (issue 27, defect
// 4); every way of asking for GPUs is now an error that names the GPUs as asked, and -gpus
// with -device cpu is a contradiction.
func TestGPUsAskedForAreRequired(t *testing.T) {
	if engines, err := kernels.OpenEngines(nil); err == nil {
		for _, e := range engines {
			if c, ok := e.(io.Closer); ok {
				c.Close()
			}
		}
		t.Skip("a GPU opens here")
	}
	src, _ := filepath.Abs("../../testdata/n43_samples.csv")
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-gpus", "3"}, "ERROR: -gpus 0,1,2: "},
		{[]string{"-gpus", "0,1"}, "ERROR: -gpus 0,1: "},
		{[]string{"-device", "gpu:5"}, "ERROR: -device gpu:5: "},
		{[]string{"-device", "gpu"}, "ERROR: -device gpu: "},
		{[]string{"-device", "cpu", "-gpus", "1"}, "ERROR: -gpus names GPUs but -device cpu"},
	} {
		dst := filepath.Join(t.TempDir(), "g.tif")
		args := slices.Concat([]string{"grid", "-q", "-zfield", "elevation", "-a", "nearest", "-outsize", "8", "8"}, c.flags, []string{src, dst})
		code, _, stderr := runAidw(t, args...)
		if code != 1 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, %q: want exit 1 and %q", c.flags, code, stderr, c.want)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Errorf("%v: wrote %s", c.flags, dst)
		}
	}
}

// TestMemoryFlagAndSizes: -memory 400 was taken as 400 bytes while -memory 0 asked for a unit,
// and a small budget printed as "0.0 GiB" (issue 27, defect 7): every size needs a unit, and
// sizes print in the unit that suits them.
func TestMemoryFlagAndSizes(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"400", "option -memory: give a unit, as 400MB"}, {"0", "option -memory: give a size of 1 byte or more"},
		{"0MB", "1 byte or more"}, {"x", "not a size"},
	} {
		if _, err := parseGridArgs([]string{"-memory", c.v, "in.csv", "out.tif"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-memory %s: %v, want an error saying %q", c.v, err, c.want)
		}
	}
	if a, err := parseGridArgs([]string{"-memory", "400mb", "in.csv", "out.tif"}); err != nil || a.tiles.memory != 400<<20 {
		t.Errorf("-memory 400mb: %v", err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 2000, 1, false)
	code, _, stderr := runAidw(t, "grid", "-q", "-memory", "2KB", "-a", "invdistnn:radius=6", "-tr", "4", "4", in, filepath.Join(dir, "o.tif"))
	if code != 1 || !strings.Contains(stderr, "memory budget of 2.0 KiB") {
		t.Errorf("-memory 2KB: exit %d, %q: want exit 1 naming the budget as 2.0 KiB", code, stderr)
	}
}

// readmeFirstCommand is the README's first example: its first fenced block, continuation lines
// joined, as words.
func readmeFirstCommand(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no fenced block")
	}
	return strings.Fields(strings.ReplaceAll(block, "\\\n", " "))
}

// TestREADMEFirstExample runs the README's first example exactly as written, from a folder
// holding the repository's testdata, and checks its raster against the grid its flags define
// and against gdal_grid's raster for the same arguments (issue 27, defect 8: its points.gpkg
// did not ship). The command is read from README.md, so the two cannot drift apart.
func TestREADMEFirstExample(t *testing.T) {
	words := readmeFirstCommand(t)
	if len(words) < 3 || words[0] != "aidw" || words[1] != "grid" {
		t.Fatalf("the README's first example %q is not an aidw grid command", words)
	}
	dir := t.TempDir()
	testdata, _ := filepath.Abs("../../testdata")
	if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %q: %v: %s", name, args, err, out)
		}
	}
	run(aidwBin, words[1:]...)
	dst := words[len(words)-1]
	got := readRaster(t, filepath.Join(dir, dst), 1)
	flag := func(name string, i int) float64 {
		k := slices.Index(words, name)
		if k < 0 || k+i >= len(words) {
			t.Fatalf("the example has no %s", name)
		}
		var v float64
		if _, err := fmt.Sscan(words[k+i], &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	xmin, xmax, ymin, ymax, res := flag("-txe", 1), flag("-txe", 2), flag("-tye", 1), flag("-tye", 2), flag("-tr", 1)
	cols, rows := int(math.Round((xmax-xmin)/res)), int(math.Round((ymax-ymin)/res))
	if got.cols != cols || got.rows != rows || got.gt != [6]float64{xmin, res, 0, ymax, 0, -res} || got.dataType != godal.Float32 {
		t.Fatalf("%s: %dx%d %v %v, want %dx%d from (%g, %g) at %g, Float32", dst, got.cols, got.rows, got.gt, got.dataType, cols, rows, xmin, ymax, res)
	}
	if _, err := exec.LookPath("gdal_grid"); err != nil {
		t.Skip("no gdal_grid to compare with")
	}
	gdalArgs := append(slices.Clone(words[2:len(words)-1]), "-q", "gdal.tif")
	run("gdal_grid", gdalArgs...)
	want := readRaster(t, filepath.Join(dir, "gdal.tif"), 1)
	for i, v := range got.values {
		if math.Abs(v-want.values[i]) > 1e-3 {
			t.Fatalf("node %d: %v, gdal_grid gives %v", i, v, want.values[i])
		}
	}
}
