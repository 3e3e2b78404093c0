//go:build cuda

package kernels

import (
	"cmp"
	"errors"
	"fmt"
	"sync"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/sample"
)

// Take implements interp.Taker: the GPU takes the samples as they are read.
func (e *Engine) Take(a interp.Algorithm, proto *sample.Samples, n int) (sample.Sink, error) {
	return e.TakeTogether([]interp.Engine{e}, a, proto, n)
}

// TakeTogether implements interp's groupTaker: every GPU of the group takes each window of
// samples from the same pinned host memory as the reader fills the next, so the upload
// overlaps the reading and the host holds a few windows, never the samples. The GPUs keep the
// samples as read (their quanta), and each turns them into coordinates relative to the
// problem's origin when it prepares it (held.coords). nil when an engine of the group is not
// a GPU engine or its form of a needs the samples in canonical order, which a stream cannot
// give.
func (e *Engine) TakeTogether(group []interp.Engine, a interp.Algorithm, proto *sample.Samples, n int) (sample.Sink, error) {
	h := &held{form: sample.Samples{OriginX: proto.OriginX, OriginY: proto.OriginY, QuantumX: proto.QuantumX,
		QuantumY: proto.QuantumY}, room: n, window: cmp.Or(e.takeWindow, heldWindow)}
	for _, g := range group {
		ge, ok := g.(*Engine)
		if !ok || !ge.OrdersCompact(a) || !proto.IsCompact() {
			return nil, nil
		}
		h.gpus = append(h.gpus, ge)
	}
	h.parts = make([]heldPart, len(h.gpus))
	err := h.each(h.allocPart)
	if err == nil {
		err = h.gpus[0].dev.Do(h.allocWindows)
	}
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("gpu: taking %d samples: %w", n, err)
	}
	return h, nil
}

// heldWindow is the samples of 4 Mi points, 64 MiB: large enough that a copy runs at the bus's
// speed and costs little to start, small enough that a window decodes in milliseconds.
const heldWindow = 1 << 22

// heldWindows is how many windows rotate: the reader fills one while the GPUs copy the others.
// Sixteen made the survey's run 0.5-1.1 s slower on two H200 (their pinned memory costs time
// to allocate).
const heldWindows = 4

// held is the samples that a group of GPUs took as they were read (interp.Taker).
type held struct {
	gpus   []*Engine
	form   sample.Samples // the samples' form and origin, no arrays
	room   int
	taken  int
	window int        // a window's samples
	parts  []heldPart // each GPU's
	// the windows, pinned, that the reader fills in turn
	windows [heldWindows]window
	turn    int // the window the reader fills
	closed  bool
}

// heldPart is one GPU's copy of the samples, their quanta and values until it prepares them,
// and the events it records after its copies of each window.
type heldPart struct {
	qx, qy, z buf
	copied    []cuda.Event
}

// window is one window of samples in pinned host memory.
type window struct {
	s    *sample.Samples
	busy bool // copies from it were issued since the reader last had it
}

// allocPart allocates GPU i's samples and its events of the windows (its thread).
func (h *held) allocPart(i int, _ *cuda.Device) error {
	p := &h.parts[i]
	var err error
	for _, b := range []*buf{&p.qx, &p.qy} {
		if *b, err = cuda.AllocN[int32](h.room); err != nil {
			return err
		}
	}
	if p.z, err = cuda.AllocN[float64](h.room); err != nil {
		return err
	}
	p.copied = make([]cuda.Event, len(h.windows))
	for k := range p.copied {
		if p.copied[k], err = cuda.NewEvent(false); err != nil {
			return err
		}
	}
	return nil
}

// allocWindows allocates the windows (the first GPU's thread).
func (h *held) allocWindows() error {
	for k := range h.windows {
		w := &h.windows[k]
		s := h.form
		var err error
		if s.QX, err = cuda.HostAlloc[int32](h.window); err == nil {
			if s.QY, err = cuda.HostAlloc[int32](h.window); err == nil {
				s.Z, err = cuda.HostAlloc[float64](h.window)
			}
		}
		w.s = &s
		if err != nil {
			return err
		}
		s.Truncate(0)
	}
	return nil
}

