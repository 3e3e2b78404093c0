package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/internal/memory"
)

// A run whose big arrays are in an arena writes the heap's raster bit for bit (in the
// process and from the command, whose arena takes arrays of arenaLeast and more), and leaves
// in the arena only the samples: the sort's records and the index are unmapped once done with.
func TestGridInArena(t *testing.T) {
	dir := t.TempDir()
	las := filepath.Join(dir, "survey")
	n := 600_000 // the samples' z, 4.8 MB, goes to the command's arena
	lastest.Survey(t, las, n, 5, false)
	args := func(out string) []string {
		return []string{"-q", "-a", "maximum:radius1=2:radius2=2", "-outsize", "150", "100", "-ot", "Float32", las, filepath.Join(dir, out)}
	}
	grid := func(arena *memory.Arena, out string) []byte {
		a, err := parseGridArgs(args(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := runGrid(context.Background(), a, arena, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := grid(nil, "heap.tif")
	arena := memory.NewArena(1)
	if got := grid(arena, "arena.tif"); !bytes.Equal(got, want) {
		t.Error("the raster of a run in an arena differs from the heap's")
	}
	// compact samples: x and y in 4 bytes each, z in 8, and the reader's room for the
	// points the headers count (the survey's repeated ones), under an eighth more; the
	// records would take 16 bytes a sample more, the index 12
	if got := arena.Bytes(); got < 16*n || got > 18*n {
		t.Errorf("after the run the arena maps %d bytes, want the samples' %d to %d", got, 16*n, 18*n)
	}
	if code, _, stderr := runAidw(t, append([]string{"grid"}, args("command.tif")...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "command.tif")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the command's raster differs from the heap's (%v)", err)
	}
}
