//go:build cuda

package kernels

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/sample"
)

// Together implements interp's together: GPU engines that prepare one problem (interp.Multi)
// each take a slice of its samples across the host's memory, all at once, and copy the others'
// slices GPU to GPU (NVLink or PCIe peer to peer) before each builds its own index from them,
// as from the host. Host memory then sends 1e9 samples' 16 GB once, over every GPU's link at
// once: each of four H200 indexed them in 0.67-0.74 s, where it took 1.49 s with every GPU
// taking all from the host, and 1.02 s for the first and 1.20-1.26 s for the others copying
// the first's (0.74 s for one GPU alone). nil when an engine is not a GPU engine, a GPU cannot
// reach another's memory, or the samples are too few to gain (sharedSamples).
func (e *Engine) Together(group []interp.Engine, p *interp.Problem) func(ctx context.Context, i int) (interp.Prepared, error) {
	least := cmp.Or(e.shareFrom, sharedSamples)
	n := p.Samples.Len()
	if n < least || p.Held != nil { // held samples are on every GPU already
		return nil
	}
	gpus := make([]*Engine, len(group))
	for i, g := range group {
		ge, ok := g.(*Engine)
		if !ok {
			return nil
		}
		gpus[i] = ge
	}
	for _, a := range gpus {
		for _, b := range gpus {
			if !a.dev.CanCopyFrom(b.dev) {
				return nil
			}
		}
	}
	slices := make([]*upload, len(gpus))
	for i := range slices {
		slices[i] = &upload{lo: i * n / len(gpus), hi: (i + 1) * n / len(gpus), ready: make(chan struct{}),
			freed: make(chan struct{})}
		slices[i].taken.Add(len(gpus) - 1)
	}
	return func(ctx context.Context, i int) (interp.Prepared, error) {
		sh := &sharing{slices: slices, own: i, left: make([]bool, len(slices))}
		defer sh.done()
		return gpus[i].prepare(ctx, p, sh)
	}
}

// sharedSamples is the fewest samples whose upload a group shares: 1 GiB of coordinates and
// values on a GPU. Fewer cross the bus in tens of milliseconds, less than the peer access
// costs to set up (global AIDW of 1,024,000 samples on two H200 took 0.84-0.91 s shared,
// 0.79 s each from the host).
const sharedSamples = (1 << 30) / 24

// upload is one engine's slice of a group's samples, lo..hi-1, in place in its GPU's buffers
// of every sample, for the others to copy.
type upload struct {
	lo, hi  int
	ready   chan struct{} // closed once the slice is on its GPU, or that failed
	dev     *cuda.Device
	x, y, z buf
	err     error
	taken   sync.WaitGroup // the others' copies of the slice, done or given up
	freed   chan struct{}  // closed once the GPU's samples are freed, or were never there
}

// sharing is one engine's part in a group's upload: its own slice, and the others' it copies.
type sharing struct {
	slices []*upload
	own    int
	left   []bool // the slices it is done with (upload.taken), its own aside
	once   sync.Once
}

// samples returns the samples of s on device d (device thread only): uploaded from the host
// by an engine alone (sh nil), else its own slice uploaded and the others' copied from their
// GPUs.
func (sh *sharing) samples(d *cuda.Device, s *sample.Samples) (x, y, z buf, err error) {
	if sh == nil {
		return uploadSamples(d, s)
	}
	own := sh.slices[sh.own]
	if x, y, z, err = allocSamples(s.Len()); err == nil {
		if err = uploadRange(d, s, own.lo, own.hi, x, y, z); err != nil {
			cuda.FreeAll(&x, &y, &z)
		}
	}
	sh.once.Do(func() { own.publish(d, x, y, z, err) })
	if err != nil {
		return buf{}, buf{}, buf{}, err
	}
	for j, sl := range sh.slices {
		if j == sh.own {
			continue
		}
		<-sl.ready
		if sl.err == nil {
			part := func(b buf) buf { return cuda.Part[float64](b, sl.lo, sl.hi) }
			dsts := []buf{x, y, z}
			for k, src := range []buf{sl.x, sl.y, sl.z} {
				if err = d.CopyPeer(part(dsts[k]), sl.dev, part(src)); err != nil {
					break
				}
			}
		} else {
			err = fmt.Errorf("samples %d-%d: their GPU could not take them", sl.lo, sl.hi-1)
		}
		sh.leave(j)
		if err != nil {
			sh.release(d, &x, &y, &z)
			return buf{}, buf{}, buf{}, err
		}
	}
	return x, y, z, nil
}

// publish hands an engine's slice to the others; failed, it has no samples to free.
func (up *upload) publish(d *cuda.Device, x, y, z buf, err error) {
	up.dev, up.x, up.y, up.z, up.err = d, x, y, z, err
	close(up.ready)
	if err != nil {
		close(up.freed)
	}
}

// leave tells slice j's engine that this one needs its samples no more, once.
func (sh *sharing) leave(j int) {
	if !sh.left[j] {
		sh.left[j] = true
		sh.slices[j].taken.Done()
	}
}

// release frees samples x, y and z of device d (device thread only): at once, or, an engine's
// of a group, once every other has copied its slice, on the device's thread again, so that it
// computes meanwhile.
func (sh *sharing) release(d *cuda.Device, x, y, z *buf) {
	if sh == nil {
		cuda.FreeAll(x, y, z)
		return
	}
	kept := []*buf{x, y, z}
	own := sh.slices[sh.own]
	go func() {
		own.taken.Wait()
		d.Do(func() error { cuda.FreeAll(kept...); return nil })
		close(own.freed)
	}()
}

// wait waits until an engine's samples are freed, before its problem closes (not on the
// device's thread, which frees them).
func (up *upload) wait() {
	if up != nil {
		<-up.freed
	}
}

// done ends the engine's part, once: without samples (it failed before uploading its slice)
// it tells the others; it leaves the slices it did not copy.
func (sh *sharing) done() {
	sh.once.Do(func() { sh.slices[sh.own].publish(nil, buf{}, buf{}, buf{}, fmt.Errorf("not prepared")) })
	for j := range sh.slices {
		if j != sh.own {
			sh.leave(j)
		}
	}
}
