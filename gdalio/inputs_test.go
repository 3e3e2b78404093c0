package gdalio

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/inputs"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

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
			sample.Canonicalize(context.Background(), s)
			if got := triples(s); !bitsEqual(got, want) {
				t.Fatalf("n=%d, trial %d: not in canonical order", n, trial)
			}
		}
	}
}

// splitTFile writes f's points as tiles: the quadrants around (cx, cy) in LAS integer units.
func splitTFile(t *testing.T, dir string, f *lastest.File, cx, cy int32) []string {
	var paths []string
	for q := range 4 {
		tile := *f
		tile.Points = nil
		for _, p := range f.Points {
			if (p.X >= cx) == (q&1 == 1) && (p.Y >= cy) == (q&2 == 2) {
				tile.Points = append(tile.Points, p)
			}
		}
		if len(tile.Points) == 0 {
			t.Fatalf("tile %d is empty", q)
		}
		paths = append(paths, lastest.WriteFile(t, dir, fmt.Sprintf("tile%d.las", q), tile.Encode()))
	}
	return paths
}

// LAS tiles read as one cloud give the samples of the whole file, bit for bit, in any order and
// given as files, a directory or a pattern; the filters and -spat apply to every tile.
func TestReadInputsLASTiles(t *testing.T) {
	dir := t.TempDir()
	f := lastest.NewFile(2, 1, 3000, 9)
	f.VLRs = []lastest.Record{{User: "LASF_Projection", ID: 34735, Data: lastest.GeoKeys(1024, 1, 3072, 32633)}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range f.Points {
		p := &f.Points[i]
		p.X, p.Y = int32(rng.IntN(1000)), int32(rng.IntN(1000)) // few places, so that some coincide
	}
	whole := lastest.WriteFile(t, dir, "whole.las", f.Encode())
	tileDir := filepath.Join(dir, "tiles")
	os.Mkdir(tileDir, 0o755)
	tiles := splitTFile(t, tileDir, f, 500, 300)
	spat := [4]float64{500000.5, 4000000.1, 500004, 4000000.9} // west of the split: two tiles empty
	for _, opt := range []SourceOptions{
		{LayerExtent: true},
		{LAS: lidar.Filter{Classes: []int{2}}, LayerExtent: true},
		{Spat: &spat},
	} {
		ref, err := ReadInputs(context.Background(), []string{whole}, opt)
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
			paths, err := inputs.Expand(args)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadInputs(context.Background(), paths, opt)
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			g := got[0]
			g.Samples.MoveOrigin(ox, oy)
			if len(got) != 1 || !g.Samples.IsCompact() || !bitsEqual(triples(g.Samples), want) || g.Samples.OriginX != ox || g.Samples.OriginY != oy {
				t.Fatalf("%+v, %q: %d bands, samples differ from the whole file's", opt, args, len(got))
			}
			// left in input order for an engine that orders them: the same samples
			keep := opt
			keep.InputOrder = true
			unordered, err := ReadInputs(context.Background(), paths, keep)
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			u := unordered[0].Samples
			if !u.InputOrder || !u.IsCompact() {
				t.Fatalf("%+v, %q: InputOrder %v, compact %v", opt, args, u.InputOrder, u.IsCompact())
			}
			u.MoveOrigin(ox, oy)
			if err := sample.Canonicalize(context.Background(), u); err != nil || u.InputOrder || !bitsEqual(triples(u), want) {
				t.Fatalf("%+v, %q: samples left in input order differ from the canonical ones once ordered (%v)", opt, args, err)
			}
			if g.SRS != ref[0].SRS || !strings.Contains(g.SRS, "UTM zone 33N") || g.Name != "4 LAS files" {
				t.Errorf("%q: SRS %.40q, name %q", args, g.SRS, g.Name)
			}
			if (g.Extent == nil) != (ref[0].Extent == nil) || g.Extent != nil && *g.Extent != *ref[0].Extent {
				t.Errorf("%q: extent %v, want %v", args, g.Extent, ref[0].Extent)
			}
		}
	}
	if _, err := ReadInputs(context.Background(), tiles, SourceOptions{LAS: lidar.Filter{Classes: []int{99}}}); err == nil ||
		!strings.Contains(err.Error(), "none of the 3000 points passes the point filters") {
		t.Errorf("no point passing: %v", err)
	}
	g := *f
	g.VLRs = []lastest.Record{{User: "LASF_Projection", ID: 34735, Data: lastest.GeoKeys(1024, 1, 3072, 32632)}}
	other := lastest.WriteFile(t, dir, "utm32.las", g.Encode())
	if _, err := ReadInputs(context.Background(), []string{whole, other}, SourceOptions{}); err == nil || !strings.Contains(err.Error(), "different CRSs") {
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
	one, err := ReadInputs(context.Background(), []string{a}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := one[0].Samples
	if s.X[0]+s.OriginX != 452000.5 || s.Z[0] != 3 || s.Z[1] != 1 {
		t.Errorf("one input: samples %v %v %v, origin %v,%v: want the file's order", s.X, s.Y, s.Z, s.OriginX, s.OriginY)
	}
	got, err := ReadInputs(context.Background(), []string{b, a}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]float64{{7, 8, 9}, {-10, 20, 1}, {452000.5, 5400001, 2}, {452000.5, 5400001, 3}}
	if len(got) != 1 || !bitsEqual(triples(got[0].Samples), want) {
		t.Errorf("merged: %v, want %v", triples(got[0].Samples), want)
	}
	if _, err := ReadInputs(context.Background(), []string{a, b}, SourceOptions{Layers: []string{"a"}}); err == nil || !strings.Contains(err.Error(), `layer "a" not found`) {
		t.Errorf("-l naming a layer one input lacks: %v", err)
	}
	if _, err := ReadInputs(context.Background(), []string{a, b}, SourceOptions{Spat: &[4]float64{0, 0, 1, 1}}); err == nil || !strings.Contains(err.Error(), "no usable samples") {
		t.Errorf("nothing in -spat: %v", err)
	}
}

// Inputs merged into one set leave nothing in the run's arena: the LAS input's arrays are
// unmapped once copied (the merged samples are on the heap, their sort's records unmapped).
func TestReadInputsMergedFreeArena(t *testing.T) {
	dir := t.TempDir()
	f := lastest.NewFile(2, 1, 3000, 9)
	f.VLRs = []lastest.Record{{User: "LASF_Projection", ID: 34735, Data: lastest.GeoKeys(1024, 1, 3072, 32633)}}
	las := lastest.WriteFile(t, dir, "a.las", f.Encode())
	csv := filepath.Join(dir, "b.csv")
	os.WriteFile(csv, []byte("x,y,z\n500000.5,4000001,3\n500001,4000002,1\n"), 0o644)
	a := memory.NewArena(1)
	got, err := ReadInputs(memory.WithArena(context.Background(), a), []string{las, csv}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := got[0].Samples.Len(); n != 3002 {
		t.Fatalf("%d samples merged, want 3002", n)
	}
	if b := a.Bytes(); b != 0 {
		t.Errorf("the arena still maps %d bytes after the merge", b)
	}
}
