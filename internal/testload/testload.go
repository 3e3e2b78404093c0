// Package testload scales the latency bounds of tests (how soon an interrupt stops a run) to
// how busy the machine is, so that a bound that holds on an idle machine also holds on a
// loaded one without being loosened for everyone: a thread's wall time over its CPU time
// measures the share of a core it gets now, and AIDW_TEST_SLOWDOWN (a factor, default 1)
// scales further where a machine is slow for other reasons (a sanitizer, an emulator).
package testload

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// spin is the CPU time of one measurement of the machine's load.
const spin = 30 * time.Millisecond

// Scale returns d times AIDW_TEST_SLOWDOWN: a bound on CPU time, which load does not stretch.
func Scale(d time.Duration) time.Duration { return time.Duration(float64(d) * slowdown()) }

// slowdown is AIDW_TEST_SLOWDOWN, at least 1.
func slowdown() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("AIDW_TEST_SLOWDOWN"), 64); err == nil && v > 1 {
		return v
	}
	return 1
}

// Factor returns how many times longer than on an idle machine work takes now (at least 1):
// AIDW_TEST_SLOWDOWN times the wall time a thread takes to get spin of CPU time over spin.
func Factor() float64 {
	return slowdown() * Contention()
}

// Contention returns the wall time over the CPU time of a thread that spins for spin of CPU
// time: 1 on an idle machine, about (busy threads) / (cores) on a loaded one.
func Contention() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, wall0 := threadCPU(), time.Now()
	x := 1.0
	for threadCPU()-cpu0 < spin {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	cpu, wall := threadCPU()-cpu0, time.Since(wall0)
	if x == 0 { // keeps the loop
		return 0
	}
	return max(1, float64(wall)/float64(cpu))
}

// threadCPU is the calling thread's CPU time (user and system).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Bound returns d scaled by Factor, measured before and after the event it bounds: the larger
// of before (measured by the caller, e.g. just before a signal) and a measurement now.
func Bound(d time.Duration, before float64) time.Duration {
	return time.Duration(float64(d) * max(before, Factor()))
}

// DoneAt returns a context that is done (Err, not Done) from its n-th look on, never when n
// is 0: a run that an interrupt stops while it is inside a long piece of work, between two
// looks, so that a test can check how much work it does after one, by counting what it
// finished, and how often it looks (Looks).
func DoneAt(n int) *Looking {
	return &Looking{Context: context.Background(), at: int64(n)}
}

// Looking is DoneAt's context.
type Looking struct {
	context.Context
	looks atomic.Int64
	at    int64
}

func (c *Looking) Err() error {
	if n := c.looks.Add(1); c.at > 0 && n >= c.at {
		return context.Canceled
	}
	return nil
}

// Looks is how many times the context was looked at.
func (c *Looking) Looks() int { return int(c.looks.Load()) }
