package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSystem writes files under a fresh root: each key a path, each value its content.
func fakeSystem(t *testing.T, files map[string]string) System {
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return System{Root: root}
}

const (
	gib     = 1 << 30
	meminfo = "MemTotal:       24000000 kB\nMemAvailable:   20971520 kB\n" // 20 GiB free
	// a hybrid host as this project's CI machine: v1 memory controller and a v2 mount
	hybridMounts = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
		"35 31 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"40 31 0:36 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	v2Mounts = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
)

func TestAvailableTakesTheTightestBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		files  map[string]string
		goLim  int64
		want   int64
		source string // a part of the source named
	}{
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, 0, 20 * gib, "/proc/meminfo"},
		{"v2 leaf unlimited, its parent limited (systemd-run -p MemoryMax)", map[string]string{
			"proc/meminfo":        meminfo,
			"proc/self/cgroup":    "0::/system.slice/run-1.scope/sub\n",
			"proc/self/mountinfo": v2Mounts,
			"sys/fs/cgroup/system.slice/run-1.scope/sub/memory.max": "max\n",
			"sys/fs/cgroup/system.slice/run-1.scope/memory.max":     "1610612736\n",
			"sys/fs/cgroup/system.slice/run-1.scope/memory.current": "536870912\n",
			"sys/fs/cgroup/system.slice/run-1.scope/memory.stat":    "anon 100\ninactive_file 268435456\n",
			"sys/fs/cgroup/system.slice/memory.max":                 "max\n",
		}, 0, 1610612736 - 536870912 + 268435456, "cgroup v2 memory.max"},
		{"v1 on a hybrid host", map[string]string{
			"proc/meminfo":        meminfo,
			"proc/self/cgroup":    "9:name=systemd:/\n4:memory:/aidw/job\n0::/\n",
			"proc/self/mountinfo": hybridMounts,
			"sys/fs/cgroup/memory/memory.limit_in_bytes":          "9223372036854771712\n",
			"sys/fs/cgroup/memory/aidw/job/memory.limit_in_bytes": "1610612736\n",
			"sys/fs/cgroup/memory/aidw/job/memory.usage_in_bytes": "0\n",
		}, 0, 1610612736, "cgroup v1 memory.limit_in_bytes"},
		{"a container's cgroup mounted as its top (host path not below the mount's root)", map[string]string{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         "0::/kubepods/burstable/pod1/c1\n",
			"proc/self/mountinfo":      "30 23 0:26 /kubepods/burstable/pod9/c9 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, 0, 2 * gib, "cgroup v2 memory.max"},
		{"GOMEMLIMIT tighter than the cgroup", map[string]string{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      v2Mounts,
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, gib, gib, "GOMEMLIMIT"},
		{"a cgroup limit above the free memory", map[string]string{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      v2Mounts,
			"sys/fs/cgroup/memory.max": "64424509440\n",
		}, 0, 20 * gib, "/proc/meminfo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys := fakeSystem(t, c.files)
			sys.GoLimit = c.goLim
			got, ok := sys.Available()
			if !ok || got.Bytes != c.want || !strings.Contains(got.Source, c.source) {
				t.Fatalf("Available() = %+v, %v; want %d bytes from %s", got, ok, c.want, c.source)
			}
		})
	}
}

func TestAvailableWithNothingToRead(t *testing.T) {
	if got, ok := (System{Root: t.TempDir()}).Available(); ok {
		t.Fatalf("Available() = %+v with no files; want none", got)
	}
}
