package gdalio

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// absolute returns the samples of a source as absolute x, y, z triples.
func absolute(s Source) [][3]float64 {
	out := make([][3]float64, s.Samples.Len())
	for i := range out {
		out[i] = [3]float64{s.Samples.X[i] + s.Samples.OriginX, s.Samples.Y[i] + s.Samples.OriginY, s.Samples.Z[i]}
	}
	return out
}

func readOne(t *testing.T, path string, opt SourceOptions) Source {
	t.Helper()
	src, err := ReadSources(context.Background(), path, opt)
	if err != nil {
		t.Fatalf("ReadSources(%s): %v", filepath.Base(path), err)
	}
	if len(src) != 1 {
		t.Fatalf("got %d sources, want 1", len(src))
	}
	return src[0]
}

func samePoints(t *testing.T, got [][3]float64, want [][3]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d samples %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		for k := range 3 {
			if math.Abs(got[i][k]-want[i][k]) > 1e-9*math.Max(1, math.Abs(want[i][k])) {
				t.Fatalf("sample %d = %v, want %v", i, got[i], want[i])
			}
		}
	}
}

func TestTextFormats(t *testing.T) {
	pts := [][3]float64{{440750.5, 3751290.25, 107}, {440810, 3751290, -1.5e-3}, {1e3, 2e-2, 3}}
	cases := []struct {
		name, file, content string
		opt                 SourceOptions
		want                [][3]float64
	}{
		{"comma header", "a.csv", "x,y,z\n440750.5,3751290.25,107\n440810,3751290,-1.5e-3\n1e3,2e-2,3\n", SourceOptions{}, pts},
		{"CRLF upper-case header", "a.csv", "X,Y,Z\r\n440750.5,3751290.25,107\r\n440810,3751290,-0.0015\r\n1000,0.02,3\r\n", SourceOptions{}, pts},
		{"no final newline", "a.csv", "x,y,z\n440750.5,3751290.25,107\n440810,3751290,-1.5e-3\n1e3,2e-2,3", SourceOptions{}, pts},
		{"semicolon", "a.csv", "x;y;z\n440750.5;3751290.25;107\n440810;3751290;-1.5e-3\n1e3;2e-2;3\n", SourceOptions{}, pts},
		{"tab", "a.txt", "x\ty\tz\n440750.5\t3751290.25\t107\n440810\t3751290\t-1.5e-3\n1e3\t2e-2\t3\n", SourceOptions{}, pts},
		{"whitespace headerless", "a.xyz", "  440750.5  3751290.25\t107\n440810 3751290   -1.5e-3 \n1e3 2e-2 3\n", SourceOptions{}, pts},
		{"comments blank lines BOM", "a.csv", "\xef\xbb\xbf# survey\n\nx,y,z\n# note\n440750.5,3751290.25,107\n\n   \n440810,3751290,-1.5e-3\n#x\n1e3,2e-2,3\n", SourceOptions{}, pts},
		{"quoted fields", "a.csv", "\"id\",\"x\",\"y\",\"z\"\n\"a, b\",\"440750.5\",3751290.25, \"107\" \n\"c\"\"d\",440810,\"3751290\",-1.5e-3\n\"\",1e3,2e-2,3\n", SourceOptions{}, pts},
		{"columns by name in any order", "a.csv", "id,Z,name,y,x\n1,107,p,3751290.25,440750.5\n2,-1.5e-3,q,3751290,440810\n3,3,r,2e-2,1e3\n", SourceOptions{}, pts},
		{"spaces around comma fields", "a.csv", "x , y , z\n 440750.5 , 3751290.25 , 107\n440810,3751290,-1.5e-3\n1e3,  2e-2,3\n", SourceOptions{}, pts},
		{"zfield by name", "a.csv", "x,y,z,elev\n440750.5,3751290.25,0,107\n440810,3751290,0,-1.5e-3\n1e3,2e-2,0,3\n", SourceOptions{ZField: "ELEV"}, pts},
		{"zfield field_N headerless", "a.csv", "440750.5,3751290.25,0,107\n440810,3751290,0,-1.5e-3\n1e3,2e-2,0,3\n", SourceOptions{ZField: "field_4"}, pts},
		{"z transform (z+inc)*mul", "a.csv", "x,y,z\n440750.5,3751290.25,105\n440810,3751290,-2.0015\n1e3,2e-2,1\n",
			SourceOptions{ZIncrease: 2, ZMultiply: ptr(1.0)}, pts},
		{"zfield names the x column", "a.csv", "x,y,z\n440750.5,3751290.25,0\n", SourceOptions{ZField: "x"}, [][3]float64{{440750.5, 3751290.25, 440750.5}}},
		{"z transform order", "a.csv", "x,y,z\n0,0,1\n", SourceOptions{ZIncrease: 2, ZMultiply: ptr(10.0)}, [][3]float64{{0, 0, 30}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), c.file, c.content)
			s := readOne(t, p, c.opt)
			samePoints(t, absolute(s), c.want)
			if s.SRS != "" || s.Skipped != 0 {
				t.Fatalf("SRS %q skipped %d, want none", s.SRS, s.Skipped)
			}
			if s.Name != "a" {
				t.Fatalf("name %q, want the file's base name", s.Name)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestTextSkipsEmptyAndNonFinite(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.csv", "x,y,z\n1,2,3\n4,,6\n7,8,nan\n9,10,\n11,12,13\ninf,1,1\n1,2,1e999\n")
	s := readOne(t, p, SourceOptions{})
	samePoints(t, absolute(s), [][3]float64{{1, 2, 3}, {11, 12, 13}})
	if s.Skipped != 5 || !strings.Contains(s.SkipReason, "2 lines with an empty") || !strings.Contains(s.SkipReason, "3 lines with a NaN") {
		t.Fatalf("skipped %d (%s), want 5: 2 empty, 3 NaN/Inf", s.Skipped, s.SkipReason)
	}
}

func TestTextErrors(t *testing.T) {
	cases := []struct{ name, content, zfield, want string }{
		{"bad number", "x,y,z\n1,2,3\n1,2,abc\n", "", "line 3: z value \"abc\" is not a number"},
		{"too few fields", "x,y,z\n1,2,3\n\n# c\n1,2\n", "", "line 5: 2 fields, need at least 3"},
		{"unclosed quote", "x,y,z\n1,\"2,3\n", "", "line 2: unclosed quote"},
		{"no z column", "x,y,height\n1,2,3\n", "", "no column named z in the header (columns: x, y, height)"},
		{"missing zfield", "x,y,z\n1,2,3\n", "elev", "no -zfield column \"elev\""},
		{"zfield headerless", "1,2,3\n", "elev", "no header line"},
		{"header only", "x,y,z\n", "", "a header line but no data lines"},
		{"empty", "\n# nothing\n", "", "no data lines"},
		{"decimal comma", "x;y;z\n1,5;2;3\n", "", "line 2: x value \"1,5\" is not a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "a.csv", c.content)
			_, err := ReadSources(context.Background(), p, SourceOptions{ZField: c.zfield})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans several lines: %q", err)
			}
		})
	}
	if _, err := ReadSources(context.Background(), filepath.Join(t.TempDir(), "missing.csv"), SourceOptions{}); err == nil {
		t.Fatal("a missing file gave no error")
	}
	p := writeFile(t, t.TempDir(), "a.csv", "x,y,z\nnan,1,2\n")
	if _, err := ReadSources(context.Background(), p, SourceOptions{}); err == nil || !strings.Contains(err.Error(), "no usable samples (1 skipped") {
		t.Fatalf("error %v, want no usable samples with the skip count", err)
	}
}

func TestTextSpatAndLayers(t *testing.T) {
	p := writeFile(t, t.TempDir(), "pts.csv", "x,y,z\n0,0,1\n1,1,2\n2,2,3\n3,3,4\n")
	// gdal_grid keeps the points strictly inside -spat
	s := readOne(t, p, SourceOptions{Spat: &[4]float64{0, 0, 3, 3}})
	samePoints(t, absolute(s), [][3]float64{{1, 1, 2}, {2, 2, 3}})
	src, err := ReadSources(context.Background(), p, SourceOptions{Layers: []string{"pts", "PTS"}})
	if err != nil || len(src) != 2 || src[0].Samples == src[1].Samples {
		t.Fatalf("two -l of the file's layer: %d sources, err %v; want two with their own samples", len(src), err)
	}
	if _, err := ReadSources(context.Background(), p, SourceOptions{Layers: []string{"other"}}); err == nil || !strings.Contains(err.Error(), `layer "other" not found`) {
		t.Fatalf("unknown layer: error %v", err)
	}
	s = readOne(t, p, SourceOptions{Spat: &[4]float64{-1, -1, 2.5, 2.5}, LayerExtent: true})
	if s.Extent == nil || *s.Extent != [4]float64{0, 0, 2, 2} {
		t.Fatalf("extent %v, want 0 0 2 2", s.Extent)
	}
}

// writeBenchCSVN writes n uniform x,y,z points over a 10 km UTM square.
func writeBenchCSVN(b *testing.B, n int) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	sb.Grow(n * 36)
	sb.WriteString("x,y,z\n")
	for range n {
		fmt.Fprintf(&sb, "%.3f,%.3f,%.3f\n", 4.5e5+rng.Float64()*1e4, 5.4e6+rng.Float64()*1e4, rng.Float64()*1000)
	}
	p := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkReadCSV1M reads a 1,000,000-point x,y,z CSV (issue 2's bar: 5 M points/s).
func BenchmarkReadCSV1M(b *testing.B) {
	const n = 1_000_000
	p := writeBenchCSVN(b, n)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	for b.Loop() {
		src, err := ReadSources(context.Background(), p, SourceOptions{})
		if err != nil || src[0].Samples.Len() != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
}

// BenchmarkReadCSV1MThroughOGR reads the same file with OGR's CSV driver, for comparison.
func BenchmarkReadCSV1MThroughOGR(b *testing.B) {
	const n = 1_000_000
	p := writeBenchCSVN(b, n)
	opt := SourceOptions{OpenOptions: []string{"X_POSSIBLE_NAMES=x", "Y_POSSIBLE_NAMES=y", "Z_POSSIBLE_NAMES=z"}}
	for b.Loop() {
		src, err := ReadSources(context.Background(), p, opt)
		if err != nil || src[0].Samples.Len() != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
}
