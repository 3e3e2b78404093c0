package laz

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestCPUTime reports the CPU time per point of a single-threaded decode
// (AIDW_LAZ_CPUTIME=1): unlike wall time it is barely affected by other
// load on the machine.
func TestCPUTime(t *testing.T) {
	if os.Getenv("AIDW_LAZ_CPUTIME") == "" {
		t.Skip("set AIDW_LAZ_CPUTIME=1")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, c := range []struct {
		name string
		sel  Fields
	}{{"autzen_trim.laz", Classification}, {"fullwave.laz", Classification}, {"fullwave.laz", AllFields}, {"1_4_w_evlr.laz", Classification}} {
		f, r := openLAZ(t, c.name)
		dst := make([]byte, int(f.count)*f.recLen)
		var ru0, ru1 syscall.Rusage
		reps := int(2e6/f.count) + 1
		syscall.Getrusage(syscall.RUSAGE_THREAD, &ru0)
		w0 := time.Now()
		for k := 0; k < reps; k++ {
			for i := range r.Chunks() {
				ch := r.Chunks()[i]
				if err := r.DecodeChunk(i, dst[ch.FirstPoint*uint64(f.recLen):], c.sel); err != nil {
					t.Fatal(err)
				}
			}
		}
		syscall.Getrusage(syscall.RUSAGE_THREAD, &ru1)
		cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
		pts := float64(reps) * float64(f.count)
		t.Logf("%s sel %#x: %.3f Mpoints/s per CPU second (%.0f ns/point CPU; wall %.3f Mpoints/s)", c.name, uint32(c.sel), pts/cpu.Seconds()/1e6, cpu.Seconds()/pts*1e9, pts/time.Since(w0).Seconds()/1e6)
	}
}
