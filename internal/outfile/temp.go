// Package outfile holds the chores of output files that call no GDAL: a file written whole
// or not at all (through a temporary beside it, renamed into place), temporary names that
// record their writer (host, PID, start) so that a later run removes what a killed one left,
// and the check that a destination is none of the sources. gdalio's raster and vector writers,
// the plan's manifests and spills, and the previews and plots share them.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// TempInfix marks the temporary files of a writer (gdalio.Writer, WriteAtomic):
// <stem>.aidwtmp-<host>_<pid>_<start>_<random><ext> (see tempOwner), so that a killed run's
// leftovers are recognisable, and the next run to the same destination on the same host
// removes them once their writer is gone (see RemoveStale).
const TempInfix = ".aidwtmp-"

// tempSeq makes the names one process reserves distinct.
var tempSeq atomic.Uint64

// Reserve returns a unique temporary name beside path with the given extension, after
// checking that the folder takes a file of that name; the file itself does not exist, so that
// drivers that refuse an existing path (GPKG, Zarr) create it. The name holds this process's
// host, PID and start time: no other live process on any host sharing the folder can want it,
// and a dead process that had them left at most a file that the exclusive probe finds, so the
// name is free until the driver takes it.
func Reserve(path, ext string) (string, error) {
	return reserveAs(localHost().self(), path, ext)
}

func reserveAs(me tempOwner, path, ext string) (string, error) {
	dir := filepath.Dir(path)
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	for {
		name := filepath.Join(dir, stem+TempInfix+me.tempName(fmt.Sprintf("%x%x", tempSeq.Add(1), rand.Uint32()))+ext)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot write %s: %w", path, err)
		}
		f.Close()
		if err := os.Remove(name); err != nil {
			return "", fmt.Errorf("cannot write %s: %w", path, err)
		}
		return name, nil
	}
}

// RemoveStale removes the temporary files that earlier runs to path on this host left behind
// (killed before they could clean up): those whose writer is no longer a live process. A live
// process's files, this one's included, and every other host's stay.
func RemoveStale(path string) {
	removeStaleAs(localHost(), path)
}

func removeStaleAs(h tempHost, path string) {
	h.removeStale(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+TempInfix)
}

// RemoveStaleIn removes the entries of dir named prefix followed by a writer's owner (see
// OwnName) that are stale on this host: its own dead writers'.
func RemoveStaleIn(dir, prefix string) { localHost().removeStale(dir, prefix) }

// removeStale removes the entries of dir named prefix followed by a writer's owner
// (tempOwner) that h may remove: its own dead writers'.
func (h tempHost) removeStale(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if o, ok := parseTempOwner(rest); ok && h.stale(o) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// tempOwner identifies the writer of a temporary file, as its name records it: the host (its
// name and PID namespace, so that containers with equal PIDs and pods whose workers are all
// PID 1 differ), the PID, and the process's start time (so that a PID reused after a restart,
// PID 1 in a container above all, is not taken for the writer).
type tempOwner struct {
	host  string
	pid   int
	start uint64
}

// tempHost is the host whose temporary files a process may clean: its identity, and whether
// one of its processes (PID and start time) is still alive. Tests give fake hosts.
type tempHost struct {
	id    string
	alive func(pid int, start uint64) bool
}

// localHost is this machine, seen from this process's PID namespace.
func localHost() tempHost {
	name, _ := os.Hostname()
	id := sanitizeHost(name)
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil { // pid:[4026531836]
		id += "-" + strings.Trim(strings.TrimPrefix(ns, "pid:"), "[]")
	}
	return tempHost{id: id, alive: localAlive}
}

// sanitizeHost keeps letters, digits and '-' of a host name: the name is part of file names,
// and '_' separates its parts.
func sanitizeHost(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) == 0 {
		return "host"
	}
	return string(b[:min(len(b), 63)])
}

// self is this process as a writer on h.
func (h tempHost) self() tempOwner {
	return tempOwner{h.id, os.Getpid(), processStart(os.Getpid())}
}

// OwnName is the unique part of a temporary name of this process: host_pid_start_random, as
// RemoveStaleIn reads it.
func OwnName(random string) string { return localHost().self().tempName(random) }

// tempName is the unique part of a temporary name: host_pid_start_random.
func (o tempOwner) tempName(random string) string {
	return fmt.Sprintf("%s_%d_%d_%s", o.host, o.pid, o.start, random)
}

// parseTempOwner reads the writer out of the part of a temporary name after its infix; ok is
// false for a name of another shape (one written before names held the host: whose it is
// cannot be told, so it is left alone).
func parseTempOwner(rest string) (tempOwner, bool) {
	parts := strings.SplitN(rest, "_", 4)
	if len(parts) < 4 {
		return tempOwner{}, false
	}
	pid, err := strconv.Atoi(parts[1])
	start, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err != nil || err2 != nil || pid <= 0 {
		return tempOwner{}, false
	}
	return tempOwner{parts[0], pid, start}, true
}

// stale says whether h may remove a file that o wrote: o ran on h and is gone. Another host's
// files are never removed: its processes cannot be seen from here.
func (h tempHost) stale(o tempOwner) bool {
	return o.host == h.id && !h.alive(o.pid, o.start)
}

// localAlive says whether the process pid, started at start (0: unknown), still runs: signal
// 0 checks without sending (EPERM means it exists under another user), and a start time that
// differs means the PID was reused.
func localAlive(pid int, start uint64) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	now := processStart(pid)
	return start == 0 || now == 0 || now == start
}

// processStart is when process pid started, in clock ticks since boot (field 22 of
// /proc/<pid>/stat); 0 where it cannot be read.
func processStart(pid int) uint64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// the command name (field 2) is in parentheses and may hold spaces
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(raw[i+1:]))
	if len(fields) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(fields[19], 10, 64)
	return v
}

// TempNameOf is a temporary name that process pid on this host (started at an unknown time)
// would take for path: tests of callers make a killed worker's leftovers with it.
func TempNameOf(path string, pid int) string {
	o := tempOwner{localHost().id, pid, 0}
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	return stem + TempInfix + o.tempName("1f") + filepath.Ext(path)
}
