package gdalio

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// sameSamples fails unless a and b hold the same samples in the same order, bit for bit, at
// the same absolute coordinates.
func sameSamples(t *testing.T, what string, a, b []Source) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d sources, want %d", what, len(a), len(b))
	}
	for k := range a {
		sa, sb := a[k].Samples, b[k].Samples
		if sa.Len() != sb.Len() || a[k].SRS != b[k].SRS {
			t.Fatalf("%s: %d samples (CRS %.40q), want %d (%.40q)", what, sa.Len(), a[k].SRS, sb.Len(), b[k].SRS)
		}
		for i := range int32(sa.Len()) {
			ax, ay := sa.XY(i)
			bx, by := sb.XY(i)
			if ax+sa.OriginX != bx+sb.OriginX || ay+sa.OriginY != by+sb.OriginY || sa.Z[i] != sb.Z[i] {
				t.Fatalf("%s: sample %d differs", what, i)
			}
		}
	}
}

// LAS and native text inputs read through GDAL's virtual file systems give what the plain
// files give: /vsizip/ and /vsigzip/ on fixtures, /vsicurl/ from a server on loopback that
// serves byte ranges.
func TestVirtualFileSystems(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	las := filepath.Join("..", "testdata", "Haystack_Rock.las")
	csv := filepath.Join("..", "testdata", "n43_samples.csv")
	lasData, err := os.ReadFile(las)
	if err != nil {
		t.Fatal(err)
	}
	csvData, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, data := range map[string][]byte{"tiles/a.las": lasData, "pts.csv": csvData} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(dir, "survey.zip")
	os.WriteFile(zipPath, zb.Bytes(), 0o644)
	var gb bytes.Buffer
	gw := gzip.NewWriter(&gb)
	gw.Write(csvData)
	gw.Close()
	gzPath := filepath.Join(dir, "pts.csv.gz")
	os.WriteFile(gzPath, gb.Bytes(), 0o644)

	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(countingWriter{w, &served}, r, "a.las", time.Time{}, bytes.NewReader(lasData))
	}))
	defer srv.Close()

	opt := SourceOptions{ZField: "elevation"}
	plainLAS, err := ReadInputs(ctx, []string{las}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plainCSV, err := ReadInputs(ctx, []string{csv}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		opt  SourceOptions
		want []Source
	}{
		{"/vsizip/" + zipPath + "/tiles/a.las", SourceOptions{}, plainLAS},
		{"/vsizip/" + zipPath + "/pts.csv", opt, plainCSV},
		{"/vsigzip/" + gzPath, opt, plainCSV},
		{"/vsicurl/" + srv.URL + "/a.las", SourceOptions{}, plainLAS},
	} {
		got, err := ReadInputs(ctx, []string{c.path}, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		sameSamples(t, c.path, got, c.want)
	}
	if n := served.Load(); n < int64(len(lasData)) || n > 3*int64(len(lasData)) {
		t.Errorf("the server sent %d bytes for a %d-byte file", n, len(lasData))
	}
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

// Every reader yields, through ScanSources, batch by batch and in input order, exactly the
// samples ReadSources collects: LAS, LAZ, delimited text and OGR.
func TestScanSourcesEqualsRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	csv := filepath.Join("..", "testdata", "n43_samples.csv")
	vrt := filepath.Join(dir, "n43.vrt")
	abs, _ := filepath.Abs(csv)
	os.WriteFile(vrt, []byte(`<OGRVRTDataSource><OGRVRTLayer name="n43"><SrcDataSource>`+abs+
		`</SrcDataSource><SrcLayer>n43_samples</SrcLayer><GeometryType>wkbPoint</GeometryType><GeometryField encoding="PointFromColumns" x="x" y="y" z="elevation"/></OGRVRTLayer></OGRVRTDataSource>`), 0o644)
	for _, c := range []struct {
		path string
		opt  SourceOptions
	}{
		{filepath.Join("..", "testdata", "Haystack_Rock.las"), SourceOptions{}},
		{filepath.Join("..", "testdata", "laz", "autzen_trim.laz"), SourceOptions{LAS: lidar.Filter{Classes: []int{2}}}},
		{csv, SourceOptions{ZField: "elevation"}},
		{vrt, SourceOptions{}},
	} {
		want, err := ReadSources(ctx, c.path, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		var got []Source
		batches := 0
		srcs, err := ScanSources(ctx, c.path, c.opt, func(band int, b *sample.Samples) error {
			batches++
			for len(got) <= band {
				got = append(got, Source{Samples: &sample.Samples{}})
			}
			for i := range int32(b.Len()) {
				x, y := b.XY(i)
				got[band].Samples.Add(x+b.OriginX, y+b.OriginY, b.Z[i])
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: scan: %v", c.path, err)
		}
		if len(srcs) != len(want) || srcs[0].Name != want[0].Name || srcs[0].SRS != want[0].SRS {
			t.Fatalf("%s: scan gives %d sources (%q), read %d (%q)", c.path, len(srcs), srcs[0].Name, len(want), want[0].Name)
		}
		for i := range got {
			got[i].SRS = srcs[i].SRS
		}
		sameSamples(t, c.path, got, want)
		t.Logf("%s: %d samples in %d batches", filepath.Base(c.path), got[0].Samples.Len(), batches)
	}
}

// TestVSICurlWithoutRange: a server that ignores range requests (200 and the whole file for
// every request) made /vsicurl/ reads fail as "file truncated" (issue 27, defect 7); the error
// now names the missing Range support. Text, read as a stream, still reads.
func TestVSICurlWithoutRange(t *testing.T) {
	las, err := os.ReadFile(filepath.Join("..", "testdata", "Haystack_Rock.las"))
	if err != nil {
		t.Fatal(err)
	}
	csv := []byte("x,y,elevation\n")
	for i := range 40000 { // past the first request's 16 KiB
		csv = fmt.Appendf(csv, "%d,%d,%d\n", i%200, i/200, i%7)
	}
	files := map[string][]byte{"/a.las": las, "/a.csv": csv}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	}))
	defer srv.Close()
	_, err = ReadInputs(context.Background(), []string{"/vsicurl/" + srv.URL + "/a.las"}, SourceOptions{})
	if err == nil || !strings.Contains(err.Error(), "Range") {
		t.Errorf("LAS: %v, want an error naming the missing Range support", err)
	}
	// text is read as a stream, which such a server serves
	got, err := ReadInputs(context.Background(), []string{"/vsicurl/" + srv.URL + "/a.csv"}, SourceOptions{ZField: "elevation"})
	if err != nil || len(got) != 1 || got[0].Samples.Len() != 40000 {
		t.Errorf("CSV: %v, want its 40000 samples", err)
	}
}
