//go:build cuda

package kernels

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Engine is the GPU engine: it runs the algorithms that describe themselves to a device
// (interp.DeviceAlgorithm: today AIDW, with k and max_points up to MaxK, and gdal's invdist
// without a search ellipse) on a CUDA device, through the same interface as interp.CPU.
type Engine struct {
	dev     *cuda.Device
	ordinal int // the device's number among the visible ones, for messages
	// Float64 runs the global weighting in float64: within 1e-12 of the CPU engine instead of
	// 1e-5, and about twelve times slower. Neighbourhood weightings are always float64.
	Float64 bool
	// f32Kernel names the float32 global weighting kernel (one of f32Weightings); empty picks
	// the default.
	f32Kernel string
	// chunkNodes, when positive, caps the nodes per chunk (tests use it to force many chunks).
	chunkNodes int
	// FarField says when the global weighting sums distant samples by the far field.
	FarField FarFieldMode
	// tieOrders counts the problems that needed gdal's quadtree order on the device (tests).
	tieOrders int
	// hostTieOrder has the host build gdal's quadtree order always (tests compare the two).
	hostTieOrder bool
	// Times, when set, receives a line of each problem's phase times as it closes (phases).
	Times io.Writer
	// shareFrom, when positive, replaces sharedSamples as the fewest samples a group shares
	// (tests share small ones).
	shareFrom int
	// takeWindow, when positive, replaces heldWindow as the samples of a window that the
	// engine takes (tests rotate many small ones).
	takeWindow int
}

// NewEngine returns the engine running on dev.
func NewEngine(dev *cuda.Device) *Engine { return &Engine{dev: dev} }

// Name implements interp.Engine.
func (e *Engine) Name() string { return fmt.Sprintf("gpu:%d (%s)", e.ordinal, e.dev.Name()) }

// Supports implements interp.Engine: the algorithm describes itself for a device
// (interp.DeviceAlgorithm) within the kernels' limits, value band only (see WhyNot).
func (e *Engine) Supports(a interp.Algorithm) bool { return e.WhyNot(a) == "" }

// WhyNot says why the engine does not run a, or "" when it does.
func (e *Engine) WhyNot(a interp.Algorithm) string {
	if bands := interp.BandNames(a); len(bands) != 1 {
		return fmt.Sprintf("the GPU engine computes the value band only, not %s's %s", a.Name(),
			strings.Join(bands[1:], ", "))
	}
	da, ok := a.(interp.DeviceAlgorithm)
	if interp.GPUOf(a) == nil || !ok {
		return fmt.Sprintf("%s has no GPU form", a.Name())
	}
	d, ok, why := da.DeviceParams(nil, interp.Bounds{})
	switch {
	case !ok:
		return why
	case isGDALForm(d.Form):
		return whyNotForm(d)
	case d.Adaptive && d.K > MaxK:
		return fmt.Sprintf("the GPU engine keeps at most %d neighbours, not k=%d", MaxK, d.K)
	case d.MaxPoints > MaxK:
		return fmt.Sprintf("the GPU engine keeps at most %d neighbours, not max_points=%d", MaxK, d.MaxPoints)
	}
	return ""
}

// Prepare uploads the samples, builds the grid on the device and uploads the problem.
func (e *Engine) Prepare(ctx context.Context, p *interp.Problem) (interp.Prepared, error) {
	return e.prepare(ctx, p, nil)
}

