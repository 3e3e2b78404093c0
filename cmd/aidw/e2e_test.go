package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/airbusgeo/godal"

	"github.com/aidw/aidw/interp"
)

// aidwBin is the binary under test, built once by TestMain: end-to-end tests run the real
// command, exit codes and files included.
var aidwBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == peakChildArg {
		os.Exit(runPeakChild(os.Args[2:]))
	}
	godal.RegisterAll()
	dir, err := os.MkdirTemp("", "aidw-e2e")
	if err != nil {
		panic(err)
	}
	aidwBin = filepath.Join(dir, "aidw")
	if out, err := exec.Command("go", "build", "-o", aidwBin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// peakChildArg makes this test binary a small parent that runs a command and reports its peak
// RSS (runPeakChild). The ru_maxrss that wait4 reports of a test's child counts the test
// process too: Linux carries the parent's high-water mark across the vfork and exec that start
// the child, so a test process of hundreds of MiB would hide the command's own peak.
const peakChildArg = "-peak-rss-child"

// runPeakChild runs args, passing its output through, then writes its peak RSS in KiB on a
// last line of stderr, and returns its exit code.
func runPeakChild(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	fmt.Fprintf(os.Stderr, "\npeak-rss-kib %d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	return cmd.ProcessState.ExitCode()
}

// runAidwPeak is runAidw that also returns the command's own peak RSS in bytes (see
// peakChildArg).
func runAidwPeak(t *testing.T, args ...string) (code int, stdout, stderr string, peak int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{peakChildArg, aidwBin}, args...)...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	code, stdout, stderr = exitCodeOf(t, cmd), out.String(), errs.String()
	i := strings.LastIndex(stderr, "\npeak-rss-kib ")
	if i < 0 {
		t.Fatalf("no peak reported: %q", stderr)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(stderr[i+len("\npeak-rss-kib "):]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return code, stdout, stderr[:i], kib << 10
}

// runAidw runs the binary and returns its exit code with stdout and stderr.
func runAidw(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(aidwBin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return exitCodeOf(t, cmd), stdout.String(), stderr.String()
}

// exitCodeOf runs cmd and returns its exit code.
func exitCodeOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running aidw: %v", err)
	}
	return 0
}

// rasterBand is a band read back through GDAL.
type rasterBand struct {
	cols, rows int
	gt         [6]float64
	wkt        string
	nodata     float64
	hasNoData  bool
	values     []float64
	bands      int
	dataType   godal.DataType
}

func readRaster(t *testing.T, path string, band int) rasterBand {
	t.Helper()
	ds, err := godal.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer ds.Close()
	st := ds.Structure()
	r := rasterBand{cols: st.SizeX, rows: st.SizeY, bands: st.NBands}
	r.gt, _ = ds.GeoTransform()
	if sr := ds.SpatialRef(); sr != nil {
		r.wkt, _ = sr.WKT()
	}
	b := ds.Bands()[band-1]
	r.nodata, r.hasNoData = b.NoData()
	r.dataType = b.Structure().DataType
	r.values = make([]float64, r.cols*r.rows)
	if err := b.Read(0, 0, r.values, r.cols, r.rows); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return r
}

// TestGDALConformance runs GDAL's own gdal_grid test cases (testdata/gdal/cases.tsv) with
// gdal_grid's command lines and compares with GDAL's reference rasters: "cs" cases must match
// pixel for pixel (stronger than GDAL's checksum), "md:T" cases within T.
func TestGDALConformance(t *testing.T) {
	ext := map[string][]string{
		"A":   strings.Fields("-txe 440720 441920 -tye 3751320 3750120 -outsize 20 20"),
		"B":   strings.Fields("-txe 440721 441920 -tye 3751321 3750120 -outsize 20 20"),
		"N43": strings.Fields("-txe -80.0041667 -78.9958333 -tye 42.9958333 44.0041667 -outsize 121 121"),
	}
	f, err := os.Open("../../testdata/gdal/cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		name, layer, extent, ot, alg, check, ref := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), name+".tif")
			args := append([]string{"grid", "-q", "-l", layer}, ext[extent]...)
			args = append(args, "-ot", ot, "-a", alg, "../../testdata/gdal/"+layer+".vrt", dst)
			if code, _, stderr := runAidw(t, args...); code != 0 {
				t.Fatalf("aidw %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			got, want := readRaster(t, dst, 1), readRaster(t, "../../testdata/gdal/"+ref, 1)
			if got.cols != want.cols || got.rows != want.rows {
				t.Fatalf("size %dx%d, want %dx%d", got.cols, got.rows, want.cols, want.rows)
			}
			tol := 0.0
			if strings.HasPrefix(check, "md:") {
				tol, _ = strconv.ParseFloat(strings.TrimPrefix(check, "md:"), 64)
			}
			worst, at := 0.0, 0
			for i := range got.values {
				if d := math.Abs(got.values[i] - want.values[i]); d > worst || math.IsNaN(d) {
					worst, at = d, i
				}
			}
			if worst > tol || math.IsNaN(worst) {
				t.Errorf("pixel %d,%d: %g, want %g (max diff %g > %g)", at%got.cols, at/got.cols,
					got.values[at], want.values[at], worst, tol)
			}
		})
	}
}

// TestBadInput checks that every kind of bad input gives a one-line error naming the problem,
// exit code 1, and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	abs, _ := filepath.Abs("../../testdata/gdal/grid.csv")
	layer := func(name string) string {
		return `<OGRVRTLayer name="` + name + `"><SrcDataSource>` + abs + `</SrcDataSource><GeometryType>wkbPoint</GeometryType>` +
			`<GeometryField encoding="PointFromColumns" x="field_1" y="field_2" z="field_3"/></OGRVRTLayer>`
	}
	vrt := "../../testdata/gdal/grid.vrt"
	noLayer := write("empty.vrt", `<OGRVRTDataSource></OGRVRTDataSource>`)
	twoLayers := write("two.vrt", `<OGRVRTDataSource>`+layer("a")+layer("b")+`</OGRVRTDataSource>`)
	garbage := write("garbage.gpkg", "not a geopackage")
	strField := write("str.csv", "x,y,z,name\n1,2,3,a\n2,3,4,b\n")
	headerOnly := write("header.csv", "x,y,z\n")
	allNaN := write("nan.csv", "x,y,z\nnan,1,2\n1,inf,3\n")
	cases := []struct {
		name string
		args []string
		want string // a word of the message that names the problem
	}{
		{"missing source", []string{"nope.csv"}, "nope.csv"},
		{"unreadable source", []string{garbage}, "not recognized"},
		{"no layer", []string{noLayer}, "no layer"},
		{"several layers", []string{twoLayers}, "-l"},
		{"unknown layer", []string{"-l", "zz", vrt}, "zz"},
		{"bad where", []string{"-where", "nofield > 3", vrt}, "nofield"},
		{"bad sql", []string{"-sql", "SELEC x", vrt}, "SELEC"},
		{"zfield missing", []string{"-zfield", "nope", vrt}, "nope"},
		{"zfield not numeric", []string{"-zfield", "name", strField}, "not a number"},
		{"zero samples", []string{headerOnly}, "no data"},
		{"only NaN coordinates", []string{allNaN}, "no usable samples"},
		{"unknown algorithm", []string{"-a", "foo", vrt}, "foo"},
		{"unknown aidw key", []string{"-a", "aidw:foo=1", vrt}, "foo"},
		{"negative power", []string{"-a", "invdist:power=-1", vrt}, "power"},
		{"k below 1", []string{"-a", "aidw:k=0", vrt}, "k=0"},
		{"alphas not 5 numbers", []string{"-a", "aidw:alphas=1,2", vrt}, "alphas"},
		{"rmax not above rmin", []string{"-a", "aidw:rmin=1:rmax=1", vrt}, "rmax"},
		{"tr with outsize", []string{"-tr", "1", "1", "-outsize", "3", "3", vrt}, "-tr"},
		{"zero-size extent", []string{"-txe", "5", "5", vrt}, "extent"},
		{"inverted extent", []string{"-txe", "10", "0", vrt}, "extent"},
		{"output beyond memory", []string{"-outsize", "2000000000", "2000000000", vrt}, "memory"},
		{"unreadable template", []string{"-like", "nope.tif", vrt}, "nope.tif"},
		{"unknown option", []string{"-frobnicate", vrt}, "-frobnicate"},
		{"missing option value", []string{vrt, "-txe", "1"}, "-txe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.tif")
			code, _, stderr := runAidw(t, append(append([]string{"grid", "-q"}, c.args...), dst)...)
			if code != 1 {
				t.Errorf("exit code %d, want 1 (stderr %q)", code, stderr)
			}
			msg := strings.TrimSpace(stderr)
			if !strings.HasPrefix(msg, "ERROR: ") || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("stderr %q: want one ERROR line naming %q", stderr, c.want)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
				t.Errorf("panicked: %s", stderr)
			}
			entries, _ := os.ReadDir(filepath.Dir(dst))
			if len(entries) != 0 {
				t.Errorf("left %d file(s) behind, first %s", len(entries), entries[0].Name())
			}
		})
	}
	t.Run("unwritable destination", func(t *testing.T) {
		code, _, stderr := runAidw(t, "grid", "-q", vrt, filepath.Join(dir, "no", "such", "dir", "out.tif"))
		if code != 1 || !strings.Contains(stderr, "out.tif") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("existing output untouched on failure", func(t *testing.T) {
		dst := write("existing.tif", "precious")
		if code, _, _ := runAidw(t, "grid", "-q", "-a", "aidw:k=0", vrt, dst); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		if b, _ := os.ReadFile(dst); string(b) != "precious" {
			t.Errorf("existing destination changed to %q", b)
		}
	})
}

// bruteAIDW is the AIDW definition of issue 2, written out directly (sort all distances,
// math.Pow), independent of the engine: global weighting, or the maxPoints nearest.
func bruteAIDW(xs, ys, zs []float64, x, y, area float64, k, maxPoints int) float64 {
	n := len(xs)
	d := make([]float64, n)
	for i := range xs {
		d[i] = math.Hypot(xs[i]-x, ys[i]-y)
		if (xs[i]-x)*(xs[i]-x)+(ys[i]-y)*(ys[i]-y) < 1e-13 {
			return zs[i]
		}
	}
	// the m nearest, ties in input order (a sort of every sample made the Haystack test
	// last seconds on a busy machine)
	k = min(k, n)
	near := nearest(d, max(k, min(maxPoints, n)))
	robs := 0.0
	for _, i := range near[:k] {
		robs += d[i]
	}
	robs /= float64(k)
	rexp := 1 / (2 * math.Sqrt(float64(n)/area))
	r := robs / rexp
	mu := 0.0
	switch {
	case r >= 2:
		mu = 1
	case r > 0:
		mu = 0.5 - 0.5*math.Cos(math.Pi*r/2)
	}
	a := []float64{1.5, 2, 2.5, 3, 3.5}
	var alpha float64
	switch {
	case mu <= 0.1:
		alpha = a[0]
	case mu <= 0.3:
		alpha = a[0]*(1-5*(mu-0.1)) + 5*a[1]*(mu-0.1)
	case mu <= 0.5:
		alpha = a[1]*(1-5*(mu-0.3)) + 5*a[2]*(mu-0.3)
	case mu <= 0.7:
		alpha = a[2]*(1-5*(mu-0.5)) + 5*a[3]*(mu-0.5)
	case mu <= 0.9:
		alpha = a[3]*(1-5*(mu-0.7)) + 5*a[4]*(mu-0.7)
	default:
		alpha = a[4]
	}
	var num, den float64
	weigh := func(i int) {
		w := math.Pow(d[i], -alpha)
		num += w * zs[i]
		den += w
	}
	if maxPoints > 0 {
		for _, i := range near[:min(maxPoints, n)] {
			weigh(i)
		}
	} else {
		for i := range d {
			weigh(i)
		}
	}
	return num / den
}

// nearest returns the indices of the m smallest of d, smallest first, ties in index order.
func nearest(d []float64, m int) []int {
	near := make([]int, 0, m+1)
	for i, v := range d {
		if len(near) == m && v >= d[near[m-1]] {
			continue
		}
		at := len(near)
		for at > 0 && d[near[at-1]] > v {
			at--
		}
		near = slices.Insert(near, at, i)
		if len(near) > m {
			near = near[:m]
		}
	}
	return near
}

// TestAIDWEndToEnd grids random UTM-scale samples from a CSV and compares every node of the
// written GeoTIFF with the definition, node centres taken from the file's own geotransform.
func TestAIDWEndToEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 400
	var xs, ys, zs []float64
	var csv strings.Builder
	csv.WriteString("X;Y;Z\n")
	for i := 0; i < n; i++ {
		x, y := 450000+rng.Float64()*2000, 5400000+rng.Float64()*1500
		if i < 150 { // a cluster, so that alpha varies over the grid
			x, y = 450300+rng.NormFloat64()*40, 5400400+rng.NormFloat64()*40
		}
		z := 200 + 30*math.Sin(x/300) + rng.NormFloat64()
		xs, ys, zs = append(xs, x), append(ys, y), append(zs, z)
		fmt.Fprintf(&csv, "%.3f;%.3f;%.4f\n", x, y, z)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "s.csv")
	os.WriteFile(src, []byte(csv.String()), 0o644)
	// Re-read the samples as written, so that the reference sees the same decimals.
	xs, ys, zs = xs[:0], ys[:0], zs[:0]
	for _, line := range strings.Split(strings.TrimSpace(csv.String()), "\n")[1:] {
		f := strings.Split(line, ";")
		x, _ := strconv.ParseFloat(f[0], 64)
		y, _ := strconv.ParseFloat(f[1], 64)
		z, _ := strconv.ParseFloat(f[2], 64)
		xs, ys, zs = append(xs, x), append(ys, y), append(zs, z)
	}
	minX, maxX, minY, maxY := xs[0], xs[0], ys[0], ys[0]
	for i := range xs {
		minX, maxX = math.Min(minX, xs[i]), math.Max(maxX, xs[i])
		minY, maxY = math.Min(minY, ys[i]), math.Max(maxY, ys[i])
	}
	area := (maxX - minX) * (maxY - minY)
	for _, c := range []struct {
		alg       string
		maxPoints int
	}{{"aidw", 0}, {"aidw:max_points=12", 12}} {
		t.Run(c.alg, func(t *testing.T) {
			dst := filepath.Join(dir, "out.tif")
			code, _, stderr := runAidw(t, "grid", "-q", "-a", c.alg, "-txe", "449900", "452100",
				"-tye", "5401600", "5399900", "-outsize", "44", "34", "-a_srs", "EPSG:32631", src, dst)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			r := readRaster(t, dst, 1)
			wantGT := [6]float64{449900, 2200.0 / 44, 0, 5401600, 0, -1700.0 / 34}
			for i := range wantGT {
				if math.Abs(r.gt[i]-wantGT[i]) > 1e-9*math.Max(1, math.Abs(wantGT[i])) {
					t.Fatalf("geotransform %v, want %v", r.gt, wantGT)
				}
			}
			if !strings.Contains(r.wkt, "32631") || r.dataType != godal.Float64 || r.hasNoData {
				t.Errorf("CRS %q, type %v, nodata set %v: want EPSG:32631, Float64, none", r.wkt, r.dataType, r.hasNoData)
			}
			for row := 0; row < r.rows; row++ {
				for col := 0; col < r.cols; col++ {
					x := r.gt[0] + (float64(col)+0.5)*r.gt[1]
					y := r.gt[3] + (float64(row)+0.5)*r.gt[5]
					want := bruteAIDW(xs, ys, zs, x, y, area, 15, c.maxPoints)
					got := r.values[row*r.cols+col]
					if math.Abs(got-want) > 1e-9*math.Abs(want) {
						t.Fatalf("node %d,%d: %.15g, want %.15g", col, row, got, want)
					}
				}
			}
		})
	}
}

