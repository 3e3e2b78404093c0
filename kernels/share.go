//go:build cuda

package kernels

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/sample"
)

// Together implements interp's together: GPU engines that prepare one problem (interp.Multi)
// send its samples across the host's memory once, to the first engine's GPU, and the others
// copy them from there GPU to GPU (NVLink or PCIe peer to peer) before each builds its own
// index from them, as from the host. Host memory then sends 1e9 samples' 16 GB once rather
// than once a GPU (each from the host, every one of four H200 took 1.49 s to index them,
// against 0.74 s for one alone). nil when an engine is not a GPU engine, its GPU cannot reach
// the first's (e's), or the samples are too few to gain (sharedSamples).
func (e *Engine) Together(group []interp.Engine, p *interp.Problem) func(ctx context.Context, i int) (interp.Prepared, error) {
	least := cmp.Or(e.shareFrom, sharedSamples)
	if p.Samples.Len() < least {
		return nil
	}
	gpus := make([]*Engine, len(group))
	for i, g := range group {
		ge, ok := g.(*Engine)
		if !ok || !ge.dev.CanCopyFrom(e.dev) {
			return nil
		}
		gpus[i] = ge
	}
	up := &upload{ready: make(chan struct{}), freed: make(chan struct{})}
	up.taken.Add(len(gpus) - 1)
	return func(ctx context.Context, i int) (interp.Prepared, error) {
		sh := &sharing{up: up, first: i == 0}
		defer sh.done()
		return gpus[i].prepare(ctx, p, sh)
	}
}

// sharedSamples is the fewest samples whose upload a group shares: 1 GiB of coordinates and
// values on a GPU. Fewer cross the bus in tens of milliseconds, less than the peer access
// costs to set up (global AIDW of 1,024,000 samples on two H200 took 0.84-0.91 s shared,
// 0.79 s each from the host).
const sharedSamples = (1 << 30) / 24

// upload is the samples of one problem on the first GPU of a group, for the others to copy.
type upload struct {
	ready   chan struct{} // closed once the samples are on the first GPU, or it failed
	dev     *cuda.Device
	x, y, z buf
	err     error
	taken   sync.WaitGroup // the others' copies, done or given up
	freed   chan struct{}  // closed once the first GPU's samples are freed, or were never there
}

// sharing is one engine's part in an upload: the first's, or another's.
type sharing struct {
	up    *upload
	first bool
	once  sync.Once
}

// samples returns the samples of s on device d (device thread only): uploaded from the host
// by the first engine of a group (or an engine alone: sh nil), copied from the first's GPU by
// the others.
func (sh *sharing) samples(d *cuda.Device, s *sample.Samples) (x, y, z buf, err error) {
	if sh == nil || sh.first {
		x, y, z, err = uploadSamples(d, s)
		if sh != nil {
			sh.once.Do(func() { sh.up.publish(d, x, y, z, err) })
		}
		return x, y, z, err
	}
	defer sh.done()
	up := sh.up
	<-up.ready
	if up.err != nil {
		return buf{}, buf{}, buf{}, errors.New("the first GPU could not take the samples")
	}
	bufs := []*buf{&x, &y, &z}
	for k, src := range []buf{up.x, up.y, up.z} {
		if *bufs[k], err = cuda.Alloc(src.Bytes); err == nil {
			err = d.CopyPeer(*bufs[k], up.dev, src)
		}
		if err != nil {
			cuda.FreeAll(&x, &y, &z)
			return buf{}, buf{}, buf{}, err
		}
	}
	return x, y, z, nil
}

// publish hands the first GPU's samples to the others; failed, it has none to free.
func (up *upload) publish(d *cuda.Device, x, y, z buf, err error) {
	up.dev, up.x, up.y, up.z, up.err = d, x, y, z, err
	close(up.ready)
	if err != nil {
		close(up.freed)
	}
}

// release frees samples x, y and z of device d (device thread only): at once, or, the first
// engine's of a group, once every other has copied them, on the device's thread again, so
// that the first computes meanwhile.
func (sh *sharing) release(d *cuda.Device, x, y, z *buf) {
	if sh == nil || !sh.first {
		cuda.FreeAll(x, y, z)
		return
	}
	kept := []*buf{x, y, z}
	go func() {
		sh.up.taken.Wait()
		d.Do(func() error { cuda.FreeAll(kept...); return nil })
		close(sh.up.freed)
	}()
}

// wait waits until the first engine's samples are freed, before its problem closes (not on
// the device's thread, which frees them).
func (up *upload) wait() {
	if up != nil {
		<-up.freed
	}
}

// done ends the engine's part, once: the first's without samples (it failed before uploading
// them) tells the others; another's tells the first it needs them no more.
func (sh *sharing) done() {
	sh.once.Do(func() {
		if sh.first {
			sh.up.publish(nil, buf{}, buf{}, buf{}, errors.New("not prepared"))
		} else {
			sh.up.taken.Done()
		}
	})
}
