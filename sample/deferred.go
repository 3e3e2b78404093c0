package sample

import (
	"context"
	"errors"
	"sync"
)

// ErrNotTaken says that the sink a Deferred waited for declined the samples: the reader should
// read them into memory instead.
var ErrNotTaken = errors.New("the samples were not taken as they were read")

// deferredWindow is a Deferred's window, 4 Mi samples as a GPU's (64 MiB compact).
const deferredWindow = 1 << 22

// compactBytes is a compact sample's size: two int32 quanta and a float64 value.
const compactBytes = 16

// Defer is a sink that takes samples before the sink they are meant for exists: a GPU's needs
// its driver and context, which take 0.4-1.3 s to start, and the reader need not wait for them.
// sink runs on a goroutine of its own from the start. Until it returns, the Deferred keeps the
// full windows in host memory, at most most bytes of them (then the reader waits, or stops
// when ctx is done). At the reader's first Next after that, the Deferred copies the kept
// windows into the sink's, in order, and the reader fills the sink's own windows from then
// on. When sink returns no sink and no error, Next and Flush fail with ErrNotTaken. proto
// gives the windows' compact form and origin.
func Defer(ctx context.Context, proto *Samples, most int64, sink func() (Sink, error)) Sink {
	return deferIn(ctx, proto, int(most/compactBytes), deferredWindow, sink)
}

// deferIn is Defer keeping at most most samples, in windows of window samples.
func deferIn(ctx context.Context, proto *Samples, most, window int, sink func() (Sink, error)) *deferred {
	d := &deferred{ctx: ctx, most: most, window: window, ready: make(chan struct{}),
		form: Samples{OriginX: proto.OriginX, OriginY: proto.OriginY, QuantumX: proto.QuantumX, QuantumY: proto.QuantumY}}
	go func() {
		d.sink, d.err = sink()
		if d.sink == nil && d.err == nil {
			d.err = ErrNotTaken
		}
		close(d.ready)
	}()
	return d
}

type deferred struct {
	ctx    context.Context
	form   Samples
	most   int           // samples it keeps at most
	window int           // the samples of a window of its own
	ready  chan struct{} // closed once sink and err are set
	sink   Sink
	err    error
	kept   []*Samples // full windows, for the sink
	taken  int        // the samples the reader handed over
	given  *Samples   // the window of its own the reader fills
	past   bool       // the kept windows went to the sink, which gives the reader its windows
}

// Next implements Sink.
func (d *deferred) Next(full *Samples) (*Samples, error) {
	if d.past {
		return d.sink.Next(full)
	}
	if full != nil {
		if full != d.given {
			return nil, errors.New("sample: a window that is not the one handed out")
		}
		d.kept = append(d.kept, full)
		d.taken += full.Len()
	}
	d.given = nil
	if !d.isReady() {
		if d.taken+d.window <= d.most || len(d.kept) == 0 {
			w := d.form
			w.Grow(d.window)
			w.Truncate(0)
			d.given = &w
			return &w, nil
		}
		if err := d.wait(); err != nil {
			return nil, err
		}
	}
	return d.handOver()
}

// isReady says whether sink returned.
func (d *deferred) isReady() bool {
	select {
	case <-d.ready:
		return true
	default:
		return false
	}
}

// wait waits until sink returns, within ctx.
func (d *deferred) wait() error {
	select {
	case <-d.ready:
		return nil
	case <-d.ctx.Done():
		return context.Cause(d.ctx)
	}
}

// handOver copies the kept windows into the sink's, hands the sink the last one it filled,
// and returns the sink's next, empty: from then on the reader fills the sink's windows. The
// reader waits meanwhile: a copier beside it let the reader run ahead, so that every window
// was copied, and the survey's run was slower (bench/results/gpu-survey-h200.md).
func (d *deferred) handOver() (*Samples, error) {
	if d.err != nil {
		return nil, d.err
	}
	w, err := d.sink.Next(nil)
	for _, k := range d.kept {
		if err == nil {
			w, err = d.copyTo(w, k)
		}
	}
	if err == nil && w.Len() > 0 {
		w, err = d.sink.Next(w)
	}
	d.kept, d.past = nil, err == nil
	return w, err
}

// copyTo copies k's samples into the sink's windows from w on, and returns the window it
// leaves part filled.
func (d *deferred) copyTo(w, k *Samples) (*Samples, error) {
	for at := 0; at < k.Len(); {
		n := min(k.Len()-at, cap(w.QX)-w.Len())
		if n == 0 {
			if w.Len() == 0 {
				return nil, errors.New("sample: a sink's window has no room")
			}
			var err error
			if w, err = d.sink.Next(w); err != nil {
				return nil, err
			}
			continue
		}
		to := w.Len()
		w.Grow(n)
		copyParallel(w.QX[to:], k.QX[at:at+n])
		copyParallel(w.QY[to:], k.QY[at:at+n])
		copyParallel(w.Z[to:], k.Z[at:at+n])
		at += n
	}
	return w, nil
}

// copyParallel copies src to dst on several goroutines: a window is 64 MiB, which one core
// copies in about 10 ms.
func copyParallel[T any](dst, src []T) {
	const part = 1 << 18
	var wg sync.WaitGroup
	for lo := 0; lo < len(src); lo += part {
		hi := min(lo+part, len(src))
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
}

// Flush is what holds the samples that the reader handed s, once it handed its last window:
// s, or for a Deferred the sink it deferred to, which it waits for (within ctx) and hands
// what it kept. Its error is the Deferred's, ErrNotTaken included.
func Flush(s Sink) (Sink, error) {
	d, ok := s.(*deferred)
	if !ok {
		return s, nil
	}
	if d.past {
		return d.sink, nil
	}
	if err := d.wait(); err != nil {
		return nil, err
	}
	if _, err := d.handOver(); err != nil {
		return nil, err
	}
	return d.sink, nil
}

// Len implements Sink: the samples the reader handed over.
func (d *deferred) Len() int {
	if d.past {
		return d.sink.Len()
	}
	return d.taken
}

// Close implements Sink: it waits for the sink, to close it.
func (d *deferred) Close() error {
	<-d.ready
	d.kept, d.given = nil, nil
	if d.sink == nil {
		return nil
	}
	return d.sink.Close()
}
