package testload

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Busy threads, twice as many as the cores, make the contention measured grow: a factor of at
// least 1.5 where an idle machine gives 1 (a machine already busy gives more either way).
func TestContentionGrowsUnderLoad(t *testing.T) {
	idle := Contention()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					for range 100000 {
					}
				}
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	busy := Contention()
	close(stop)
	wg.Wait()
	t.Logf("contention %.2f idle, %.2f with %d busy threads", idle, busy, 2*runtime.NumCPU())
	if busy < 1.5 {
		t.Errorf("contention %.2f with twice as many busy threads as cores, want at least 1.5", busy)
	}
	if Bound(time.Second, busy) < time.Duration(1.5*float64(time.Second)) {
		t.Errorf("Bound(1 s) %v under load, want at least 1.5 s", Bound(time.Second, busy))
	}
}
