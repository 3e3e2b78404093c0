package gdalio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// WriteAtomic writes data to path through a temporary file beside it, renamed into place when
// complete, so that a failure leaves no partial file and an existing one untouched.
func WriteAtomic(path string, data []byte) error {
	return WriteAtomicFrom(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomicFrom is WriteAtomic of what write writes, which need not be in memory at once.
func WriteAtomicFrom(path string, write func(w io.Writer) error) error {
	tmp, err := reserve(path, filepath.Ext(path))
	if err != nil {
		return err
	}
	// the reserved file is private (0600); the finished one is readable as any output
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// RemoveStale removes the temporary files of path that writers on this host left when killed
// (their processes gone): a file too large to leave lying about, written before a run's
// output, is cleaned up by the next run as a raster's temporaries are.
func RemoveStale(path string) { removeStale(path) }

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
	return stem + tempInfix + o.tempName("1f") + filepath.Ext(path)
}
