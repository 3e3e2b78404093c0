package tiles

import (
	"context"
	"math"
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

// tiled grids the inputs tile by tile.
func tiled(paths []string, opt gdalio.SourceOptions, target raster.Target, alg interp.Algorithm, side int) ([][]float64, *Computer, error) {
	ctx := context.Background()
	l, _, _, err := CensusLAS(ctx, paths, opt)
	if err != nil {
		return nil, nil, err
	}
	facts, err := l.Facts(ctx, target)
	if err != nil {
		return nil, nil, err
	}
	c, err := NewComputer(Config{Target: target, Alg: alg}, facts, l)
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
		got, c, err := tiled(paths, opt, target, alg, 7)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		sameBits(t, a, got, want)
		t.Logf("%-70s %-8s %3d loads, %7d samples loaded", a, c.Rule().Family, c.Loads, c.Loaded)
	}
}

// On a 1 m lattice with nodes on it, ties in distance abound: every algorithm gives the
// in-memory raster bit for bit, or, where a tie needs gdal's quadtree order of the whole cloud,
// a clear error; never another raster. average_distance_pts on gdal's quadtree is refused.
func TestTiledLatticeExactOrRefused(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 2, true)
	target := raster.NorthUp(450000-0.5, 5400000-0.5, 450000+200.5, 5400000+150.5, 67, 50)
	opt := gdalio.SourceOptions{}
	refused := 0
	for _, a := range []string{"aidw:max_points=12", "nearest", "nearest:radius1=3:radius2=3",
		"invdistnn:radius=6:max_points=12", "invdistnn:radius=4:max_points=0", "average:radius1=3:radius2=3",
		"invdist:radius1=4:radius2=4", "count:radius1=3:radius2=3", "average_distance_pts:radius1=3:radius2=3"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := tiled(paths, opt, target, alg, 9)
		if err != nil {
			if !strings.Contains(err.Error(), "quadtree order") {
				t.Fatalf("%s: %v", a, err)
			}
			t.Logf("%s: refused: %v", a, err)
			refused++
			continue
		}
		sameBits(t, a+" on a lattice", got, inMemory(t, paths, opt, target, alg))
	}
	if refused == 0 {
		t.Fatal("no algorithm needed gdal's order: a useless test")
	}
}
