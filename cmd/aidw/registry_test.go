package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/tiles"
)

// boundedForm is the form of a declared algorithm with its search radius when it declares
// one (the form that tiles bound by a halo), else the algorithm as declared.
func boundedForm(d *interp.Declaration) string {
	switch {
	case d.Option("radius1") != nil && d.Option("radius2") != nil:
		return d.Name + ":radius1=7:radius2=7"
	case d.Option("radius") != nil:
		return d.Name + ":radius=7"
	}
	return d.Name
}

// TestRegistryEveryCommand runs every algorithm of the registry through every command that
// takes -a: listed by aidw algorithms (text and JSON), gridded in memory, with -tile, planned
// (one process a tile, then mosaic) and cross-validated; the tiled and planned rasters equal
// the in-memory one bit for bit. A new algorithm is tested here by its registry line alone.
func TestRegistryEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("every algorithm through every command")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 1500, 4, false)
	_, text, _ := runAidw(t, "algorithms")
	_, js, _ := runAidw(t, "algorithms", "--json")
	for _, d := range interp.Registry {
		listed := strings.Contains(text, d.Name+": ") || strings.Contains(text, d.Name+" (default): ")
		if !listed || !strings.Contains(text, "engines: "+d.Engines()) ||
			!strings.Contains(js, fmt.Sprintf("%q", d.Name)) {
			t.Errorf("aidw algorithms lacks %s or its engines", d.Name)
		}
		alg := boundedForm(d)
		grid := []string{"-a", alg, "-tr", "4", "4"}
		want := filepath.Join(dir, d.Name+".tif")
		if code, _, stderr := runAidw(t, append(append([]string{"grid", "-q"}, grid...), in, want)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", alg, code, stderr)
		}
		w := readRaster(t, want, 1)
		got := filepath.Join(dir, d.Name+"-tiled.tif")
		if code, _, stderr := runAidw(t, append(append([]string{"grid", "-q", "-tile", "13"}, grid...), in, got)...); code != 0 {
			t.Fatalf("%s -tile: exit %d: %s", alg, code, stderr)
		}
		sameRaster(t, alg+" -tile", readRaster(t, got, 1), w)
		m, n := planJob(t, dir, d.Name+".json", append(grid, "-tile", "17", in)...)
		runTiles(t, m, n)
		mosaicked := filepath.Join(dir, d.Name+"-mosaic.tif")
		mosaic(t, m, mosaicked)
		sameRaster(t, alg+" planned", readRaster(t, mosaicked, 1), w)
		os.RemoveAll(tiles.TileDir(m))
		code, stdout, stderr := runAidw(t, "cv", "-q", "-folds", "3", "-a", alg, in)
		if code != 0 || !strings.Contains(stdout, d.Name) {
			t.Errorf("%s: aidw cv: exit %d: %s%s", alg, code, stdout, stderr)
		}
	}
}
