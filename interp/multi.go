package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Multi spreads each problem over several engines, the GPUs of a host: every engine prepares
// the whole problem on its own device (the samples replicated), and each block of rows is cut
// into parts that the engines take from one queue, so a slower or busier device takes fewer.
// A node's value depends on the node alone, never on which engine computed it or what it
// computed before, so the result equals any one engine's, bit for bit, whatever the number of
// engines and the order in which they finish.
type Multi struct {
	Engines []Engine
	// PartRows is the rows of a part (0: rows enough for about 256 Ki nodes).
	PartRows int
}

// Name implements Engine.
func (m *Multi) Name() string {
	names := make([]string, len(m.Engines))
	for i, e := range m.Engines {
		names[i] = e.Name()
	}
	return fmt.Sprintf("%d devices: %s", len(m.Engines), strings.Join(names, ", "))
}

// Supports implements Engine: every engine must run the algorithm.
func (m *Multi) Supports(a Algorithm) bool {
	return m.every(func(e Engine) bool { return e.Supports(a) })
}

// WhyNotHold implements holder: each engine holds every sample.
func (m *Multi) WhyNotHold(a Algorithm, n int) string {
	for _, e := range m.Engines {
		if why := WhyNotHold(e, a, n); why != "" {
			return why
		}
	}
	return ""
}

// every says whether m has engines and f holds for each.
func (m *Multi) every(f func(Engine) bool) bool {
	for _, e := range m.Engines {
		if !f(e) {
			return false
		}
	}
	return len(m.Engines) > 0
}

// together is an engine that prepares one problem with the other engines of a group at once,
// sharing work between them (GPUs that send the samples across the host's memory once and
// copy them between themselves): prepare, called once for each engine of the group, at the
// same time, prepares engine i. nil: the group cannot.
type together interface {
	Together(group []Engine, p *Problem) (prepare func(ctx context.Context, i int) (Prepared, error))
}

// Prepare implements Engine: every engine prepares the problem, at the same time, together
// when they can (together), and the problem is ready once the first engine is: the others
// join its blocks as they become ready, so that engines slower to prepare (a GPU that copies
// the samples from another) never hold the first back. It fails when every engine fails, the
// error naming each; one that fails later stops the run at its next block.
func (m *Multi) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	prepare := func(ctx context.Context, i int) (Prepared, error) { return m.Engines[i].Prepare(ctx, p) }
	if t, ok := m.Engines[0].(together); ok && len(m.Engines) > 1 {
		if f := t.Together(m.Engines, p); f != nil {
			prepare = f
		}
	}
	n := len(m.Engines)
	mp := &multiPrepared{m: m, parts: make([]Prepared, n), errs: make([]error, n),
		ready: make([]chan struct{}, n), cols: p.Target.Cols}
	ended := make(chan int, n)
	for i, e := range m.Engines {
		mp.ready[i] = make(chan struct{})
		mp.preparing.Go(func() {
			if mp.parts[i], mp.errs[i] = prepare(ctx, i); mp.errs[i] != nil {
				mp.errs[i] = fmt.Errorf("%s: %w", e.Name(), mp.errs[i])
			}
			close(mp.ready[i])
			ended <- i
		})
	}
	for range n {
		if i := <-ended; mp.errs[i] == nil {
			return mp, nil
		}
	}
	return nil, errors.Join(mp.errs...)
}

type multiPrepared struct {
	m     *Multi
	parts []Prepared
	errs  []error
	// ready[i] is closed once engine i's preparation ended, with parts[i] or errs[i] set
	ready     []chan struct{}
	preparing sync.WaitGroup // the preparations, and the wait for every copy (whenCopied)
	cols      int            // the target's
}

