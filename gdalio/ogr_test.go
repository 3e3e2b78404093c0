package gdalio

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airbusgeo/godal"
)

// featureCollection builds GeoJSON from "geometry | properties" pairs.
func featureCollection(features ...string) string {
	var parts []string
	for _, f := range features {
		geom, props, _ := strings.Cut(f, "|")
		if props == "" {
			props = "{}"
		}
		parts = append(parts, fmt.Sprintf(`{"type":"Feature","properties":%s,"geometry":%s}`, props, geom))
	}
	return `{"type":"FeatureCollection","features":[` + strings.Join(parts, ",\n") + "]}"
}

// toGPKG copies GeoJSON files into one GeoPackage, one layer each, named as given.
func toGPKG(t *testing.T, dst string, layers map[string]string) {
	t.Helper()
	register()
	first := true
	for _, name := range []string{"a", "b", "c"} {
		src, ok := layers[name]
		if !ok {
			continue
		}
		ds, err := godal.Open(src, godal.VectorOnly(), godal.SiblingFiles())
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"-f", "GPKG", "-nln", name}
		if !first {
			args = append(args, "-update")
		}
		out, err := ds.VectorTranslate(dst, args)
		if err != nil {
			t.Fatal(err)
		}
		out.Close()
		ds.Close()
		first = false
	}
}

func TestOGRGeometriesAsGdalGrid(t *testing.T) {
	p := writeFile(t, t.TempDir(), "g.geojson", featureCollection(
		`{"type":"Point","coordinates":[1,2,3]}`,
		`{"type":"MultiPoint","coordinates":[[4,5,6],[7,8,9]]}`,
		`{"type":"LineString","coordinates":[[10,11,12],[13,14,15]]}`,
		`{"type":"Polygon","coordinates":[[[0,0,1],[4,0,2],[4,4,3],[0,0,1]],[[1,1,7],[2,1,8],[2,2,9],[1,1,7]]]}`,
		`{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[20,21,22]},{"type":"LineString","coordinates":[[23,24,25],[26,27,28]]}]}`,
		`null`,
		`{"type":"Point","coordinates":[30,31]}`,
	))
	s := readOne(t, p, SourceOptions{})
	// gdal_grid's ProcessCommonGeometry: every vertex, ring closures included; 2-D points z=0
	want := [][3]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}, {13, 14, 15},
		{0, 0, 1}, {4, 0, 2}, {4, 4, 3}, {0, 0, 1}, {1, 1, 7}, {2, 1, 8}, {2, 2, 9}, {1, 1, 7},
		{20, 21, 22}, {23, 24, 25}, {26, 27, 28}, {30, 31, 0}}
	samePoints(t, absolute(s), want)
	if s.Skipped != 1 || !strings.Contains(s.SkipReason, "1 features without geometry") {
		t.Fatalf("skipped %d (%s), want the feature without geometry", s.Skipped, s.SkipReason)
	}
	if !strings.Contains(s.SRS, "WGS") || s.Name != "g" {
		t.Fatalf("SRS %q name %q: want GeoJSON's WGS 84 and the layer name", s.SRS, s.Name)
	}
}