// TestTemplateMaskAndCRS grids onto a template raster: its size, geotransform and CRS are
// taken, its nodata nodes stay nodata, and samples in another CRS are transformed into it.
func TestTemplateMaskAndCRS(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl.tif")
	// byte.tif is EPSG:26711 (NAD27 UTM 11N); mark a block of it nodata.
	ds, err := godal.Open("../../testdata/gdal/byte.tif")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ds.Translate(tmpl, []string{"-a_nodata", "0", "-ot", "Byte"})
	ds.Close()
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]uint8, 5*4)
	if err := cp.Bands()[0].Write(2, 3, zero, 5, 4); err != nil {
		t.Fatal(err)
	}
	cp.Close()
	// The same points as grid.vrt, but in EPSG:32611 (WGS 84 UTM 11N): a different datum.
	src := filepath.Join(dir, "pts.vrt")
	abs, _ := filepath.Abs("../../testdata/gdal/grid.csv")
	os.WriteFile(src, []byte(`<OGRVRTDataSource><OGRVRTLayer name="pts"><SrcDataSource>`+abs+
		`</SrcDataSource><SrcLayer>grid</SrcLayer><LayerSRS>EPSG:32611</LayerSRS><GeometryType>wkbPoint</GeometryType>`+
		`<GeometryField encoding="PointFromColumns" x="field_1" y="field_2" z="field_3"/></OGRVRTLayer></OGRVRTDataSource>`), 0o644)
	dst := filepath.Join(dir, "out.tif")
	code, _, stderr := runAidw(t, "grid", "-q", "-a", "nearest", "-like", tmpl, src, dst)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Transforming") {
		t.Errorf("no word about the CRS transform: %q", stderr)
	}
	got, want := readRaster(t, dst, 1), readRaster(t, tmpl, 1)
	if got.cols != want.cols || got.rows != want.rows || got.gt != want.gt || !strings.Contains(got.wkt, "NAD27") {
		t.Fatalf("size %dx%d gt %v crs %q: want the template's %dx%d %v NAD27", got.cols, got.rows, got.gt, got.wkt, want.cols, want.rows, want.gt)
	}
	for i, v := range want.values {
		masked := v == 0
		if masked && got.values[i] != 0 {
			t.Errorf("masked node %d = %g, want nodata 0", i, got.values[i])
		}
		if !masked && got.values[i] == 0 {
			t.Errorf("node %d left nodata, want a value", i)
		}
	}
	if !got.hasNoData {
		t.Errorf("band has no nodata; the template's mask makes nodata nodes")
	}
}