// Compute implements Prepared: the block's rows are cut into parts that the engines take
// (spread).
func (mp *multiPrepared) Compute(ctx context.Context, b *Block) error {
	_, cols, err := b.Window(mp.cols)
	if err != nil {
		return err
	}
	step := mp.m.PartRows
	if step <= 0 {
		// rows for about 256 Ki nodes of the target's width, window or not: a windowed
		// block's parts start at the rows a whole-width block's do, and so do the chunks (and
		// lanes) of a GPU's global weighting
		step = max(1, (256<<10)/max(mp.cols, 1))
	}
	return mp.spread(ctx, b.Rows, step, func(ctx context.Context, i, lo, hi int) error {
		return mp.parts[i].Compute(ctx, b.part(lo, hi-lo, cols))
	})
}

// spread hands n items, step at a time, to the engines that take them from one queue, so
// that a slower or busier engine takes fewer: every prepared engine at once, each other one
// as soon as it is ready, until none is left. do computes items lo to hi-1 on engine i. The
// first engine that fails, or fails to prepare, stops the others and names itself in the
// error.
func (mp *multiPrepared) spread(ctx context.Context, n, step int, do func(ctx context.Context, i, lo, hi int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	taken := make(chan struct{}) // closed once every item is taken
	var once sync.Once
	var wg sync.WaitGroup
	for i := range mp.parts {
		wg.Go(func() {
			select {
			case <-mp.ready[i]:
			case <-taken:
				return
			case <-ctx.Done():
				return
			}
			if mp.errs[i] != nil {
				cancel(mp.errs[i])
				return
			}
			for ctx.Err() == nil {
				lo := int(next.Add(int64(step))) - step
				if lo >= n {
					once.Do(func() { close(taken) })
					return
				}
				if err := do(ctx, i, lo, min(lo+step, n)); err != nil {
					cancel(fmt.Errorf("%s: %w", mp.m.Engines[i].Name(), err))
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// whenCopied implements lateCopier: f once every engine is prepared and holds a copy of the
// samples of its own.
func (mp *multiPrepared) whenCopied(f func()) {
	mp.preparing.Go(func() {
		for i, c := range mp.ready {
			<-c
			if mp.errs[i] != nil || !copiedSamples(mp.parts[i]) {
				return
			}
		}
		f()
	})
}

// part is rows r0..r0+rows-1 of the block, cols nodes a row (its window's), as a block of its
// own sharing its memory.
func (b *Block) part(r0, rows, cols int) *Block {
	lo, hi := r0*cols, (r0+rows)*cols
	p := &Block{Row0: b.Row0 + r0, Rows: rows, Col0: b.Col0, Cols: b.Cols, Values: b.Values[lo:hi], Done: b.Done}
	if b.Skip != nil {
		p.Skip = b.Skip[lo:hi]
	}
	for _, e := range b.Extra {
		p.Extra = append(p.Extra, e[lo:hi])
	}
	if b.Reach != nil {
		p.Reach = b.Reach[lo:hi]
	}
	return p
}

// ComputeAt implements PointComputer when every engine does, splitting the nodes the same way
// (spread).
func (mp *multiPrepared) ComputeAt(ctx context.Context, xs, ys, values []float64) error {
	return mp.spread(ctx, len(xs), 64<<10, func(ctx context.Context, i, lo, hi int) error {
		pc, ok := mp.parts[i].(PointComputer)
		if !ok {
			return fmt.Errorf("the engine computes only raster nodes, not arbitrary ones")
		}
		return pc.ComputeAt(ctx, xs[lo:hi], ys[lo:hi], values[lo:hi])
	})
}

// Close implements Prepared, once every preparation has ended.
func (mp *multiPrepared) Close() error {
	mp.preparing.Wait()
	var errs []error
	for i, p := range mp.parts {
		if p == nil {
			continue
		}
		if err := p.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", mp.m.Engines[i].Name(), err))
		}
	}
	return errors.Join(errs...)
}

// WhyNot gives the reason of the first engine that does not run a.
func (m *Multi) WhyNot(a Algorithm) string {
	for _, e := range m.Engines {
		if why := WhyNot(e, a); why != "" {
			return why
		}
	}
	return ""
}
