package tiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/raster"
)

// A manifest reads back as written, its hash over its canonical JSON; an edit is caught.
func TestManifestRoundTrip(t *testing.T) {
	tg := raster.NorthUp(450000, 5400000, 450200, 5400150, 80, 60)
	ts, err := Split(tg, 23)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Version: ManifestVersion, Args: []string{"-a", "nearest", "in/"}, Dir: "/x", Algorithm: "nearest",
		Output:   Output{Cols: tg.Cols, Rows: tg.Rows, GeoTransform: tg.GeoTransform, Bands: []string{"value"}, Creation: []string{}},
		Facts:    Facts{N: 10, Rel: [4]float64{-1.5, -2, 3, 4.25}, Bounds: [4]float64{1, 2, 3, 4}, QuantumX: 0.01, QuantumY: 0.01},
		Inputs:   Inputs{Files: []InputFile{{Path: "/in/a.las", Points: 10, Box: [4]float64{1, 2, 3, 4}}}},
		TileSize: 23}
	for i, tl := range ts {
		m.Tiles = append(m.Tiles, PlannedTile{Index: i, Tile: tl, Inputs: []string{"/in/a.las"}})
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Hash, "sha256:") || len(m.Hash) != 71 {
		t.Fatalf("hash %q", m.Hash)
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash != m.Hash || got.Facts != m.Facts || len(got.Tiles) != 12 || got.Tiles[5].Tile != ts[5] {
		t.Fatalf("read back %+v", got)
	}
	if TilePath(path, 42) != filepath.Join(filepath.Dir(path), "m.tiles", "tile-00042.tif") {
		t.Fatalf("tile path %s", TilePath(path, 42))
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"n": 10`, `"n": 11`, 1)), 0o644)
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("edited manifest: %v", err)
	}
	// a tile's own grid is its window of the target's
	sub := ts[5].Target(tg)
	x, y := sub.Node(0, 0, 0, 0)
	wx, wy := tg.Node(ts[5].Col0, ts[5].Row0, 0, 0)
	if sub.Cols != ts[5].Cols || sub.Rows != ts[5].Rows || x != wx || y != wy {
		t.Fatalf("tile 5's grid %+v: node (0,0) at %v,%v, want %v,%v", sub, x, y, wx, wy)
	}
}
