//go:build cuda

package cuda

import (
	"fmt"
	"time"
)

// Stage is a timed part of a timeline.
type Stage struct {
	Name    string
	Elapsed time.Duration
}

// Timeline records CUDA events on the default stream between named stages.
type Timeline struct {
	events []Event
	names  []string
}

// StartTimeline records the start event (device thread only). Destroy it when done, even
// after an error.
func StartTimeline() (*Timeline, error) {
	t := &Timeline{}
	return t, t.Mark("")
}

// Mark ends the stage called name (device thread only).
func (t *Timeline) Mark(name string) error {
	e, err := NewEvent(true)
	if err != nil {
		return fmt.Errorf("creating a CUDA event: %w", err)
	}
	t.events = append(t.events, e)
	t.names = append(t.names, name)
	if err := e.Record(); err != nil {
		return fmt.Errorf("recording a CUDA event: %w", err)
	}
	return nil
}

// Finish waits for the last event and returns the stages and their total; it also reports the
// first error of the kernels launched (device thread only).
func (t *Timeline) Finish() ([]Stage, time.Duration, error) {
	last := len(t.events) - 1
	if err := t.events[last].Synchronize(); err != nil {
		return nil, 0, fmt.Errorf("waiting for the device: %w", err)
	}
	if err := Synchronize("running the kernels"); err != nil {
		return nil, 0, err
	}
	var stages []Stage
	var total time.Duration
	for i := 1; i <= last; i++ {
		ms, err := t.events[i-1].Elapsed(t.events[i])
		if err != nil {
			return nil, 0, err
		}
		stages = append(stages, Stage{Name: t.names[i], Elapsed: time.Duration(ms * 1e6)})
		total += time.Duration(ms * 1e6)
	}
	return stages, total, nil
}

// Destroy releases the events (device thread only).
func (t *Timeline) Destroy() {
	for _, e := range t.events {
		e.Destroy()
	}
}

// MedianTime runs f once to warm up, then reps times between two events, and returns the
// median (device thread only).
func MedianTime(reps int, f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, max(reps, 1))
	for i := range times {
		tl, err := StartTimeline()
		if err == nil {
			if err = f(); err == nil {
				err = tl.Mark("run")
			}
		}
		var total time.Duration
		if err == nil {
			_, total, err = tl.Finish()
		}
		tl.Destroy()
		if err != nil {
			return 0, err
		}
		times[i] = total
	}
	for i := 1; i < len(times); i++ { // insertion sort: a handful of values
		for j := i; j > 0 && times[j] < times[j-1]; j-- {
			times[j], times[j-1] = times[j-1], times[j]
		}
	}
	return times[len(times)/2], nil
}
