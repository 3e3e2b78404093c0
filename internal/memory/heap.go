package memory

import (
	"os"
	"runtime/debug"
)

// LimitHeap lowers the collector's soft limit to bytes (a run held to a memory budget), unless
// GOMEMLIMIT was set.
func LimitHeap(bytes int64) {
	if os.Getenv("GOMEMLIMIT") == "" && bytes > 0 {
		debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), bytes))
	}
}