func TestOGRZField(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "z.geojson", featureCollection(
		`{"type":"Point","coordinates":[1,2,100]}|{"v":1.5,"s":"7","d":"2020-01-01"}`,
		`{"type":"Point","coordinates":[3,4,100]}|{"v":null,"s":" 8 ","d":"2020-01-02"}`,
		`{"type":"LineString","coordinates":[[5,6],[7,8]]}|{"v":3,"s":"","d":"2020-01-03"}`,
	))
	s := readOne(t, p, SourceOptions{ZField: "v", ZIncrease: 1, ZMultiply: ptr(2.0)})
	samePoints(t, absolute(s), [][3]float64{{1, 2, 5}, {5, 6, 8}, {7, 8, 8}})
	if s.Skipped != 1 || !strings.Contains(s.SkipReason, "null or empty v") {
		t.Fatalf("skipped %d (%s), want the null v", s.Skipped, s.SkipReason)
	}
	s = readOne(t, p, SourceOptions{ZField: "s"})
	samePoints(t, absolute(s), [][3]float64{{1, 2, 7}, {3, 4, 8}})
	for zf, want := range map[string]string{
		"missing": `-zfield "missing": no such field (fields: v, s, d)`,
		"d":       `-zfield "d" is a Date field, not a number`,
	} {
		if _, err := ReadSources(context.Background(), p, SourceOptions{ZField: zf}); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("-zfield %s: error %v, want %q", zf, err, want)
		}
	}
	bad := writeFile(t, dir, "bad.geojson", featureCollection(`{"type":"Point","coordinates":[1,2]}|{"s":"abc"}`))
	if _, err := ReadSources(context.Background(), bad, SourceOptions{ZField: "s"}); err == nil || !strings.Contains(err.Error(), `value "abc" is not a number`) {
		t.Fatalf("text z: error %v", err)
	}
}

func TestOGRFilters(t *testing.T) {
	dir := t.TempDir()
	var feats []string
	for i := range 5 {
		feats = append(feats, fmt.Sprintf(`{"type":"Point","coordinates":[%d,%d,%d]}|{"k":%d,"name":"p%d"}`, i, i, 10*i, i, i))
	}
	p := writeFile(t, dir, "f.geojson", featureCollection(feats...))
	pts := func(ks ...int) [][3]float64 {
		var out [][3]float64
		for _, k := range ks {
			out = append(out, [3]float64{float64(k), float64(k), 10 * float64(k)})
		}
		return out
	}
	clip := writeFile(t, dir, "clip.geojson", featureCollection(
		`{"type":"Polygon","coordinates":[[[0.5,0.5],[1.5,0.5],[1.5,1.5],[0.5,1.5],[0.5,0.5]]]}|{"keep":1}`,
		`{"type":"Polygon","coordinates":[[[2.5,2.5],[3.5,2.5],[3.5,3.5],[2.5,3.5],[2.5,2.5]]]}|{"keep":0}`,
	))
	cases := []struct {
		name string
		opt  SourceOptions
		want [][3]float64
	}{
		{"where", SourceOptions{Where: "k >= 3"}, pts(3, 4)},
		{"sql", SourceOptions{SQL: []string{"SELECT * FROM f WHERE name IN ('p1','p2')"}}, pts(1, 2)},
		{"spat strict", SourceOptions{Spat: &[4]float64{0, 0, 3, 3}}, pts(1, 2)},
		{"spat reversed corners", SourceOptions{Spat: &[4]float64{3.5, 3.5, 0.5, 0.5}}, pts(1, 2, 3)},
		{"clipsrc box", SourceOptions{ClipSrc: "1.5 -1 9 3.5"}, pts(2, 3)},
		{"clipsrc WKT boundary excluded", SourceOptions{ClipSrc: "POLYGON((-1 -1,4 -1,4 4,-1 -1))"}, nil},
		{"clipsrc WKT", SourceOptions{ClipSrc: "MULTIPOLYGON(((0.5 -1,5 -1,5 2.5,0.5 2.5,0.5 -1)),((3.9 3.9,4.1 3.9,4.1 4.1,3.9 4.1,3.9 3.9)))"}, pts(1, 2, 4)},
		{"clipsrc spat_extent", SourceOptions{ClipSrc: "spat_extent", Spat: &[4]float64{-1, -1, 1.5, 1.5}}, pts(0, 1)},
		{"clipsrc and spat intersect", SourceOptions{ClipSrc: "POLYGON((-1 -1,9 -1,9 9,-1 9,-1 -1))", Spat: &[4]float64{0.5, 0.5, 2.5, 2.5}}, pts(1, 2)},
		{"clipsrc datasource", SourceOptions{ClipSrc: clip}, pts(1, 3)},
		{"clipsrc datasource where", SourceOptions{ClipSrc: clip, ClipSrcWhere: "keep = 1"}, pts(1)},
		{"clipsrc datasource sql", SourceOptions{ClipSrc: clip, ClipSrcSQL: "SELECT * FROM clip WHERE keep = 0"}, pts(3)},
		{"sql with spat", SourceOptions{SQL: []string{"SELECT * FROM f"}, Spat: &[4]float64{1.5, 1.5, 9, 9}}, pts(2, 3, 4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := ReadSources(context.Background(), p, c.opt)
			if c.want == nil {
				if err == nil || !strings.Contains(err.Error(), "no usable samples") {
					t.Fatalf("error %v, want no usable samples", err)
				}
				return
			}
			if err != nil || len(src) != 1 {
				t.Fatalf("%d sources, error %v", len(src), err)
			}
			samePoints(t, absolute(src[0]), c.want)
		})
	}
	for _, c := range []struct {
		opt  SourceOptions
		want string
	}{
		{SourceOptions{Where: "nosuchcol = 1"}, "-where \"nosuchcol = 1\""},
		{SourceOptions{SQL: []string{"SELEC nonsense"}}, "-sql \"SELEC nonsense\""},
		{SourceOptions{ClipSrc: "spat_extent"}, "-clipsrc spat_extent needs -spat"},
		{SourceOptions{ClipSrc: "1 2 3"}, "a bounding box is 4 numbers"},
		{SourceOptions{ClipSrc: "POLYGON((0 0, 1"}, "must be a valid POLYGON or MULTIPOLYGON WKT"},
		{SourceOptions{ClipSrc: p}, "geometry not of polygon type"},
		{SourceOptions{ClipSrc: filepath.Join(dir, "none.shp")}, "-clipsrc"},
		{SourceOptions{Layers: []string{"nope"}}, `layer "nope" not found (layers: f)`},
	} {
		_, err := ReadSources(context.Background(), p, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%+v: error %q, want one line containing %q", c.opt, err, c.want)
		}
	}
}

