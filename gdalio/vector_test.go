package gdalio

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/outfile"
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
			for _, f := range dirtest.Names(t, dir) {
				if strings.Contains(f, outfile.TempInfix) {
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
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("files left: %v", names)
	}
}
