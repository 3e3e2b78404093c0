package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/internal/testload"
)

// lazPerf returns node and laz-perf's laz2las.js (scripts/lazperf), skipping the test when
// they are missing; AIDW_LAZPERF=1 makes that a failure (CI installs them).
func lazPerf(t *testing.T) (node, script string) {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "lazperf"))
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "laz-perf"))
	if err != nil || modErr != nil {
		if os.Getenv("AIDW_LAZPERF") == "1" {
			t.Fatalf("AIDW_LAZPERF=1 but node (%v) or laz-perf (%v) is missing: run scripts/lazperf/setup.sh", err, modErr)
		}
		t.Skip("laz-perf is not installed (scripts/lazperf/setup.sh)")
	}
	return node, filepath.Join(dir, "laz2las.js")
}

// Every LAZ fixture grids, with nearest and with local AIDW, to the raster its points give when
// LASzip's own decoder (laz-perf, WebAssembly) turns them into LAS: bit for bit.
func TestLAZGridsAsLazPerfLAS(t *testing.T) {
	node, script := lazPerf(t)
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "laz", "*.laz"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no LAZ fixtures: %v", err)
	}
	dir := t.TempDir()
	for _, laz := range fixtures {
		name := strings.TrimSuffix(filepath.Base(laz), ".laz")
		t.Run(name, func(t *testing.T) {
			las := filepath.Join(dir, name+".las")
			out, err := exec.Command(node, script, "--las", laz, las).CombinedOutput()
			if err != nil && name == "fullwave" {
				// laz-perf 0.0.7 fails on point format 10's wave packets: aidw must still grid it
				if code, _, stderr := runAidw(t, "grid", "-q", "-outsize", "64", "64", laz, filepath.Join(dir, "fw.tif")); code != 0 {
					t.Fatalf("fullwave: exit %d: %s", code, stderr)
				}
				t.Skipf("laz-perf 0.0.7 cannot decode %s to compare with: %s", name, firstLine(string(out)))
			}
			if err != nil {
				t.Fatalf("laz-perf: %v: %s", err, out)
			}
			for _, alg := range []string{"nearest", "aidw:max_points=12"} {
				want := filepath.Join(dir, name+"-las.tif")
				got := filepath.Join(dir, name+"-laz.tif")
				for _, c := range [][2]string{{las, want}, {laz, got}} {
					if code, _, stderr := runAidw(t, "grid", "-q", "-a", alg, "-outsize", "64", "64", c[0], c[1]); code != 0 {
						t.Fatalf("%s %s: exit %d: %s", alg, c[0], code, stderr)
					}
				}
				sameRaster(t, name+" "+alg, readRaster(t, got, 1), readRaster(t, want, 1))
			}
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// A COPC file gridded for a quarter of its extent, from a server on loopback, reads only the
// octree nodes that meet the quarter: fewer bytes than the file, and the raster of the whole
// file's points (decoded by laz-perf as LAS) cropped the same way.
func TestCOPCReadsOnlyTheNodesItNeeds(t *testing.T) {
	node, script := lazPerf(t)
	copc := filepath.Join("..", "..", "testdata", "laz", "simple.copc.laz")
	data, err := os.ReadFile(copc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	las := filepath.Join(dir, "simple.las")
	if out, err := exec.Command(node, script, "--las", copc, las).CombinedOutput(); err != nil {
		t.Fatalf("laz-perf: %v: %s", err, out)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/simple.copc.laz" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(countingWriter{w, &served}, r, "simple.copc.laz", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	h := readLASBox(t, data)
	midX, midY := (h[0]+h[2])/2, (h[1]+h[3])/2
	spat := []string{"-spat", fmt.Sprint(h[0]), fmt.Sprint(h[1]), fmt.Sprint(midX), fmt.Sprint(midY),
		"-txe", fmt.Sprint(h[0]), fmt.Sprint(midX), "-tye", fmt.Sprint(h[1]), fmt.Sprint(midY), "-outsize", "40", "40"}
	want, got := filepath.Join(dir, "las.tif"), filepath.Join(dir, "copc.tif")
	// GDAL fetches 16 KiB blocks, half this small file: ask for 1 KiB ones
	for _, c := range [][2]string{{las, want}, {"/vsicurl/" + srv.URL + "/simple.copc.laz", got}} {
		args := append(append([]string{"grid", "-q", "-a", "nearest", "--config", "CPL_VSIL_CURL_CHUNK_SIZE", "1024",
			"--config", "GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR"}, spat...), c[0], c[1])
		if code, _, stderr := runAidw(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c[0], code, stderr)
		}
	}
	sameRaster(t, "a quarter of simple.copc.laz", readRaster(t, got, 1), readRaster(t, want, 1))
	if n := served.Load(); n >= int64(len(data)) || n == 0 {
		t.Errorf("the server sent %d bytes of a %d-byte file for a quarter of it", n, len(data))
	} else {
		t.Logf("a quarter read %d of the file's %d bytes", n, len(data))
	}
}

// readLASBox is the header's x and y bounds: xmin ymin xmax ymax.
func readLASBox(t *testing.T, b []byte) [4]float64 {
	f := func(at int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[at:])) }
	return [4]float64{f(187), f(203), f(179), f(195)}
}

// countingWriter counts the bytes of the responses it writes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n.Add(int64(n))
	return n, err
}

// A header that declares more points than memory holds (1.5e9 here, in a LAZ file whose size
// cannot contradict it) is refused from the header, before any point is read, when it is to be
// read in memory: a one-line error saying what it needs and what to do, not Go's out-of-memory
// dump. By default such a count is read in tiles.
func TestHugePointCountRefused(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "laz", "simple.laz"))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(data[107:], 1_500_000_000)
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "huge.laz"), filepath.Join(dir, "o.tif")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A budget that allows it all in memory: the memory check refuses it from the header.
	code, _, stderr := runAidw(t, "grid", "-q", "-memory", "1TB", src, dst)
	if code == 0 || !strings.Contains(stderr, "1.5e+09 points") || !strings.Contains(stderr, "GiB of memory available") ||
		!strings.Contains(stderr, "-memory") || strings.Contains(stderr, "goroutine") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// By default the count sends it to tiles, whose census finds the file short of its count.
	code, _, stderr = runAidw(t, "grid", "-q", src, dst)
	if code == 0 || !strings.Contains(stderr, "the header says 1500000000") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("tiled: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("an output was left")
	}
}