// TestProgressAndBands checks GDAL's progress line and that several -l give one band each.
func TestProgressAndBands(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "out.tif")
	code, stdout, stderr := runAidw(t, "grid", "-a", "nearest", "-l", "grid", "-l", "grid",
		"-outsize", "7", "5", "../../testdata/gdal/grid.vrt", dst)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "0...10...20...30...40...50...60...70...80...90...100 - done.\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	r := readRaster(t, dst, 2)
	if r.bands != 2 || r.cols != 7 || r.rows != 5 {
		t.Errorf("%d bands %dx%d, want 2 bands 7x5", r.bands, r.cols, r.rows)
	}
}

// TestRelativeDestinationAndWarnings writes to a bare file name in the working directory (the
// temporary file's rename must work there too) and checks that an unknown key of a gdal_grid
// algorithm gets gdal_grid's own warning text, compared with gdal_grid itself when installed.
func TestRelativeDestinationAndWarnings(t *testing.T) {
	dir := t.TempDir()
	src, _ := filepath.Abs("../../testdata/gdal/grid.vrt")
	args := []string{"grid", "-q", "-a", "invdist:Foo=1", "-outsize", "4", "4", src, "out.tif"}
	cmd := exec.Command(aidwBin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("aidw: %v: %s", err, out)
	}
	fi, err := os.Stat(filepath.Join(dir, "out.tif"))
	if err != nil {
		t.Fatalf("no out.tif in the working directory: %v", err)
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	if want := os.FileMode(0o666 &^ mask); fi.Mode().Perm() != want {
		t.Errorf("output mode %v, want %v as a newly created file", fi.Mode().Perm(), want)
	}
	want := "Warning 1: Option Foo ignored"
	if gdal, err := exec.LookPath("gdal_grid"); err == nil {
		g := exec.Command(gdal, append(args[1:len(args)-1], "gdal.tif")...)
		g.Dir = dir
		gout, _ := g.CombinedOutput()
		want = strings.TrimSpace(string(gout))
	}
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("aidw said %q, gdal_grid says %q", got, want)
	}
}