// each runs f on every GPU's thread at once, and joins their errors.
func (h *held) each(f func(i int, d *cuda.Device) error) error {
	errs := make([]error, len(h.gpus))
	var wg sync.WaitGroup
	for i, g := range h.gpus {
		wg.Go(func() { errs[i] = g.dev.Do(func() error { return f(i, g.dev) }) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Next implements sample.Sink: every GPU starts copying the full window to its samples' end,
// and the reader gets the next window once the copies from it are done.
func (h *held) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		t := h.turn
		w := &h.windows[t]
		if full != w.s {
			return nil, errors.New("gpu: a window that is not the one handed out")
		}
		k := full.Len()
		if h.taken+k > h.room {
			return nil, fmt.Errorf("gpu: more samples than the %d the inputs declare", h.room)
		}
		err := h.each(func(i int, d *cuda.Device) error {
			p := h.parts[i]
			if err := cuda.UploadAsync(d, p.qx, h.taken, full.QX, p.copied[t]); err != nil {
				return err
			}
			if err := cuda.UploadAsync(d, p.qy, h.taken, full.QY, p.copied[t]); err != nil {
				return err
			}
			return cuda.UploadAsync(d, p.z, h.taken, full.Z, p.copied[t])
		})
		if err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		w.busy = true
		h.taken += k
		h.turn = (h.turn + 1) % heldWindows
	}
	w := &h.windows[h.turn]
	if err := h.settle(h.turn); err != nil {
		return nil, err
	}
	w.s.Truncate(0)
	return w.s, nil
}

// settle waits until every GPU has copied window t.
func (h *held) settle(t int) error {
	w := &h.windows[t]
	if !w.busy {
		return nil
	}
	if err := h.each(func(i int, _ *cuda.Device) error { return h.parts[i].copied[t].Synchronize() }); err != nil {
		return fmt.Errorf("gpu: copying samples: %w", err)
	}
	w.busy = false
	return nil
}

// Len implements sample.Sink.
func (h *held) Len() int { return h.taken }

// Close implements sample.Sink: it frees the windows and what no GPU prepared.
func (h *held) Close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	for k := range h.windows {
		errs = append(errs, h.settle(k))
	}
	errs = append(errs, h.gpus[0].dev.Do(func() error {
		for _, w := range h.windows {
			if w.s != nil {
				cuda.HostFree(w.s.QX[:cap(w.s.QX)])
				cuda.HostFree(w.s.QY[:cap(w.s.QY)])
				cuda.HostFree(w.s.Z[:cap(w.s.Z)])
			}
		}
		return nil
	}))
	errs = append(errs, h.each(func(i int, _ *cuda.Device) error {
		p := &h.parts[i]
		cuda.FreeAll(&p.qx, &p.qy, &p.z)
		for _, e := range p.copied {
			e.Destroy()
		}
		return nil
	}))
	return errors.Join(errs...)
}

// coords takes engine e's copy of the samples as coordinates and values relative to s's
// origin, moved by whole quanta from the origin they were read at as sample.Samples.MoveOrigin
// moves compact samples (device thread only): the caller frees x, y and z.
func (h *held) coords(e *Engine, s *sample.Samples) (x, y, z buf, err error) {
	i := -1
	for k, g := range h.gpus {
		if g == e {
			i = k
		}
	}
	if i < 0 || s.QuantumX != h.form.QuantumX || s.QuantumY != h.form.QuantumY {
		return buf{}, buf{}, buf{}, errors.New("the samples are held by another engine, or in another form")
	}
	p := &h.parts[i]
	if p.qx.Ptr == 0 {
		return buf{}, buf{}, buf{}, errors.New("the held samples were prepared once already")
	}
	shift := func(from, to, q float64) int64 {
		a, _ := sample.LatticePoint(from, q)
		b, _ := sample.LatticePoint(to, q)
		return a - b
	}
	n := h.taken
	for _, c := range []struct {
		q       *buf
		shift   int64
		quantum float64
		out     *buf
	}{{&p.qx, shift(h.form.OriginX, s.OriginX, s.QuantumX), s.QuantumX, &x},
		{&p.qy, shift(h.form.OriginY, s.OriginY, s.QuantumY), s.QuantumY, &y}} {
		if *c.out, err = cuda.AllocN[float64](n); err == nil {
			err = quantaCoords(e.dev, *c.q, c.shift, c.quantum, n, *c.out)
		}
		if err == nil {
			err = cuda.Synchronize("turning quanta into coordinates")
		}
		if err != nil {
			cuda.FreeAll(&x, &y)
			return buf{}, buf{}, buf{}, err
		}
		c.q.Free()
	}
	z, p.z = p.z, buf{}
	return x, y, z, nil
}
