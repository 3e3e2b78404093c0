package tiles

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// inMemory grids the inputs as aidw grid does, every sample in memory.
func inMemory(t *testing.T, paths []string, opt gdalio.SourceOptions, target raster.Target, alg interp.Algorithm) [][]float64 {
	t.Helper()
	srcs, err := gdalio.ReadInputs(context.Background(), paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	s := srcs[0].Samples
	cx, cy := target.Centre()
	s.MoveOrigin(cx, cy)
	nb := len(interp.BandNames(alg))
	out := make([][]float64, nb)
	err = interp.GridBands(context.Background(), &interp.CPU{}, &interp.Problem{Samples: s, Target: target, Alg: alg},
		func(row0, rows int, bands [][]float64) error {
			for k, b := range bands {
				out[k] = append(out[k], b...)
			}
			return nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// otherEngine is the CPU engine under another type: the tiles treat it as they treat a GPU
// (its nodes' reach comes from the k nearest, not from the engine).
type otherEngine struct{ interp.Engine }

// tiled grids the inputs tile by tile, from a spill or (LAS inputs) reading them directly,
// with the CPU engine, or with the engines given.
func tiled(paths []string, opt gdalio.SourceOptions, target raster.Target, alg interp.Algorithm, side int, spill bool, engines ...interp.Engine) ([][]float64, *Computer, error) {
	ctx := context.Background()
	census, err := TakeCensus(ctx, paths, opt, spill, "", 0)
	if err != nil {
		return nil, nil, err
	}
	defer census.Close()
	facts, err := census.Facts(target)
	if err != nil {
		return nil, nil, err
	}
	var src Source = census.Spill
	if !spill {
		if src, err = census.LAS(target); err != nil {
			return nil, nil, err
		}
	}
	c, err := NewComputer(Config{Target: target, Alg: alg, Engines: engines}, facts, src)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]float64, c.Bands())
	err = Run(ctx, c, side, func(row0, rows int, bands [][]float64) error {
		for k, b := range bands {
			out[k] = append(out[k], b...)
		}
		return nil
	})
	return out, c, err
}

func sameBits(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bands, want %d", what, len(got), len(want))
	}
	for k := range want {
		if len(got[k]) != len(want[k]) {
			t.Fatalf("%s: band %d has %d values, want %d", what, k, len(got[k]), len(want[k]))
		}
		for i, v := range want[k] {
			if math.Float64bits(got[k][i]) != math.Float64bits(v) {
				t.Fatalf("%s: band %d node %d is %.17g, the in-memory run gives %.17g", what, k, i, got[k][i], v)
			}
		}
	}
}

// Tiles smaller than the neighbourhoods, on clustered data, give the in-memory raster bit for
// bit, with every algorithm.
func TestTiledEqualsInMemory(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 1, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	opt := gdalio.SourceOptions{}
	algs := []string{
		"aidw", "aidw:max_points=12", "aidw:radius=6", "aidw:k=8:max_points=20:radius=9:diagnostics=yes",
		"invdist", "invdist:power=3:radius1=7:radius2=5:angle=30:max_points=8", "invdist:radius1=6:radius2=6",
		"invdist:radius1=6:radius2=0", "invdistnn:radius=9:max_points=12", "invdistnn:radius=6:max_points=0",
		"invdistnn:radius=9:max_points=12:min_points_per_quadrant=1:max_points_per_quadrant=4",
		"nearest", "nearest:radius1=4:radius2=4", "nearest:radius1=4:radius2=3:angle=20",
		"average:radius1=5:radius2=5", "average:radius1=5:radius2=4:angle=15",
		"minimum:radius1=5:radius2=5", "maximum:radius1=5:radius2=5", "range:radius1=5:radius2=5",
		"count:radius1=5:radius2=5", "average_distance:radius1=5:radius2=5",
		"average_distance_pts:radius1=5:radius2=4:angle=10", "average:radius1=6:radius2=6:min_points_per_quadrant=1",
		"average", "count", "linear", "linear:radius=3",
	}
	for _, a := range algs {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		want := inMemory(t, paths, opt, target, alg)
		for _, spill := range []bool{true, false} {
			got, c, err := tiled(paths, opt, target, alg, 7, spill)
			if err != nil {
				t.Fatalf("%s (spill %v): %v", a, spill, err)
			}
			sameBits(t, fmt.Sprintf("%s (spill %v)", a, spill), got, want)
			t.Logf("%-70s %-8s spill %-5v %3d loads, %7d samples loaded", a, c.Rule().Family, spill, c.Loads.Load(), c.Loaded.Load())
		}
		// three engines taking tiles from one queue, finishing in any order; engines other
		// than the CPU's (the GPUs) have their nodes' reach from the k nearest
		engines := []interp.Engine{&interp.CPU{Threads: 1}, otherEngine{&interp.CPU{Threads: 1}}, otherEngine{&interp.CPU{Threads: 2}}}
		got, _, err := tiled(paths, opt, target, alg, 7, true, engines...)
		if err != nil {
			t.Fatalf("%s (3 engines): %v", a, err)
		}
		sameBits(t, a+" (3 engines)", got, want)
	}
}

// On a 1 m lattice with nodes on it, ties in distance abound, and gdal breaks them in its
// quadtree's order of the whole cloud: every algorithm gives the in-memory raster bit for bit,
// the tiles' quadtrees rooted in the job's box, and the nodes whose ties fall in a leaf that
// reaches past the tile's region computed again from a wider one (which some tiles need).
func TestTiledLatticeExact(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 2, true)
	target := raster.NorthUp(450000-0.5, 5400000-0.5, 450000+200.5, 5400000+150.5, 67, 50)
	opt := gdalio.SourceOptions{}
	tiles, _ := Split(target, 9)
	widened := 0
	for _, a := range []string{"aidw:max_points=12", "nearest", "nearest:radius1=3:radius2=3",
		"invdistnn:radius=6:max_points=12", "invdistnn:radius=4:max_points=0", "average:radius1=3:radius2=3",
		"invdist:radius1=4:radius2=4", "count:radius1=3:radius2=3", "average_distance_pts:radius1=3:radius2=3",
		"average:radius=3:min_points_per_quadrant=1:max_points_per_quadrant=2", "linear", "linear:radius=2"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		got, c, err := tiled(paths, opt, target, alg, 9, true)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		sameBits(t, a+" on a lattice", got, inMemory(t, paths, opt, target, alg))
		if c.Rule().Family == Radius && c.Loads.Load() > int64(len(tiles)) {
			widened++
		}
		t.Logf("%-70s %3d loads for %d tiles", a, c.Loads.Load(), len(tiles))
	}
	if widened == 0 {
		t.Fatal("no tile of a radius algorithm needed a wider region for gdal's order: the test does not reach it")
	}
}

