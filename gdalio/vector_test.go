package gdalio

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"
)

func testResiduals() Residuals {
	return Residuals{
		X: []float64{451000.5, 451010, 451020}, Y: []float64{5401000, 5401005.25, 5401010},
		Observed: []float64{10, 20, 30}, Fold: []int{2, 1, 2},
		Algorithms: []string{"aidw", "invdist:power=3"},
		Predicted:  [][]float64{{11, 19, math.NaN()}, {9.5, 20, 31}},
		SRS:        "EPSG:32617",
	}
}

// TestWriteResidualsReadBack writes the layer and reads it back through godal.
func TestWriteResidualsReadBack(t *testing.T) {
	for _, ext := range []string{".gpkg", ".geojson", ".shp"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "res"+ext)
			r := testResiduals()
			if err := WriteResiduals(path, r); err != nil {
				t.Fatal(err)
			}
			for _, f := range dirFiles(t, dir) {
				if strings.Contains(f, tempInfix) {
					t.Errorf("temporary file %s left behind", f)
				}
			}
			ds, err := godal.Open(path, godal.VectorOnly())
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			layers := ds.Layers()
			if len(layers) != 1 || layers[0].Name() != "res" {
				t.Fatalf("layers %v", layers)
			}
			l := layers[0]
			if sr := l.SpatialRef(); sr == nil || sr.AuthorityCode("") != "32617" {
				t.Errorf("layer CRS %v, want EPSG:32617", sr)
			}
			n := 0
			for f := l.NextFeature(); f != nil; f = l.NextFeature() {
				fields := f.Fields()
				a := n / 3
				i := n % 3
				if got := fields["sample"].Int(); got != int64(i+1) {
					t.Errorf("feature %d: sample %d, want %d", n, got, i+1)
				}
				if got := fields["fold"].Int(); got != int64(r.Fold[i]) {
					t.Errorf("feature %d: fold %d, want %d", n, got, r.Fold[i])
				}
				if got := fields["algorithm"].String(); got != r.Algorithms[a] {
					t.Errorf("feature %d: algorithm %q", n, got)
				}
				if fields["observed"].Float() != r.Observed[i] || fields["x"].Float() != r.X[i] || fields["y"].Float() != r.Y[i] {
					t.Errorf("feature %d: x y observed %v %v %v", n, fields["x"].Float(), fields["y"].Float(), fields["observed"].Float())
				}
				p := r.Predicted[a][i]
				if !math.IsNaN(p) && (fields["predicted"].Float() != p || fields["residual"].Float() != p-r.Observed[i]) {
					t.Errorf("feature %d: predicted %v residual %v, want %v and %v", n,
						fields["predicted"].Float(), fields["residual"].Float(), p, p-r.Observed[i])
				}
				g := f.Geometry()
				if wkt, _ := g.WKT(); !strings.HasPrefix(wkt, "POINT") || !strings.Contains(wkt, "451000.5") && i == 0 {
					t.Errorf("feature %d geometry %s", n, wkt)
				}
				g.Close()
				f.Close()
				n++
			}
			if n != 6 {
				t.Errorf("%d features, want 6", n)
			}
			// the missing prediction is null (its field values read as 0 above)
			rs, err := ds.ExecuteSQL("SELECT sample, algorithm FROM res WHERE predicted IS NULL AND residual IS NULL")
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			nulls := 0
			for f := rs.NextFeature(); f != nil; f = rs.NextFeature() {
				if fl := f.Fields(); fl["sample"].Int() != 3 || fl["algorithm"].String() != "aidw" {
					t.Errorf("null prediction of sample %d by %s", fl["sample"].Int(), fl["algorithm"].String())
				}
				nulls++
				f.Close()
			}
			if nulls != 1 {
				t.Errorf("%d null predictions, want 1", nulls)
			}
		})
	}
}

func TestWriteResidualsBadDestination(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "res.nosuchformat"), filepath.Join(dir, "res"),
		filepath.Join(dir, "missing", "res.gpkg")} {
		if err := CheckVectorDestination(path); err == nil {
			t.Errorf("%s: no error from the check", path)
		}
		if err := WriteResiduals(path, testResiduals()); err == nil {
			t.Errorf("%s: no error from the write", path)
		}
	}
	if names := dirFiles(t, dir); len(names) != 0 {
		t.Errorf("files left: %v", names)
	}
}

// TestWritePlot checks that the plot is a PNG of the documented size that shows every
// series' colour.
func TestWritePlot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cv.png")
	obs := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	series := []PlotSeries{
		{"one", "RMSE 0.3", obs, []float64{1.1, 2.2, 2.9, 4.5, math.NaN(), 6, 7.3, 7.7}},
		{"two", "RMSE 1", obs, []float64{2, 1, 4, 3, 6, 5, 8, 7}},
		{"three: a label much too long to fit above its panel, which the plot cuts", "", obs, obs},
	}
	if err := WritePlot(path, "title", series); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// two panels of 600x590 a row, two rows, and the title's 50 rows
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1230 {
		t.Fatalf("plot %v, want 1200x1230", b)
	}
	if w, h := PlotSize(len(series)); w != 1200 || h != 1230 {
		t.Errorf("PlotSize(3) = %dx%d", w, h)
	}
	for i := range series {
		want := PlotColour(i)
		found := false
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y && !found; y++ {
			for x := b.Min.X; x < b.Max.X && !found; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				found = uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B
			}
		}
		if !found {
			t.Errorf("series %d's colour %v is nowhere in the plot", i, want)
		}
	}
	if names := dirFiles(t, dir); !slices.Equal(names, []string{"cv.png"}) {
		t.Errorf("folder holds %v", names)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range [][2]float64{{75, 456}, {0.1, 0.13}, {-5, 5}, {1000, 1000.5}} {
		ticks := niceTicks(c[0], c[1], 6)
		if ticks[0] > c[0] || ticks[len(ticks)-1] < c[1] || len(ticks) < 3 || len(ticks) > 13 {
			t.Errorf("%v: ticks %v do not cover it in 3 to 13 steps", c, ticks)
		}
	}
}