// prepare is Prepare, its samples from the host or, with sh, shared by a group (Together).
func (e *Engine) prepare(ctx context.Context, p *interp.Problem, sh *sharing) (interp.Prepared, error) {
	if why := e.WhyNot(p.Alg); why != "" {
		return nil, fmt.Errorf("the GPU engine does not run %s with these options: %s", p.Alg.Name(), why)
	}
	if n := p.Len(); n > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: %d samples, at most %d can be indexed", n, math.MaxInt32)
	}
	pp := &prepared{e: e, p: p}
	if sh != nil {
		pp.up = sh.slices[sh.own]
	}
	start := time.Now()
	defer func() { pp.times.prepare = time.Since(start) }()
	d, _, _ := p.Alg.(interp.DeviceAlgorithm).DeviceParams(nil, interp.Bounds{})
	var far func(x, y, z buf, box [4]float64) error
	if wantsFarField(e.FarField, d, p.Len(), float64(p.Target.Cols)*float64(p.Target.Rows), e.Float64) {
		far = func(x, y, z buf, box [4]float64) error {
			sh, err := farShape(p, d, box)
			if err != nil || !hasFarKernel(sh.Order) {
				// options the far field cannot take (weightingOf says why, if they are
				// invalid), or an order no kernel is compiled for: the brute force
				return nil
			}
			pp.far, err = buildFarField(e.dev, x, y, z, p.Len(), sh)
			return err
		}
	}
	err := e.dev.Do(func() error {
		var err error
		var given *grid.Layout
		if p.Job != nil {
			given = p.Job.Layout
		}
		if pp.ix, err = e.index(p, given, sh, d.Form == interp.DeviceGlobal, far); err != nil {
			return err
		}
		if pp.w, err = weightingOf(p, pp.ix.box); err != nil {
			return err
		}
		byCoords := tiesByCoords(pp.w.form, p.Samples)
		if p.Samples.InputOrder && !byCoords {
			return fmt.Errorf("%s's %s form needs the samples in canonical order", p.Alg.Name(), pp.w.form)
		}
		pp.host = deviceProblem(pp.w.prob, pp.ix, p.Target, p.Samples.OriginX, p.Samples.OriginY)
		if byCoords {
			pp.host.TieByCoords = 1
		}
		if err := pp.prepareForm(); err != nil {
			return err
		}
		if pp.prob, err = cuda.UploadNew([]problem{pp.host}); err != nil {
			return err
		}
		return cuda.Synchronize("building the grid")
	})
	if err != nil {
		pp.Close()
		return nil, fmt.Errorf("gpu: %w", err)
	}
	return pp, nil
}

// index builds the index of p's samples (device thread only): from the host, or from the GPU's
// copy when it holds them (interp.Taker).
func (e *Engine) index(p *interp.Problem, given *grid.Layout, sh *sharing, float32 bool,
	also func(x, y, z buf, box [4]float64) error) (*index, error) {
	if p.Held == nil {
		return indexSamplesOn(e.dev, p.Samples, given, sh, float32, also)
	}
	h, ok := p.Held.(*held)
	if !ok {
		return nil, fmt.Errorf("the samples are held by an engine that is not a GPU")
	}
	x, y, z, err := h.coords(e, p.Samples)
	if err != nil {
		return nil, err
	}
	defer cuda.FreeAll(&x, &y, &z)
	return indexOn(e.dev, x, y, z, p.Len(), given, float32, also)
}

// ordersCompact says whether the kernels of form break ties between compact samples by their
// coordinates (Problem.tieByCoords), which order them as the canonical order does, so that
// they may come in any order: the nearest form's (Knn), whose sums follow the neighbours'
// order, not the samples'. Samples in canonical order get the same nodes either way.
func ordersCompact(form interp.DeviceForm) bool { return form == interp.DeviceNearest }

// tiesByCoords says whether the kernels of form break ties between samples s by their
// coordinates.
func tiesByCoords(form interp.DeviceForm, s *sample.Samples) bool {
	return ordersCompact(form) && s.IsCompact()
}

// formOf is the form the engine runs algorithm a in, if it runs it.
func (e *Engine) formOf(a interp.Algorithm) (interp.DeviceForm, bool) {
	da, ok := a.(interp.DeviceAlgorithm)
	if !ok || e.WhyNot(a) != "" {
		return 0, false
	}
	d, _, _ := da.DeviceParams(nil, interp.Bounds{})
	return d.Form, true
}

// WhyNotHold implements interp's holder: the index of n samples for a, at its build's peak
// (indexBytes), must fit the device's free memory.
func (e *Engine) WhyNotHold(a interp.Algorithm, n int) string {
	f, ok := e.formOf(a)
	if !ok {
		return ""
	}
	var free int64
	e.dev.Do(func() error { free = cuda.FreeMemory(); return nil })
	need := indexBytes(n, f == interp.DeviceGlobal)
	if free == 0 || need <= free {
		return ""
	}
	return fmt.Sprintf("%d samples need about %s of GPU memory, %s has %s free", n, bytesize.Text(float64(need)),
		e.Name(), bytesize.Text(float64(free)))
}

// OrdersCompact implements interp's compactOrderer (ordersCompact).
func (e *Engine) OrdersCompact(a interp.Algorithm) bool {
	f, ok := e.formOf(a)
	return ok && ordersCompact(f)
}

// TellsReach implements interp's reachTeller: the nearest and radius forms search each node's
// k nearest, which bound its reach.
func (e *Engine) TellsReach(a interp.Algorithm) bool {
	f, ok := e.formOf(a)
	return ok && tellsReach(f)
}