// writeCSV writes points as x,y,z text: clustered, with repeated positions of different
// values, in no spatial order, so that the input order decides gdal's ties.
func writeCSV(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range n {
		x, y := 450000+rng.NormFloat64()*40+100, 5400000+rng.NormFloat64()*30+75
		if i%3 == 0 {
			x, y = 450000+rng.Float64()*200, 5400000+rng.Float64()*150
		}
		x, y = math.Round(x*4)/4, math.Round(y*4)/4 // a quarter-metre lattice: many exact ties
		fmt.Fprintf(&b, "%.2f,%.2f,%.3f\n", x, y, rng.Float64()*10)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Text inputs are spilled in one pass and equal the in-memory run: one file in its own input
// order (on which gdal's ties depend), several in the canonical order.
func TestTiledTextEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	one := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, one[0], 4000, 1)
	two := []string{filepath.Join(dir, "b.csv"), filepath.Join(dir, "c.csv")}
	writeCSV(t, two[0], 2000, 2)
	writeCSV(t, two[1], 2000, 3)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 53, 41)
	opt := gdalio.SourceOptions{}
	for _, a := range []string{"nearest", "invdistnn:radius=9:max_points=12", "aidw:max_points=12",
		"average:radius1=5:radius2=5", "invdist:radius1=6:radius2=6", "linear"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, paths := range [][]string{one, two} {
			want := inMemory(t, paths, opt, target, alg)
			got, _, err := tiled(paths, opt, target, alg, 6, true)
			if err != nil {
				t.Fatalf("%s on %d file(s): %v", a, len(paths), err)
			}
			sameBits(t, fmt.Sprintf("%s on %d file(s)", a, len(paths)), got, want)
		}
	}
	if _, _, err := tiled(one, opt, target, &interp.Nearest{}, 6, false); err == nil || !strings.Contains(err.Error(), "LAS/LAZ inputs only") {
		t.Fatalf("a plan of text inputs: got %v, want a refusal", err)
	}
}

