package gdalio

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/sample"
)

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	touch(t, j("tiles", "b.las"), j("tiles", "a.LAZ"), j("tiles", "notes.txt"), j("tiles", "sub", "c.las"),
		j("shapes", "p.shp"), j("pts", "1.csv"), j("pts", "2.csv"), j("one.las"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		// a directory with LAS/LAZ files gives them, in name order, not its subdirectories'
		{[]string{j("tiles")}, []string{j("tiles", "a.LAZ"), j("tiles", "b.las")}},
		// any other directory is an OGR datasource
		{[]string{j("shapes")}, []string{j("shapes")}},
		// a glob pattern, quoted, gives its matches; a file named twice is read once
		{[]string{j("pts", "*.csv"), j("pts", "1.csv")}, []string{j("pts", "1.csv"), j("pts", "2.csv")}},
		// the shell's expansion: several files
		{[]string{j("one.las"), j("tiles", "b.las")}, []string{j("one.las"), j("tiles", "b.las")}},
		// a pattern matching directories expands each
		{[]string{j("t*")}, []string{j("tiles", "a.LAZ"), j("tiles", "b.las")}},
		// what does not exist is left to OGR (connection strings, /vsi paths)
		{[]string{"PG:dbname=x"}, []string{"PG:dbname=x"}},
	} {
		got, err := ExpandInputs(c.args)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ExpandInputs(%q) = %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	if _, err := ExpandInputs([]string{j("none", "*.las")}); err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("a pattern without matches: %v", err)
	}
}

// refLess is the canonical order as documented: y, then x, then z, -0 before +0.
func refLess(a, b [3]float64) int {
	key := func(v float64) (float64, bool) { return v, !math.Signbit(v) }
	for _, i := range []int{1, 0, 2} {
		va, pa := key(a[i])
		vb, pb := key(b[i])
		if c := cmp.Compare(va, vb); c != 0 {
			return c
		}
		if pa != pb { // equal values: -0 first
			if !pa {
				return -1
			}
			return 1
		}
	}
	return 0
}

func triples(s *sample.Samples) [][3]float64 {
	out := make([][3]float64, s.Len())
	for i := range out {
		x, y := s.XY(int32(i))
		out[i] = [3]float64{x, y, s.Z[i]}
	}
	return out
}

func bitsEqual(a, b [][3]float64) bool {
	return slices.EqualFunc(a, b, func(p, q [3]float64) bool {
		for i := range p {
			if math.Float64bits(p[i]) != math.Float64bits(q[i]) {
				return false
			}
		}
		return true
	})
}

// The canonical order is the documented one, whatever the input order: checked on many samples
// sharing few y values (long runs crossing the workers' chunks), duplicates, and signed zeros.
func TestCanonicalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 1000, 200_000} {
		var pts [][3]float64
		for range n {
			p := [3]float64{float64(rng.IntN(50)) * 0.5, float64(rng.IntN(n/100+2)) - 3, float64(rng.IntN(3))}
			if rng.IntN(10) == 0 {
				p[rng.IntN(3)] = math.Copysign(0, -1)
			}
			pts = append(pts, p)
		}
		want := slices.Clone(pts)
		slices.SortStableFunc(want, refLess)
		for trial := range 3 {
			rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
			s := &sample.Samples{}
			for _, p := range pts {
				s.Add(p[0], p[1], p[2])
			}
			canonicalize(s)
			if got := triples(s); !bitsEqual(got, want) {
				t.Fatalf("n=%d, trial %d: not in canonical order", n, trial)
			}
		}
	}
}

// splitTFile writes f's points as tiles: the quadrants around (cx, cy) in LAS integer units.
func splitTFile(t *testing.T, dir string, f *tFile, cx, cy int32) []string {
	var paths []string
	for q := range 4 {
		tile := *f
		tile.points = nil
		for _, p := range f.points {
			if (p.X >= cx) == (q&1 == 1) && (p.Y >= cy) == (q&2 == 2) {
				tile.points = append(tile.points, p)
			}
		}
		if len(tile.points) == 0 {
			t.Fatalf("tile %d is empty", q)
		}
		paths = append(paths, writeTFile(t, dir, fmt.Sprintf("tile%d.las", q), tile.encode()))
	}
	return paths
}

