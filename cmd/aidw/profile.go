package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile of the whole command into the file AIDW_CPUPROFILE names, so
// that a run on a host without Go (a GPU host, a cluster node) can be profiled with the binary
// users run; the returned stop writes it. Without the variable it does nothing.
func startProfile() (stop func(), err error) {
	path := os.Getenv("AIDW_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("AIDW_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("AIDW_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