// writeLatticeCSV writes a 10 m lattice of 21 x 21 samples (every square's corners on one
// circle), a few samples between, and repeats of some, in a shuffled input order, with values
// that no plane fits: the Delaunay triangulation is not unique there without its perturbation,
// and which diagonal a square takes changes its nodes.
func writeLatticeCSV(t *testing.T, path string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	var pts [][2]float64
	for j := range 21 {
		for i := range 21 {
			pts = append(pts, [2]float64{float64(10 * i), float64(10 * j)})
		}
	}
	for range 25 {
		pts = append(pts, [2]float64{math.Round(rng.Float64()*800) / 4, math.Round(rng.Float64()*800) / 4})
	}
	for range 15 {
		pts = append(pts, pts[rng.IntN(len(pts))])
	}
	rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for _, p := range pts {
		fmt.Fprintf(&b, "%.2f,%.2f,%.3f\n", 450000+p[0], 5400000+p[1], rng.Float64()*10)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// linear's tiles, smaller than the lattice's triangles, give the in-memory raster bit for bit,
// from far fewer samples than the whole job's: every node lies on the lattice's lines (on an
// edge of two triangles, or at a vertex), many inside circles of four samples, so that the
// triangulation's tie-breaking, the choice among the triangles that hold a node and the order
// of a triangle's vertices must all depend on the samples' coordinates alone.
func TestTiledLinearLattice(t *testing.T) {
	paths := []string{filepath.Join(t.TempDir(), "lattice.csv")}
	writeLatticeCSV(t, paths[0])
	// nodes every 2.5 m from 0 to 200 m: on the lattice's lines
	target := raster.NorthUp(450000-1.25, 5400000-1.25, 450000+201.25, 5400000+201.25, 81, 81)
	opt := gdalio.SourceOptions{}
	for _, a := range []string{"linear", "linear:radius=0:nodata=-9999"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		want := inMemory(t, paths, opt, target, alg)
		got, c, err := tiled(paths, opt, target, alg, 4, true)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		sameBits(t, a, got, want)
		tiles := (81 + 3) / 4 * ((81 + 3) / 4)
		t.Logf("%s: %d tiles, %d loads, %d samples loaded (%d a tile), the job has %d", a, tiles, c.Loads.Load(), c.Loaded.Load(), c.Loaded.Load()/int64(tiles), 481)
		if c.Loaded.Load() > int64(tiles)*481/8 {
			t.Errorf("%s: the tiles loaded %d samples, more than an eighth of the job's a tile", a, c.Loaded.Load())
		}
		engines := []interp.Engine{&interp.CPU{Threads: 1}, otherEngine{&interp.CPU{Threads: 1}}}
		got, _, err = tiled(paths, opt, target, alg, 4, true, engines...)
		if err != nil {
			t.Fatalf("%s (2 engines): %v", a, err)
		}
		sameBits(t, a+" (2 engines)", got, want)
	}
}

// A plan's census takes LAS inputs by the one rule gdalio's readers go by: a file named .Las
// is LAS to both.
func TestCensusMixedCaseLAS(t *testing.T) {
	dir := t.TempDir()
	paths := lastest.Survey(t, dir, 500, 1, false)
	mixed := filepath.Join(dir, "q0.Las")
	if err := os.Rename(paths[0], mixed); err != nil {
		t.Fatal(err)
	}
	paths[0] = mixed
	census, err := TakeCensus(context.Background(), paths, gdalio.SourceOptions{}, false, "", 0)
	if err != nil {
		t.Fatalf("census of %v: %v", paths, err)
	}
	census.Close()
}