// The README's Haystack DEM command on a /vsizip/ copy of the survey gives the raster of the
// plain file, bit for bit.
func TestHaystackDEMFromZip(t *testing.T) {
	las := filepath.Join("..", "..", "testdata", "Haystack_Rock.las")
	data, err := os.ReadFile(las)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "survey.zip")
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("lidar/Haystack_Rock.las")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zipPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := []string{"grid", "-q", "-a", "aidw:max_points=12", "-txe", "2230738", "2231105", "-tye", "252070", "252411",
		"-tr", "1", "1", "-ot", "Float32", "-co", "COMPRESS=DEFLATE"}
	want, got := filepath.Join(dir, "plain.tif"), filepath.Join(dir, "zip.tif")
	for _, c := range [][2]string{{las, want}, {"/vsizip/" + zipPath + "/lidar/Haystack_Rock.las", got}} {
		if code, _, stderr := runAidw(t, append(readme, c[0], c[1])...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c[0], code, stderr)
		}
	}
	sameRaster(t, "Haystack DEM from /vsizip/", readRaster(t, got, 1), readRaster(t, want, 1))
}

// An interrupt while points are being read stops the reading within a second, whatever the
// size of the survey: the points come from a server that sends them slowly, so the reading
// would last many seconds, and SIGINT arrives in the middle of it.
func TestInterruptWhileReading(t *testing.T) {
	dir := t.TempDir()
	las := filepath.Join(dir, "big.las")
	gen := exec.Command("go", "run", "../../scripts/genlas", "-n", "400000", "-o", las)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("genlas: %v: %s", err, out)
	}
	data, err := os.ReadFile(las)
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/big.las" {
			http.NotFound(w, r)
			return
		}
		// about 2 MB/s: the 12 MB of points take several seconds
		http.ServeContent(slowWriter{countingWriter{w, &served}}, r, "big.las", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	out := filepath.Join(dir, "o.tif")
	cmd := exec.Command(aidwBin, "grid", "-q", "--config", "GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR",
		"/vsicurl/"+srv.URL+"/big.las", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for served.Load() < 1<<20 { // the header is read and the points are coming
		time.Sleep(10 * time.Millisecond)
	}
	load := testload.Factor()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	took := time.Since(sent)
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(stderr.String(), "ERROR: interrupted") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if bound := testload.Bound(time.Second, load); took > bound {
		t.Errorf("stopped %v after SIGINT, want within a second times the load factor %.1f", took, load)
	}
	if n := served.Load(); n >= int64(len(data)) {
		t.Errorf("the whole file (%d bytes) was read before stopping", n)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("left %d files beside the survey", len(names)-1)
	}
}

// slowWriter writes in 16 KiB pieces at about 2 MB/s.
type slowWriter struct{ http.ResponseWriter }

func (w slowWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), 16<<10)
		m, err := w.ResponseWriter.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
		time.Sleep(8 * time.Millisecond)
	}
	return n, nil
}
