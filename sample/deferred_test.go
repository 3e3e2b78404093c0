package sample

import (
	"context"
	"errors"
	"testing"
)

// listSink keeps what it takes, in windows of room samples of its own.
type listSink struct {
	form   Samples
	room   int
	got    Samples
	own    map[*Samples]bool
	closed bool
}

func (l *listSink) Next(full *Samples) (*Samples, error) {
	if full != nil {
		if !l.own[full] {
			return nil, errors.New("not my window")
		}
		l.got.QX, l.got.QY, l.got.Z = append(l.got.QX, full.QX...), append(l.got.QY, full.QY...), append(l.got.Z, full.Z...)
	}
	w := l.form
	w.Grow(l.room)
	w.Truncate(0)
	if l.own == nil {
		l.own = map[*Samples]bool{}
	}
	l.own[&w] = true
	return &w, nil
}

func (l *listSink) Len() int     { return l.got.Len() }
func (l *listSink) Close() error { l.closed = true; return nil }

// fill writes samples from..to-1 (quanta i and -i, value i/2) into the sink as lidar.Stream
// does, window by window, and hands over the last window. It stops at the first error.
func fill(s Sink, w *Samples, from, to int) (*Samples, error) {
	var err error
	for i := from; i < to; i++ {
		if w.Len() == cap(w.QX) {
			if w, err = s.Next(w); err != nil {
				return nil, err
			}
		}
		n := w.Len()
		w.Grow(1)
		w.QX[n], w.QY[n], w.Z[n] = int32(i), int32(-i), float64(i)/2
	}
	return w, nil
}

// A Deferred keeps the windows filled before its sink comes, hands them to it in order (in
// the sink's windows, whatever their room), then passes the reader the sink's own windows: the
// sink gets every sample once, in the order written.
func TestDeferredHandsOverInOrder(t *testing.T) {
	proto := &Samples{OriginX: 10, OriginY: 20, QuantumX: 0.01, QuantumY: 0.01}
	for _, c := range []struct {
		name          string
		room, window  int
		before, total int // samples written before the sink comes, in all
	}{
		{"sink windows smaller", 7, 5, 23, 61},
		{"sink windows larger", 12, 5, 15, 40},
		{"sink there at once", 7, 5, 0, 30},
		{"sink after the last window", 7, 5, 30, 30},
		{"many windows", 7, 5, 100, 20000},
	} {
		sink := &listSink{form: *proto, got: *proto, room: c.room}
		gate := make(chan struct{})
		d := deferIn(context.Background(), proto, 1000, c.window, func() (Sink, error) { <-gate; return sink, nil })
		if c.before == 0 {
			close(gate)
			<-d.ready
		}
		w, err := d.Next(nil)
		if err == nil {
			w, err = fill(d, w, 0, c.before)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.before > 0 && c.before < c.total {
			if d.Len() > c.before || sink.Len() != 0 {
				t.Fatalf("%s: %d samples taken before the sink came, %d written", c.name, d.Len(), c.before)
			}
			close(gate)
			<-d.ready
		}
		if w, err = fill(d, w, c.before, c.total); err == nil {
			_, err = d.Next(w)
		}
		if c.before == c.total {
			if sink.Len() != 0 {
				t.Fatalf("%s: the sink took samples before it came", c.name)
			}
			go close(gate)
		}
		var holder Sink
		if err == nil {
			holder, err = Flush(d)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if holder != sink || d.Len() != c.total || sink.Len() != c.total {
			t.Fatalf("%s: %d samples taken, the sink has %d, %d written", c.name, d.Len(), sink.Len(), c.total)
		}
		for i := range c.total {
			if sink.got.QX[i] != int32(i) || sink.got.QY[i] != int32(-i) || sink.got.Z[i] != float64(i)/2 {
				t.Fatalf("%s: sample %d is (%d, %d, %v)", c.name, i, sink.got.QX[i], sink.got.QY[i], sink.got.Z[i])
			}
		}
		if err := d.Close(); err != nil || !sink.closed {
			t.Fatalf("%s: Close: %v, sink closed %v", c.name, err, sink.closed)
		}
	}
}

// A Deferred keeps no more than it may before its sink comes: the reader then waits, and a
// cancelled run ends the wait. Close waits for the sink and closes it.
func TestDeferredWaitsWithinItsMemory(t *testing.T) {
	proto := &Samples{QuantumX: 1, QuantumY: 1}
	sink := &listSink{form: *proto, got: *proto, room: 4}
	gate := make(chan struct{})
	ctx, cancel := context.WithCancelCause(context.Background())
	d := deferIn(ctx, proto, 10, 5, func() (Sink, error) { <-gate; return sink, nil })
	w, err := d.Next(nil)
	if err == nil {
		w, err = fill(d, w, 0, 10) // two windows, both full: the most it keeps
	}
	if err != nil || d.Len() != 5 {
		t.Fatalf("%v, %d taken", err, d.Len())
	}
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := d.Next(w); !errors.Is(err, stop) {
		t.Fatalf("Next beyond the memory without a sink: %v, want the run's cause", err)
	}
	close(gate)
	if err := d.Close(); err != nil || !sink.closed {
		t.Fatalf("Close: %v, sink closed %v", err, sink.closed)
	}
}

// A sink that declines (nil, nil) makes Next and Flush fail with ErrNotTaken; one that fails
// makes them fail with its error.
func TestDeferredDeclined(t *testing.T) {
	proto := &Samples{QuantumX: 1, QuantumY: 1}
	failed := errors.New("no device")
	for _, c := range []struct {
		err, want error
	}{{nil, ErrNotTaken}, {failed, failed}} {
		d := deferIn(context.Background(), proto, 100, 5, func() (Sink, error) { return nil, c.err })
		<-d.ready
		if _, err := d.Next(nil); !errors.Is(err, c.want) {
			t.Errorf("Next: %v, want %v", err, c.want)
		}
		if _, err := Flush(d); !errors.Is(err, c.want) {
			t.Errorf("Flush: %v, want %v", err, c.want)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}
