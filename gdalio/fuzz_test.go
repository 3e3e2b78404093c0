package gdalio

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzTextReader feeds mutated delimited text to the native reader and checks that it never
// panics and that what it accepts is sane: finite coordinates and values, and an extent that
// holds every sample. The seeds cover headers, delimiters, quotes, comments and CRLF.
func FuzzTextReader(f *testing.F) {
	head, err := os.ReadFile(filepath.Join("..", "testdata", "n43_samples.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(head[:2048], "")
	for _, s := range []string{
		"x,y,z\n0,0,1\n1,0,2\n0,1,3\n",
		"X;Y;Elev\r\n1,5;2;3\r\n2;3;4\r\n",
		"# comment\n\n1 2 3\n4 5 6\n",
		"\"x\",\"y\",\"z\"\n\"1\",\"2\",\"3\"\n4,5,\n",
		"lon\tlat\televation\n-80\t43\t100\n-79.5\t43.5\tNaN\n",
		"\xef\xbb\xbfx,y,z\n1e308,1e308,1\n-1e308,0,2\n",
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "elev")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, zfield string) {
		path := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		srcs, err := ReadSources(context.Background(), path, SourceOptions{ZField: zfield, LayerExtent: true})
		if err != nil {
			return
		}
		for _, src := range srcs {
			s := src.Samples
			for i := range int32(s.Len()) {
				x, y := s.XY(i)
				x, y = x+s.OriginX, y+s.OriginY
				if !finite(x) || !finite(y) || !finite(s.Z[i]) {
					t.Fatalf("sample %d: %v %v %v", i, x, y, s.Z[i])
				}
				// Coordinates are kept relative to an origin, exact to within an ulp of the
				// larger of the two: at 1e308 a sample at 308 comes back as 0.
				tx := 4 * ulp(max(math.Abs(s.OriginX), math.Abs(x)))
				ty := 4 * ulp(max(math.Abs(s.OriginY), math.Abs(y)))
				if e := src.Extent; e != nil && (x < e[0]-tx || x > e[2]+tx || y < e[1]-ty || y > e[3]+ty) && !math.IsInf(e[0], 0) {
					t.Fatalf("sample %d at %v,%v outside the extent %v", i, x, y, *e)
				}
			}
		}
	})
}

// ulp is the spacing of float64 values at v.
func ulp(v float64) float64 { return math.Nextafter(v, math.Inf(1)) - v }
