// Package memory finds how much memory this process may take: the tightest of the machine's
// free memory, the memory cgroup it runs in (v2 memory.max, v1 memory.limit_in_bytes: every
// Kubernetes pod with a limit, Slurm's --mem, docker and podman --memory) and GOMEMLIMIT.
// A budget taken from /proc/meminfo alone is the whole machine's, and a process over its
// cgroup's limit is killed with no message. It also holds a run's big arrays outside the
// Go heap (Arena), for a process that frees them on several threads before it exits.
package memory

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/aidw/aidw/internal/bytesize"
)

// Limit is the memory available to this process and what set it.
type Limit struct {
	Bytes int64
	// Source names the bound: "/proc/meminfo", "cgroup v2 memory.max (<dir>)", "cgroup v1
	// memory.limit_in_bytes (<dir>)" or "GOMEMLIMIT".
	Source string
}

func (l Limit) String() string {
	return fmt.Sprintf("%s available under %s", bytesize.Text(float64(l.Bytes)), l.Source)
}

// System is where the bounds are read from: Root is prefixed to /proc and to the cgroup
// mounts (tests give a folder of fake files), GoLimit is GOMEMLIMIT's bound in bytes (0 when
// unset).
type System struct {
	Root    string
	GoLimit int64
}

// Available is the memory this process may take now; ok is false where no bound can be read
// (not Linux, and no GOMEMLIMIT).
func Available() (Limit, bool) {
	sys := System{Root: "/"}
	if os.Getenv("GOMEMLIMIT") != "" {
		sys.GoLimit = debug.SetMemoryLimit(-1) // the runtime parsed it
	}
	return sys.Available()
}

// Available is the tightest bound of sys.
func (sys System) Available() (Limit, bool) {
	best := Limit{Bytes: math.MaxInt64}
	take := func(b int64, source string) {
		if b >= 0 && b < best.Bytes {
			best = Limit{b, source}
		}
	}
	if b, ok := sys.memAvailable(); ok {
		take(b, "/proc/meminfo")
	}
	for _, c := range sys.cgroups() {
		take(c.Bytes, c.Source)
	}
	if sys.GoLimit > 0 && sys.GoLimit < math.MaxInt64 {
		take(sys.GoLimit, "GOMEMLIMIT")
	}
	return best, best.Bytes < math.MaxInt64
}

func (sys System) path(p string) string { return filepath.Join(sys.Root, p) }

// memAvailable reads MemAvailable from /proc/meminfo.
func (sys System) memAvailable() (int64, bool) {
	kb, ok := statValue(sys.path("/proc/meminfo"), "MemAvailable:")
	return kb << 10, ok
}

// controller is how one cgroup version names its limit, usage and reclaimable page cache.
type controller struct {
	version, limit, usage, inactive string
}

var (
	v2 = controller{"cgroup v2", "memory.max", "memory.current", "inactive_file"}
	v1 = controller{"cgroup v1", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}
)

// cgroups is the memory left under each limited cgroup this process is in, its own and its
// ancestors' (a limit of a parent binds its children): the limit less the usage, less the
// page cache the kernel can drop.
func (sys System) cgroups() []Limit {
	var out []Limit
	for _, m := range sys.memoryMounts() {
		dir := m.dir
		for {
			if l, ok := m.ctl.left(dir); ok {
				out = append(out, l)
			}
			if dir == m.top {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	return out
}

// left reads one cgroup folder's limit; ok is false when it sets none.
func (c controller) left(dir string) (Limit, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, c.limit))
	if err != nil {
		return Limit{}, false
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || limit >= 1<<62 { // "max", or v1's unlimited 9223372036854771712
		return Limit{}, false
	}
	used := int64(0)
	if raw, err := os.ReadFile(filepath.Join(dir, c.usage)); err == nil {
		used, _ = strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	}
	if cache, ok := statValue(filepath.Join(dir, "memory.stat"), c.inactive); ok {
		used -= min(cache, used)
	}
	return Limit{max(limit-used, 0), fmt.Sprintf("%s %s (%s)", c.version, c.limit, dir)}, true
}

// mount is the folder of this process's memory cgroup in one hierarchy, the top folder of
// that hierarchy's mount, and the hierarchy's controller.
type mount struct {
	dir, top string
	ctl      controller
}

// memoryMounts finds this process's memory cgroups from /proc/self/cgroup and the mounts of
// /proc/self/mountinfo (both hierarchies at once on a hybrid host).
func (sys System) memoryMounts() []mount {
	groups := map[controller]string{}
	f, err := os.Open(sys.path("/proc/self/cgroup"))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		switch {
		case len(parts) < 3:
		case parts[0] == "0" && parts[1] == "":
			groups[v2] = parts[2]
		case hasWord(parts[1], "memory"):
			groups[v1] = parts[2]
		}
	}
	mi, err := os.Open(sys.path("/proc/self/mountinfo"))
	if err != nil {
		return nil
	}
	defer mi.Close()
	var out []mount
	sc = bufio.NewScanner(mi)
	for sc.Scan() {
		// id parent major:minor root mount-point options [optional...] - fstype source super-options
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		ctl := v2
		switch {
		case g[0] == "cgroup2":
		case g[0] == "cgroup" && hasWord(g[2], "memory"):
			ctl = v1
		default:
			continue
		}
		group, ok := groups[ctl]
		if !ok {
			continue
		}
		top := sys.path(f[4])
		// the cgroup's path is relative to the hierarchy's root; a mount of a subtree (a
		// container's own cgroup) holds the path below the mount's root, and a container
		// that sees its host's path but not its cgroup's parents has its cgroup at the top
		rel, ok := strings.CutPrefix(group, f[3])
		if !ok {
			rel = "/"
		}
		dir := filepath.Join(top, rel)
		if _, err := os.Stat(dir); err != nil {
			dir = top
		}
		out = append(out, mount{dir, top, ctl})
	}
	return out
}

func hasWord(list, word string) bool {
	for w := range strings.SplitSeq(list, ",") {
		if w == word {
			return true
		}
	}
	return false
}

// statValue reads the number after key in a file of "key value" lines.
func statValue(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == key {
			v, err := strconv.ParseInt(fields[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
