package gdalio

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteAtomicLeavesNothingOnFailure: a missing folder fails, and a write replaces an
// existing file whole.
func TestWriteAtomicLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAtomic(filepath.Join(dir, "nope", "p.png"), []byte("x")); err == nil {
		t.Error("no error for a missing folder")
	}
	path := filepath.Join(dir, "p.png")
	for _, content := range []string{"first", "second"} {
		if err := WriteAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Errorf("file holds %q", b)
	}
	if names := dirFiles(t, dir); !slices.Equal(names, []string{"p.png"}) {
		t.Errorf("folder holds %v", names)
	}
}