// LAS tiles read as one cloud give the samples of the whole file, bit for bit, in any order and
// given as files, a directory or a pattern; the filters and -spat apply to every tile.
func TestReadInputsLASTiles(t *testing.T) {
	dir := t.TempDir()
	f := newTFile(2, 1, 3000, 9)
	f.vlrs = []tRecord{{"LASF_Projection", 34735, geoKeys(1024, 1, 3072, 32633)}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range f.points {
		p := &f.points[i]
		p.X, p.Y = int32(rng.IntN(1000)), int32(rng.IntN(1000)) // few places, so that some coincide
	}
	whole := writeTFile(t, dir, "whole.las", f.encode())
	tileDir := filepath.Join(dir, "tiles")
	os.Mkdir(tileDir, 0o755)
	tiles := splitTFile(t, tileDir, f, 500, 300)
	spat := [4]float64{500000.5, 4000000.1, 500004, 4000000.9} // west of the split: two tiles empty
	for _, opt := range []SourceOptions{
		{LayerExtent: true},
		{LAS: LASFilter{Classes: []int{2}}, LayerExtent: true},
		{Spat: &spat},
	} {
		ref, err := ReadInputs([]string{whole}, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Both in the compact form, moved to one origin: the whole file's and the tiles'
		// header bounds put the origin they are read with in different places.
		r := ref[0].Samples
		ox, oy := r.OriginX, r.OriginY
		if !r.IsCompact() {
			t.Fatalf("%+v: LAS samples of one scale and offset are not compact", opt)
		}
		want := triples(r)
		if !slices.IsSortedFunc(want, refLess) {
			t.Fatalf("%+v: the whole file's samples are not in canonical order", opt)
		}
		for _, args := range [][]string{
			{tiles[2], tiles[0], tiles[3], tiles[1]},
			{tiles[1], tiles[3], tiles[0], tiles[2]},
			{tileDir},
			{filepath.Join(tileDir, "tile*.las")},
		} {
			got, err := ReadInputs(args, opt)
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			g := got[0]
			g.Samples.MoveOrigin(ox, oy)
			if len(got) != 1 || !g.Samples.IsCompact() || !bitsEqual(triples(g.Samples), want) || g.Samples.OriginX != ox || g.Samples.OriginY != oy {
				t.Fatalf("%+v, %q: %d bands, samples differ from the whole file's", opt, args, len(got))
			}
			if g.SRS != ref[0].SRS || !strings.Contains(g.SRS, "UTM zone 33N") || g.Name != "4 LAS files" {
				t.Errorf("%q: SRS %.40q, name %q", args, g.SRS, g.Name)
			}
			if (g.Extent == nil) != (ref[0].Extent == nil) || g.Extent != nil && *g.Extent != *ref[0].Extent {
				t.Errorf("%q: extent %v, want %v", args, g.Extent, ref[0].Extent)
			}
		}
	}
	if _, err := ReadInputs(tiles, SourceOptions{LAS: LASFilter{Classes: []int{99}}}); err == nil ||
		!strings.Contains(err.Error(), "none of the 3000 points passes the point filters") {
		t.Errorf("no point passing: %v", err)
	}
	g := *f
	g.vlrs = []tRecord{{"LASF_Projection", 34735, geoKeys(1024, 1, 3072, 32632)}}
	other := writeTFile(t, dir, "utm32.las", g.encode())
	if _, err := ReadInputs([]string{whole, other}, SourceOptions{}); err == nil || !strings.Contains(err.Error(), "different CRSs") {
		t.Errorf("tiles in two CRSs: %v", err)
	}
}

// Text inputs are merged band by band in absolute coordinates and canonical order; one text
// input alone keeps its order (gdal_grid's tie rules depend on it).
func TestReadInputsText(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	os.WriteFile(a, []byte("x,y,z\n452000.5,5400001,3\n-10,20,1\n"), 0o644)
	os.WriteFile(b, []byte("x,y,z\n452000.5,5400001,2\n7,8,9\n"), 0o644)
	one, err := ReadInputs([]string{a}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := one[0].Samples
	if s.X[0]+s.OriginX != 452000.5 || s.Z[0] != 3 || s.Z[1] != 1 {
		t.Errorf("one input: samples %v %v %v, origin %v,%v: want the file's order", s.X, s.Y, s.Z, s.OriginX, s.OriginY)
	}
	got, err := ReadInputs([]string{b, a}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]float64{{7, 8, 9}, {-10, 20, 1}, {452000.5, 5400001, 2}, {452000.5, 5400001, 3}}
	if len(got) != 1 || !bitsEqual(triples(got[0].Samples), want) {
		t.Errorf("merged: %v, want %v", triples(got[0].Samples), want)
	}
	if _, err := ReadInputs([]string{a, b}, SourceOptions{Layers: []string{"a"}}); err == nil || !strings.Contains(err.Error(), `layer "a" not found`) {
		t.Errorf("-l naming a layer one input lacks: %v", err)
	}
	if _, err := ReadInputs([]string{a, b}, SourceOptions{Spat: &[4]float64{0, 0, 1, 1}}); err == nil || !strings.Contains(err.Error(), "no usable samples") {
		t.Errorf("nothing in -spat: %v", err)
	}
}

// LAS files are read into compact samples when all their points lie on one lattice (one scale,
// offsets of whole quanta, offsets from the origin within int32), and into plain ones
// otherwise; either way every point is where the specification puts it.
func TestReadLASCompactOrPlain(t *testing.T) {
	dir := t.TempDir()
	small := func(seed uint64, edit func(f *tFile)) *tFile {
		f := newTFile(2, 1, 400, seed)
		for i := range f.points {
			f.points[i].X, f.points[i].Y = f.points[i].X%100000, f.points[i].Y%100000
		}
		edit(f)
		return f
	}
	same := func(*tFile) {}
	for _, c := range []struct {
		name    string
		files   []*tFile
		compact bool
		lie     bool // headers state a bounding box of 0: the points' range shows when decoded
	}{
		{"one file", []*tFile{small(1, same)}, true, false},
		{"tiles of one lattice", []*tFile{small(1, same), small(2, func(f *tFile) { f.offset[0] += 12.34 })}, true, false},
		{"another scale", []*tFile{small(1, same), small(2, func(f *tFile) { f.scale[0] = 0.02 })}, false, false},
		{"offset off the lattice", []*tFile{small(1, func(f *tFile) { f.offset[1] += 0.0005 })}, false, false},
		// 5e9 quanta apart: from any origin, one file or the other is beyond int32
		{"beyond int32", []*tFile{small(1, same), small(2, func(f *tFile) { f.offset[0] += 5e7 })}, false, false},
		{"beyond int32, headers lie", []*tFile{small(1, same), small(2, func(f *tFile) { f.offset[0] += 5e7 })}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var paths []string
			var want [][2]float64
			for i, f := range c.files {
				b := f.encode()
				if c.lie {
					clear(b[179:227]) // max and min x, y, z
				}
				name := strings.NewReplacer(" ", "_", ",", "").Replace(c.name)
				paths = append(paths, writeTFile(t, dir, fmt.Sprintf("%s%d.las", name, i), b))
				for _, p := range f.points {
					x, y, _ := f.abs(p)
					want = append(want, [2]float64{x, y})
				}
			}
			s, _, err := readLASFiles(paths, LASFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if s.IsCompact() != c.compact || s.Len() != len(want) {
				t.Fatalf("compact %v with %d samples, want %v with %d", s.IsCompact(), s.Len(), c.compact, len(want))
			}
			for i, w := range want {
				x, y := s.XY(int32(i))
				if x, y = x+s.OriginX, y+s.OriginY; !closeTo(x, w[0]) || !closeTo(y, w[1]) {
					t.Fatalf("sample %d at %v,%v, want %v", i, x, y, w)
				}
			}
		})
	}
}
