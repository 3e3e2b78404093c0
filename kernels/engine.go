//go:build cuda

package kernels

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/aidw/aidw/interp"
	"gorgonia.org/cu"
)

// MaxK is the most neighbours a node's search keeps: AIDW's k and max_points up to MaxK run
// on the GPU.
const MaxK = 64

// nearCorr is NEAR_CORR of knn.cuh: the nearest samples whose float32 weights the global
// weighting replaces by float64 ones.
const nearCorr = 16

// maxPowerF32 bounds the powers the float32 global weighting takes: a sample that float32
// rounding puts on a node weighs at most 2^(12*power) times the nearest's (see weigh.cuh), which
// must stay far inside float32's range. Larger powers run in float64.
const maxPowerF32 = 8

// Launch shapes of the per-node and weighting kernels (knn.cuh, weigh.cuh).
const (
	nodeBlock   = 128
	wf32Block   = 256
	wf32Tile    = 1024
	wf64Block   = 128
	finishBlock = 256
	maxSplits   = 64
)

// Engine is the GPU engine: it runs AIDW (k and max_points up to MaxK) and gdal's invdist
// without a search ellipse on a CUDA device, through the same interface as interp.CPU.
type Engine struct {
	dev *Device
	// Float64 runs the global weighting in float64: within 1e-12 of the CPU engine instead of
	// 1e-5, and about twelve times slower. Neighbourhood weightings are always float64.
	Float64 bool
	// f32Kernel names the float32 global weighting kernel; empty picks the default.
	f32Kernel string
	// chunkNodes, when positive, caps the nodes per chunk (tests use it to force many chunks).
	chunkNodes int
}

// defaultF32Kernel is the float32 global weighting variant measured fastest (kernels/NOTES.md).
const defaultF32Kernel = "weigh_all_f32_6_2"

// NewEngine returns the engine running on dev.
func NewEngine(dev *Device) *Engine { return &Engine{dev: dev} }

// Name implements interp.Engine.
func (e *Engine) Name() string { return "gpu (" + e.dev.Name() + ")" }

// Supports implements interp.Engine. It computes the value band only (no AIDW diagnostics).
func (e *Engine) Supports(a interp.Algorithm) bool {
	if len(interp.BandNames(a)) != 1 {
		return false
	}
	switch a := a.(type) {
	case *interp.AIDW:
		return a.K <= MaxK && a.MaxPoints <= MaxK
	case *interp.InvDist:
		return a.Radius1 == 0 && a.Radius2 == 0
	}
	return false
}

// form is the weighting neighbourhood.
type form int

const (
	formGlobal  form = iota // every sample
	formNearest             // the max_points nearest, within the radius if any
	formRadius              // every sample within the radius
)

// problem mirrors struct Problem of knn.cuh field for field, each 8 bytes.
type problem struct {
	MinX, MinY, Cell, InvCell    float64
	Cols, Rows                   int64
	N                            int64
	Start, XY, Order, Z          cu.DevicePtr
	GX0, GX1, GX2, GY0, GY1, GY2 float64
	OX, OY                       float64
	TCols                        int64
	K, NQ, MaxPoints             int64
	R2                           float64
	MinPoints                    int64
	Nodata                       float64
	RExp, RMin, RMax             float64
	Alphas                       [5]float64
	Power, Smooth2, HitD2        float64
	Adaptive                     int64
}

// exactHitD2 is gdal_grid's squared distance under which a node takes a sample's value.
const exactHitD2 = 1e-13

// weighting is an algorithm mapped onto the kernels: its form, the algorithm's part of the
// problem and the largest power it can use.
type weighting struct {
	form     form
	prob     problem
	maxPower float64
}

// weightingOf maps the algorithm of p onto the kernels (interp's AIDW and InvDist semantics);
// box is the samples' bounding box, relative to their origin, as the grid build found it.
func weightingOf(p *interp.Problem, box [4]float64) (weighting, error) {
	n := p.Samples.Len()
	w := weighting{prob: problem{N: int64(n), R2: math.Inf(1), HitD2: exactHitD2, K: 1, NQ: 1}}
	switch a := p.Alg.(type) {
	case *interp.AIDW:
		if err := a.Validate(); err != nil {
			return w, fmt.Errorf("aidw: %w", err)
		}
		area := studyArea(a, p, box)
		if !(area > 0) || math.IsInf(area, 0) {
			return w, fmt.Errorf("aidw: study area %g is not a positive finite number", area)
		}
		pr := &w.prob
		pr.Adaptive = 1
		pr.K = int64(min(a.K, n))
		pr.NQ = pr.K
		if a.MaxPoints > 0 {
			pr.NQ = max(pr.K, int64(min(a.MaxPoints, n)))
			pr.MaxPoints = int64(a.MaxPoints)
		}
		if a.Radius > 0 {
			pr.R2 = a.Radius * a.Radius
		}
		pr.MinPoints, pr.Nodata = int64(a.MinPoints), a.NodataValue
		pr.RExp, pr.RMin, pr.RMax, pr.Alphas = interp.ExpectedDistance(n, area), a.RMin, a.RMax, a.Alphas
		for _, v := range a.Alphas {
			w.maxPower = max(w.maxPower, v)
		}
		switch {
		case a.MaxPoints > 0:
			w.form = formNearest
		case a.Radius > 0:
			w.form = formRadius
		default:
			pr.NQ = max(pr.K, int64(min(nearCorr, n)))
		}
	case *interp.InvDist:
		if a.Radius1 != 0 || a.Radius2 != 0 {
			return w, fmt.Errorf("invdist with a search ellipse has no GPU implementation")
		}
		pr := &w.prob
		pr.NQ = int64(min(nearCorr, n))
		pr.Power, pr.Smooth2, pr.Nodata = a.Power, a.Smoothing*a.Smoothing, a.NodataValue
		if a.Power == 2 && pr.Smooth2 > 0 {
			pr.HitD2 = -1 // gdal's power-2 smoothing loop has no exact-hit test
		}
		w.maxPower = a.Power
	default:
		return w, fmt.Errorf("algorithm %s has no GPU implementation", p.Alg.Name())
	}
	return w, nil
}