// tellsReach says whether the kernels of form write a node's reach.
func tellsReach(f interp.DeviceForm) bool {
	return f == interp.DeviceNearest || f == interp.DeviceRadius
}

// CopiedSamples implements interp's samplesCopier: the device holds the samples, and only
// gdal_grid's forms go back to the host's (for gdal's quadtree order, when a tie needs it).
func (pp *prepared) CopiedSamples() bool { return !isGDALForm(pp.w.form) }

// prepared is one problem on the device.
type prepared struct {
	e     *Engine
	p     *interp.Problem
	w     weighting
	ix    *index
	host  problem
	prob  cuda.Buffer // the device copy of host
	c     *chunker    // the chunk buffers, kept from block to block
	far   *farField   // the far field of a global weighting, when it runs by one
	forms *formBufs   // a gdal_grid form's buffers
	times phases
	up    *upload // its slice of a group's samples, which the others copy
}

// phases are a problem's wall times on the engine, for Engine.Times.
type phases struct {
	prepare, compute time.Duration // Prepare (upload and index); Compute, everything in it
	// within compute: gdal's quadtree order on the device (tried first), on the host, and
	// the host's upload
	deviceOrder, order, upload time.Duration
}

// report writes the phases to w, as one line.
func (t phases) report(w io.Writer, engine string) {
	fmt.Fprintf(w, "%s: index %.3f s, nodes %.3f s (of which gdal's quadtree order on the device %.3f s, "+
		"on the host %.3f s, its upload %.3f s)\n", engine, t.prepare.Seconds(), t.compute.Seconds(),
		t.deviceOrder.Seconds(), t.order.Seconds(), t.upload.Seconds())
}

// deviceProblem completes an algorithm's problem with the index and the geometry of target t's
// nodes, relative to the samples' origin (ox, oy).
func deviceProblem(h problem, ix *index, t raster.Target, ox, oy float64) problem {
	l := ix.layout
	h.MinX, h.MinY, h.Cell, h.InvCell = l.MinX, l.MinY, l.Cell, l.InvCell
	h.Cols, h.Rows = int64(l.Cols), int64(l.Rows)
	h.Start, h.XY, h.Order, h.Z = devPtr(ix.start.Ptr), devPtr(ix.xy.Ptr), devPtr(ix.order.Ptr), devPtr(ix.z.Ptr)
	g := t.GeoTransform
	h.GX0, h.GX1, h.GX2, h.OX = g[0], g[1], g[2], ox
	h.GY0, h.GY1, h.GY2, h.OY = g[3], g[4], g[5], oy
	h.TCols = int64(t.Cols)
	return h
}

// Close frees the problem's device memory.
func (pp *prepared) Close() error {
	pp.up.wait()
	if pp.e.Times != nil {
		pp.times.report(pp.e.Times, pp.e.Name())
	}
	return pp.e.dev.Do(func() error {
		if pp.ix != nil {
			pp.ix.free()
		}
		if pp.c != nil {
			pp.c.free()
		}
		if pp.far != nil {
			pp.far.free()
		}
		if pp.forms != nil {
			pp.forms.free()
		}
		pp.prob.Free()
		return nil
	})
}

// Compute fills the block: the nodes not skipped, in chunks sized from the free device memory.
func (pp *prepared) Compute(ctx context.Context, b *interp.Block) error {
	if len(b.Extra) > 0 {
		return fmt.Errorf("gpu: %s computes its value band only, not %d more", pp.p.Alg.Name(), len(b.Extra))
	}
	if b.Reach != nil && !tellsReach(pp.w.form) {
		return fmt.Errorf("gpu: %s does not tell a node's reach", pp.p.Alg.Name())
	}
	list, at, err := nodeList(b, pp.p.Target.Cols)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	count := b.Rows * pp.p.Target.Cols
	if list != nil {
		count = len(list)
	}
	if count == 0 {
		return nil
	}
	start := time.Now()
	defer func() { pp.times.compute += time.Since(start) }()
	err = pp.e.dev.Do(func() error {
		c, err := pp.chunker(count, list, b.Reach != nil)
		if err != nil {
			return err
		}
		for first := 0; first < count; first += c.size {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(c.size, count-first)
			if err := c.run(b.Row0, first, n); err != nil {
				return err
			}
			if err := c.take(b.Values, c.out, at, first, n); err != nil {
				return err
			}
			if b.Reach != nil {
				if err := c.take(b.Reach, c.reach, at, first, n); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("gpu: rows %d-%d: %w", b.Row0, b.Row0+b.Rows-1, err)
	}
	return nil
}
