// Package memory says how much memory the machine has free for a run.
package memory

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Available reads MemAvailable from /proc/meminfo (Linux); ok is false elsewhere.
func Available() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// LimitHeap lowers the collector's soft limit to bytes (a run held to a memory budget), unless
// GOMEMLIMIT was set.
func LimitHeap(bytes int64) {
	if os.Getenv("GOMEMLIMIT") == "" && bytes > 0 {
		debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), bytes))
	}
}