// studyArea is interp.AIDW.StudyArea from the bounding box the grid build found on the device
// (the same box as Samples.Bounds, without another pass over the samples on the host).
func studyArea(a *interp.AIDW, p *interp.Problem, box [4]float64) float64 {
	if a.Area > 0 {
		return a.Area
	}
	ox, oy := p.Samples.OriginX, p.Samples.OriginY
	if area := ((box[2] + ox) - (box[0] + ox)) * ((box[3] + oy) - (box[1] + oy)); area > 0 {
		return area
	}
	minX, minY, maxX, maxY := p.Target.Extent()
	return (maxX - minX) * (maxY - minY)
}

// kmax is the smallest compiled neighbour-list size holding nq.
func kmax(nq int64) int {
	for _, k := range []int{16, 32, 64} {
		if nq <= int64(k) {
			return k
		}
	}
	return MaxK
}

// Prepare uploads the samples, builds the grid on the device and uploads the problem.
func (e *Engine) Prepare(ctx context.Context, p *interp.Problem) (interp.Prepared, error) {
	if !e.Supports(p.Alg) {
		return nil, fmt.Errorf("the GPU engine does not run %s with these options", p.Alg.Name())
	}
	if n := p.Samples.Len(); n > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: %d samples, at most %d can be indexed", n, math.MaxInt32)
	}
	pp := &prepared{e: e, p: p}
	err := e.dev.do(func() error {
		var err error
		if pp.ix, err = e.dev.indexSamples(p.Samples); err != nil {
			return err
		}
		if pp.w, err = weightingOf(p, pp.ix.box); err != nil {
			return err
		}
		pp.host = deviceProblem(pp.w.prob, pp.ix, p)
		if pp.prob, err = alloc(int64(unsafe.Sizeof(pp.host))); err != nil {
			return err
		}
		if err := upload(pp.prob, []problem{pp.host}); err != nil {
			return err
		}
		return synchronize("building the grid")
	})
	if err != nil {
		pp.Close()
		return nil, fmt.Errorf("gpu: %w", err)
	}
	return pp, nil
}

// prepared is one problem on the device.
type prepared struct {
	e    *Engine
	p    *interp.Problem
	w    weighting
	ix   *index
	host problem
	prob buffer   // the device copy of host
	c    *chunker // the chunk buffers, kept from block to block
}

// deviceProblem completes an algorithm's problem with the index and the target's geometry.
func deviceProblem(h problem, ix *index, p *interp.Problem) problem {
	l := ix.layout
	h.MinX, h.MinY, h.Cell, h.InvCell = l.MinX, l.MinY, l.Cell, l.InvCell
	h.Cols, h.Rows = int64(l.Cols), int64(l.Rows)
	h.Start, h.XY, h.Order, h.Z = ix.start.ptr, ix.xy.ptr, ix.order.ptr, ix.z.ptr
	g := p.Target.GeoTransform
	s := p.Samples
	h.GX0, h.GX1, h.GX2, h.OX = g[0], g[1], g[2], s.OriginX
	h.GY0, h.GY1, h.GY2, h.OY = g[3], g[4], g[5], s.OriginY
	h.TCols = int64(p.Target.Cols)
	return h
}

// Close frees the problem's device memory.
func (pp *prepared) Close() error {
	return pp.e.dev.do(func() error {
		if pp.ix != nil {
			pp.ix.free()
		}
		if pp.c != nil {
			pp.c.free()
		}
		pp.prob.free()
		return nil
	})
}

// Compute fills the block: the nodes not skipped, in chunks sized from the free device memory.
func (pp *prepared) Compute(ctx context.Context, b *interp.Block) error {
	if len(b.Extra) > 0 {
		return fmt.Errorf("gpu: %s computes its value band only, not %d more", pp.p.Alg.Name(), len(b.Extra))
	}
	var list []int32
	count := b.Rows * pp.p.Target.Cols
	if b.Skip != nil {
		list = make([]int32, 0, count)
		for i, s := range b.Skip[:count] {
			if !s {
				list = append(list, int32(i))
			}
		}
		count = len(list)
	}
	if count == 0 {
		return nil
	}
	err := pp.e.dev.do(func() error {
		c, err := pp.chunker(count, list)
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
			if list == nil {
				if err := download(b.Values[first:first+n], c.out, 0); err != nil {
					return err
				}
				continue
			}
			if err := download(c.host[:n], c.out, 0); err != nil {
				return err
			}
			for j, v := range c.host[:n] {
				b.Values[list[first+j]] = v
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("gpu: rows %d-%d: %w", b.Row0, b.Row0+b.Rows-1, err)
	}
	return nil
}