// TestSameResultAnyThreadCount checks that every algorithm gives bit-identical rasters with one
// worker and with several: no result may depend on how nodes are shared out.
func TestSameResultAnyThreadCount(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var csv strings.Builder
	csv.WriteString("x,y,z\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&csv, "%.3f,%.3f,%.3f\n", 450000+rng.Float64()*3000, 5400000+rng.Float64()*2000, rng.NormFloat64()*10)
	}
	src := filepath.Join(dir, "s.csv")
	os.WriteFile(src, []byte(csv.String()), 0o644)
	algs := []string{"aidw", "aidw:max_points=12", "invdist", "invdist:power=3:smoothing=1",
		"invdistnn:radius=100", "nearest", "average:radius1=80:radius2=50:angle=30", "count:radius1=60:radius2=60",
		"average_distance_pts:radius1=60:radius2=60", "linear"}
	for _, name := range interp.Names() { // every registered algorithm, at least with its defaults
		if !slices.ContainsFunc(algs, func(a string) bool { return strings.Split(a, ":")[0] == name }) {
			algs = append(algs, name)
		}
	}
	for _, alg := range algs {
		var first []float64
		for _, threads := range []string{"1", "3"} {
			dst := filepath.Join(dir, "out"+threads+".tif")
			if code, _, stderr := runAidw(t, "grid", "-q", "-threads", threads, "-outsize", "111", "97", "-a", alg, src, dst); code != 0 {
				t.Fatalf("%s: exit %d: %s", alg, code, stderr)
			}
			v := readRaster(t, dst, 1).values
			if first == nil {
				first = v
				continue
			}
			for i := range v {
				if math.Float64bits(v[i]) != math.Float64bits(first[i]) {
					t.Errorf("%s: node %d is %v with 1 thread, %v with %s", alg, i, first[i], v[i], threads)
					break
				}
			}
		}
	}
}
