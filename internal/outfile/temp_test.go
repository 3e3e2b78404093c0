package outfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
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
	if names := dirtest.Names(t, dir); !slices.Equal(names, []string{"p.png"}) {
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
	if got := dirtest.Names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("host a left %v, want %v (its dead writer's file gone, its live one's and host b's kept)", got, want)
	}
	removeStaleAs(b, dst)
	if got := dirtest.Names(t, dir); !slices.Equal(got, []string{names[aLive]}) {
		t.Fatalf("host b left %v, want %v", got, names[aLive])
	}
}

// TestRemoveStale: a run that was killed leaves its temporary files; the next run to the same
// destination removes them when their writer is gone (its PID, or the PID reused by a later
// process: PID 1 in containers), and never a live process's, nor another destination's, nor
// one of an unknown host (issue 12, defect 12; issue 28).
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "dem.tif")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	me := localHost()
	dead := tempOwner{me.id, cmd.Process.Pid, 1}
	if localAlive(dead.pid, 0) {
		t.Skipf("PID %d was reused at once", dead.pid)
	}
	self := me.self()
	init := tempOwner{me.id, 1, self.start + 1} // PID 1 of an earlier container on this host
	tmp := func(stem string, o tempOwner, rest string) string { return stem + TempInfix + o.tempName(rest) }
	stale := []string{tmp("dem", dead, "1a2b.tif"), tmp("dem", dead, "1a2c.tif.aux.xml"), tmp("dem", init, "3.tif")}
	live := []string{tmp("dem", self, "99.tif")}                                                     // this test's
	other := []string{tmp("other", dead, "5.tif"), "dem_notes.txt", "dem" + TempInfix + "77-1f.tif"} // not dem.tif's, or of an unknown host
	for _, f := range slices.Concat(stale, live, other) {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	zarr := filepath.Join(dir, tmp("dem", dead, "3.zarr")) // a killed Zarr output
	os.Mkdir(zarr, 0o755)
	os.WriteFile(filepath.Join(zarr, ".zgroup"), nil, 0o644)
	RemoveStale(dst)
	want := slices.Concat(live, other)
	slices.Sort(want)
	if got := dirtest.Names(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}
