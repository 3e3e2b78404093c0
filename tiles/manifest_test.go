package tiles

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/interp"
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
	// a plan of an older aidw, whose plan.samples/ and far field this one cannot read
	old := *m
	old.Version = ManifestVersion - 1
	if err := old.Write(path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "plan again") {
		t.Fatalf("older plan: %v", err)
	}
	// a tile's own grid is its window of the target's
	sub := ts[5].Target(tg)
	x, y := sub.Node(0, 0, 0, 0)
	wx, wy := tg.Node(ts[5].Col0, ts[5].Row0, 0, 0)
	if sub.Cols != ts[5].Cols || sub.Rows != ts[5].Rows || x != wx || y != wy {
		t.Fatalf("tile 5's grid %+v: node (0,0) at %v,%v, want %v,%v", sub, x, y, wx, wy)
	}
}

// A worker refuses the plan's far field, naming it, when it is missing, cut short, changed in
// place (its size kept) or not the one the plan proved; an interrupt stops the read.
func TestFarFieldRefusedWhenDamaged(t *testing.T) {
	dir := t.TempDir()
	las := lastest.Survey(t, dir, 10000, 4, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 500, 400)
	alg, _, err := interp.ParseAlgorithm("aidw")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.farfield")
	// the temporary field of a plan killed while writing it: the next plan removes it
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := outfile.TempNameOf(path, gone.Process.Pid)
	if err := os.WriteFile(stale, []byte("half a field"), 0o600); err != nil {
		t.Fatal(err)
	}
	proof := planFar(t, las, target, alg, path)
	if _, err := os.Stat(stale); err == nil {
		t.Fatalf("a killed plan's temporary far field %s is still there", stale)
	}
	whole, err := os.ReadFile(path)
	if err != nil || int64(len(whole)) != proof.Size {
		t.Fatalf("the far field: %d bytes (%v), %d proven", len(whole), err, proof.Size)
	}
	tl := Tile{Col0: 100, Row0: 100, Cols: 40, Rows: 30}
	if _, _, err := plannedTile(context.Background(), las, target, alg, tl, path, proof); err != nil {
		t.Fatalf("the whole far field: %v", err)
	}
	flipped := append([]byte(nil), whole...)
	flipped[len(flipped)/2] ^= 1 // in the far fields' values: only the checksum tells
	other := proof
	other.SHA256 = strings.Repeat("0", 64)
	for _, c := range []struct {
		name  string
		data  []byte // nil: no file
		proof FileProof
		want  string
	}{
		{"missing", nil, proof, "is missing"},
		{"cut short", whole[:len(whole)-100], proof, "bytes, "},
		{"changed in place", flipped, proof, "checksum"},
		{"another plan's", whole, other, "checksum"},
	} {
		os.Remove(path)
		if c.data != nil {
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, pc, err := plannedTile(context.Background(), las, target, alg, tl, path, c.proof)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("a far field %s: %v, want a refusal naming %s (%q)", c.name, err, path, c.want)
		}
		if pc == nil || pc.far != nil || pc.farBuilds.Load() != 0 {
			t.Fatalf("a far field %s: the worker took a field or built one", c.name)
		}
		t.Logf("%s: %v", c.name, err)
	}
	os.WriteFile(path, whole, 0o644)
	c, done, err := plannedComputer(context.Background(), las, target, alg)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ReadFarField(ctx, c, path, proof); !errors.Is(err, context.Canceled) || c.far != nil {
		t.Fatalf("an interrupted read: %v", err)
	}
}
