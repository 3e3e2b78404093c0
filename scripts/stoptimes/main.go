// Command stoptimes measures how long a command takes to stop after SIGINT sent at given
// moments of its run: for each moment it starts the command afresh in an empty working
// directory, signals it, and prints the moment, the stop time, the CPU time the command spent
// after the signal (user: its own work; system: with the kernel's freeing of its memory at the
// exit), the exit status and whatever the command left in that directory (an interrupted run
// must leave nothing).
//
//	go run ./scripts/stoptimes -at 0.5,1,2,4 -- aidw grid -a aidw ... /abs/in.las out.tif
//
// With -stacks it sends SIGQUIT instead and prints the goroutines that run Go code, to see
// where a slow phase spends its time.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	at := flag.String("at", "1", "comma-separated seconds after the start at which to signal")
	stacks := flag.Bool("stacks", false, "send SIGQUIT and print the running goroutines' stacks")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: stoptimes -at 1,2 -- command args...")
		os.Exit(2)
	}
	for _, s := range strings.Split(*at, ",") {
		after, err := strconv.ParseFloat(s, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "-at %q: %v\n", s, err)
			os.Exit(2)
		}
		if err := once(time.Duration(after*float64(time.Second)), *stacks, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// once runs args in a fresh directory, signals it after the given time, and reports.
func once(after time.Duration, stacks bool, args []string) error {
	dir, err := os.MkdirTemp("", "stoptimes")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
		fmt.Printf("at %5.2f s: finished first (exit %d)\n", after.Seconds(), cmd.ProcessState.ExitCode())
		return nil
	case <-time.After(after):
	}
	sig := syscall.SIGINT
	if stacks {
		sig = syscall.SIGQUIT
	}
	user0, sys0 := cpuTimes(cmd.Process.Pid)
	sent := time.Now()
	cmd.Process.Signal(sig)
	<-exited
	took := time.Since(sent)
	user, sys := cmd.ProcessState.UserTime()-user0, cmd.ProcessState.SystemTime()-sys0
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	fmt.Printf("at %5.2f s: stopped in %6.3f s (CPU after the signal: user %.2f s, system %.2f s), exit %d, left %v\n",
		after.Seconds(), took.Seconds(), user.Seconds(), sys.Seconds(), cmd.ProcessState.ExitCode(), left)
	if stacks {
		fmt.Println(running(stderr.String()))
	}
	return nil
}

// cpuTimes is the user and system CPU time of process pid so far, from /proc (in clock ticks
// of 10 ms): what the process spends after the signal is the total at its exit less these.
// The user time is its own work, which load does not stretch; the system time includes the
// kernel's freeing of its memory at the exit.
func cpuTimes(pid int) (user, sys time.Duration) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// the fields after the command's name, in parentheses: utime and stime are the 12th and 13th
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, 0
	}
	u, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(u) * 10 * time.Millisecond, time.Duration(st) * 10 * time.Millisecond
}

// running summarises a SIGQUIT dump: for each goroutine that is running or runnable, its
// innermost frames outside the runtime, counted.
func running(dump string) string {
	count := map[string]int{}
	var order []string
	for _, g := range strings.Split(dump, "\n\n") {
		if !strings.Contains(g, "[running]") && !strings.Contains(g, "[runnable]") {
			continue
		}
		var frames []string
		for _, line := range strings.Split(g, "\n") {
			if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "runtime.") || line == "" {
				continue
			}
			if i := strings.LastIndex(line, "("); i > 0 && len(frames) < 3 {
				f := line[:i]
				frames = append(frames, f)
			}
		}
		key := strings.Join(frames, " < ")
		if count[key] == 0 {
			order = append(order, key)
		}
		count[key]++
	}
	var b strings.Builder
	for _, k := range order {
		fmt.Fprintf(&b, "  %dx %s\n", count[k], k)
	}
	return b.String()
}
