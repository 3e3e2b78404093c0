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

// TestTemporariesOfTwoHostsWithEqualPIDs: two hosts share a folder (a cluster's file system)
// and their workers have equal PIDs, as every pod's PID 1. Their temporary names differ, and
// each host removes only its own dead writers' files, never the other host's and never a live
// one's (issue 28).
func TestTemporariesOfTwoHostsWithEqualPIDs(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "tile-00001.tif")
	live := map[tempOwner]bool{}
	host := func(id string) tempHost {
		return tempHost{id, func(pid int, start uint64) bool { return live[tempOwner{id, pid, start}] }}
	}
	a, b := host("node-a"), host("node-b")
	aDead, aLive, bDead := tempOwner{a.id, 1, 100}, tempOwner{a.id, 1, 200}, tempOwner{b.id, 1, 100}
	live[aLive] = true
	names := map[tempOwner]string{}
	for _, o := range []tempOwner{aDead, aLive, bDead} {
		name, err := reserveAs(o, dst, ".tif")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("part"), 0o600); err != nil {
			t.Fatal(err)
		}
		names[o] = filepath.Base(name)
	}
	if names[aDead] == names[bDead] {
		t.Fatalf("equal names %s for two hosts", names[aDead])
	}
	removeStaleAs(a, dst)
	want := []string{names[aLive], names[bDead]}
	slices.Sort(want)
	if got := dirFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("host a left %v, want %v (its dead writer's file gone, its live one's and host b's kept)", got, want)
	}
	removeStaleAs(b, dst)
	if got := dirFiles(t, dir); !slices.Equal(got, []string{names[aLive]}) {
		t.Fatalf("host b left %v, want %v", got, names[aLive])
	}
}
