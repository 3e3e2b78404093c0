package gdalio

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// ReadSources reads LAS natively: one band named after the file, its CRS as WKT, gdal_grid's
// -spat, -z_increase and -z_multiply applied.
func TestReadSourcesLAS(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	cloud, err := lidar.ReadFiles(context.Background(), lidar.OpenLocal, []string{path}, lidar.Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := cloud.Samples
	src, err := ReadSources(context.Background(), path, SourceOptions{LayerExtent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 1 || src[0].Name != "Haystack_Rock" || src[0].Samples.Len() != 21932 ||
		!strings.Contains(src[0].SRS, "Oregon North") || !strings.Contains(src[0].SRS, "NAVD88") {
		t.Fatalf("sources %d, name %q, SRS %.80q", len(src), src[0].Name, src[0].SRS)
	}
	minX, minY, maxX, maxY := all.Bounds()
	if e := src[0].Extent; e == nil || *e != [4]float64{minX, minY, maxX, maxY} {
		t.Errorf("extent %v", src[0].Extent)
	}

	spat := [4]float64{2230800, 252100, 2231000, 252300}
	mul := 2.0
	src, err = ReadSources(context.Background(), path, SourceOptions{Spat: &spat, ZIncrease: 1, ZMultiply: &mul})
	if err != nil {
		t.Fatal(err)
	}
	var want sample.Samples
	for i := range int32(all.Len()) {
		x, y := all.XY(i)
		x, y = x+all.OriginX, y+all.OriginY
		if x > spat[0] && x < spat[2] && y > spat[1] && y < spat[3] {
			want.Add(x, y, (all.Z[i]+1)*2)
		}
	}
	if want.Len() == 0 || want.Len() == all.Len() {
		t.Fatalf("the window keeps %d of %d points: a useless test", want.Len(), all.Len())
	}
	got := src[0].Samples
	if !got.IsCompact() {
		t.Error("the samples of a LAS file are not compact")
	}
	if got.Len() != want.Len() {
		t.Fatalf("-spat keeps %d samples, want %d", got.Len(), want.Len())
	}
	for i := range int32(want.Len()) {
		x, y := got.XY(i)
		if x+got.OriginX != want.X[i] || y+got.OriginY != want.Y[i] || got.Z[i] != want.Z[i] {
			t.Fatalf("sample %d: %v %v %v, want %v %v %v", i, x+got.OriginX, y+got.OriginY, got.Z[i], want.X[i], want.Y[i], want.Z[i])
		}
	}

	for _, c := range []struct {
		opt  SourceOptions
		want string
	}{
		{SourceOptions{Where: "class = 2"}, "-where and -sql apply to vector sources"},
		{SourceOptions{Layers: []string{"x"}}, "no layers"},
		{SourceOptions{ZField: "gps_time"}, "point format 0 has no GPS time"},
	} {
		if _, err := ReadSources(context.Background(), path, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.opt, err, c.want)
		}
	}
}

// A point count that cannot fit in memory is refused from the headers, before any point is
// read, with what it needs and what to do.
func TestLiDARMemoryCheck(t *testing.T) {
	headers := []lidar.Header{{PointCount: 1_000_000}, {PointCount: 500_000_000}}
	if err := pointMemoryFits("2 LAS files", headers, 1<<40); err != nil {
		t.Fatalf("1 TiB free: %v", err)
	}
	err := pointMemoryFits("2 LAS files", headers, 8<<30)
	if err == nil || !strings.Contains(err.Error(), "5.01e+08 points") || !strings.Contains(err.Error(), "8.0 GiB of memory available") {
		t.Fatalf("8 GiB free: %v", err)
	}
}