func TestOGRLayersAndBands(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.geojson", featureCollection(`{"type":"Point","coordinates":[1,1,1]}`))
	b := writeFile(t, dir, "b.geojson", featureCollection(`{"type":"Point","coordinates":[2,2,2]}`, `{"type":"Point","coordinates":[3,3,3]}`))
	gpkg := filepath.Join(dir, "two.gpkg")
	toGPKG(t, gpkg, map[string]string{"a": a, "b": b})
	if _, err := ReadSources(context.Background(), gpkg, SourceOptions{}); err == nil || !strings.Contains(err.Error(), "2 layers (a, b): choose with -l or -sql") {
		t.Fatalf("several layers without -l: error %v", err)
	}
	src, err := ReadSources(context.Background(), gpkg, SourceOptions{Layers: []string{"b", "a", "b"}, SQL: []string{"SELECT * FROM b WHERE fid = 2"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var counts []int
	for _, s := range src {
		names = append(names, s.Name)
		counts = append(counts, s.Samples.Len())
	}
	if fmt.Sprint(names, counts) != "[SELECT * FROM b WHERE fid = 2 b a b] [1 2 1 2]" {
		t.Fatalf("bands %v with %v samples; want the SQL result first, then b, a and b again", names, counts)
	}
	samePoints(t, absolute(src[0]), [][3]float64{{3, 3, 3}})
	if _, err := ReadSources(context.Background(), gpkg, SourceOptions{Layers: []string{"zz"}}); err == nil || !strings.Contains(err.Error(), `layer "zz" not found (layers: a, b)`) {
		t.Fatalf("unknown layer: error %v", err)
	}
	if _, err := ReadSources(context.Background(), gpkg, SourceOptions{Layers: []string{"a"}, Where: "nosuch = 1"}); err == nil || !strings.Contains(err.Error(), "-where") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("bad -where on a GeoPackage: error %q", err)
	}
	var warnings []string
	src, err = ReadSources(context.Background(), gpkg, SourceOptions{Layers: []string{"a"}, Where: "fid = 1", OpenOptions: []string{"NO_SUCH_OPTION=1"},
		Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil || src[0].Samples.Len() != 1 || len(warnings) == 0 {
		t.Fatalf("-where on a GeoPackage with an unknown -oo: %v, warnings %q", err, warnings)
	}
	src, err = ReadSources(context.Background(), gpkg, SourceOptions{Layers: []string{"b"}, LayerExtent: true})
	if err != nil || src[0].Extent == nil || *src[0].Extent != [4]float64{2, 2, 3, 3} {
		t.Fatalf("layer extent %v (err %v), want 2 2 3 3", src[0].Extent, err)
	}
}

func TestOGRCSVAndVRT(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pts.csv", "440750.000,3751290.000,107\n440810.000,3751290.000,123\n440870.000,3751230.000,132\n")
	vrt := writeFile(t, dir, "pts.vrt", `<OGRVRTDataSource><OGRVRTLayer name="grid">
  <SrcDataSource relativeToVRT="1">pts.csv</SrcDataSource><SrcLayer>pts</SrcLayer><LayerSRS>EPSG:26711</LayerSRS>
  <GeometryType>wkbPoint</GeometryType>
  <GeometryField encoding="PointFromColumns" x="field_1" y="field_2" z="field_3"/>
</OGRVRTLayer></OGRVRTDataSource>`)
	want := [][3]float64{{440750, 3751290, 107}, {440810, 3751290, 123}, {440870, 3751230, 132}}
	s := readOne(t, vrt, SourceOptions{Layers: []string{"grid"}})
	samePoints(t, absolute(s), want)
	if !strings.Contains(s.SRS, "NAD27 / UTM zone 11N") {
		t.Fatalf("SRS %q, want EPSG:26711", s.SRS)
	}
	// -oo sends a CSV to OGR's CSV driver, which reads the columns as text fields
	csv := writeFile(t, dir, "h.csv", "east,north,h\n440750,3751290,107\n440810,3751290,123\n440870,3751230,132\n")
	s = readOne(t, csv, SourceOptions{ZField: "h", OpenOptions: []string{"X_POSSIBLE_NAMES=east", "Y_POSSIBLE_NAMES=north"}})
	samePoints(t, absolute(s), want)
	s = readOne(t, csv, SourceOptions{ZField: "h", Where: "h > 110", OpenOptions: []string{"X_POSSIBLE_NAMES=east", "Y_POSSIBLE_NAMES=north", "AUTODETECT_TYPE=YES"}})
	samePoints(t, absolute(s), want[1:])
}

func TestOGRBadSources(t *testing.T) {
	dir := t.TempDir()

	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.gpkg"), "opening"},
		{writeFile(t, dir, "junk.dat", "not a vector file"), "opening"},
		{writeFile(t, dir, "empty.geojson", featureCollection()), "no usable samples"},
		{writeFile(t, dir, "nolayer.vrt", "<OGRVRTDataSource></OGRVRTDataSource>"), "no layer"},
	} {
		_, err := ReadSources(context.Background(), c.path, SourceOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: error %q, want one line containing %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// BenchmarkReadGPKG reads 300,000 points from a GeoPackage through OGR.
func BenchmarkReadGPKG(b *testing.B) {
	const n = 300_000
	csv := writeBenchCSVN(b, n)
	register()
	src, err := godal.Open(csv, godal.VectorOnly(), godal.SiblingFiles(),
		godal.DriverOpenOption("X_POSSIBLE_NAMES=x", "Y_POSSIBLE_NAMES=y", "Z_POSSIBLE_NAMES=z"))
	if err != nil {
		b.Fatal(err)
	}
	gpkg := filepath.Join(b.TempDir(), "pts.gpkg")
	out, err := src.VectorTranslate(gpkg, []string{"-f", "GPKG", "-nln", "pts", "-dim", "XYZ"})
	if err != nil {
		b.Fatal(err)
	}
	out.Close()
	src.Close()
	for b.Loop() {
		s, err := ReadSources(context.Background(), gpkg, SourceOptions{})
		if err != nil || s[0].Samples.Len() != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
}
