//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Case is one benchmark case: the samples and the nodes, relative to a local origin (where
// float32 keeps its precision).
type Case struct {
	X, Y, Z      []float64
	NodeX, NodeY []float64
}

func (c *Case) check() error {
	n, m := len(c.X), len(c.NodeX)
	switch {
	case len(c.Y) != n || len(c.Z) != n:
		return fmt.Errorf("samples: %d x, %d y, %d z", n, len(c.Y), len(c.Z))
	case len(c.NodeY) != m:
		return fmt.Errorf("nodes: %d x, %d y", m, len(c.NodeY))
	case n == 0 || m == 0:
		return errors.New("no samples or no nodes")
	case n > math.MaxInt32 || m > math.MaxInt32:
		return fmt.Errorf("%d samples and %d nodes: at most %d of each", n, m, math.MaxInt32)
	}
	return nil
}

// Run is one timed run: the value at every node, the CUDA-event time from the first upload
// to the last download, and its stages.
type Run struct {
	Values  []float64
	Elapsed time.Duration
	Stages  []cuda.Stage
}

// IDW runs standard IDW with the power over every sample: naive, tiled or CDP, in layout l, in
// float64 or float32.
func IDW(d *cuda.Device, m Method, l PointLayout, f64 bool, power float64, c *Case) (*Run, error) {
	if m != Naive && m != Tiled && m != CDP {
		return nil, fmt.Errorf("IDW has no %s version", m)
	}
	if !(power > 0) || math.IsInf(power, 0) {
		return nil, fmt.Errorf("power %g: must be positive and finite", power)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	kernel := idwKernel(m, power == 2, f64, l)
	launch := func(s, nd *points) error {
		return idw(d, kernel, m, s, len(c.X), nd, len(c.NodeX), power)
	}
	return paperRun(d, l, f64, c, "kernel", launch)
}

// AIDW runs global AIDW (k = 15, the papers' form): naive or tiled with the brute-force kNN
// inside the kernel (layout l), or GridNaive or GridTiled (SoA only), in float64 or float32.
// The algorithm must have the study area set, as the papers pass it.
func AIDW(d *cuda.Device, m Method, l PointLayout, f64 bool, a *interp.AIDW, c *Case) (*Run, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("aidw: %w", err)
	}
	switch {
	case a.K != paperK:
		return nil, fmt.Errorf("aidw: the papers' kernels keep k = %d nearest, not %d", paperK, a.K)
	case !(a.Area > 0):
		return nil, errors.New("aidw: the papers' kernels need the study area")
	case a.MaxPoints > 0 || a.Radius > 0:
		return nil, errors.New("aidw: the papers' kernels weigh every sample (no max_points or radius)")
	case len(c.X) < paperK:
		return nil, fmt.Errorf("aidw: %d samples, fewer than k = %d", len(c.X), paperK)
	}
	samples := &sample.Samples{X: c.X, Y: c.Y, Z: c.Z}
	params, ok, why := a.DeviceParams(&interp.Problem{Samples: samples, Alg: a}, interp.Bounds{})
	if !ok {
		return nil, errors.New(why)
	}
	switch m {
	case Naive, Tiled:
		kernel := aidwKernel(m, f64, l)
		var prob cuda.Buffer // AIDW's parameters, uploaded untimed as the papers pass them as arguments
		if err := d.Do(func() error {
			var err error
			prob, err = kernels.UploadParams(params, len(c.X))
			return err
		}); err != nil {
			return nil, err
		}
		defer d.Do(func() error {
			prob.Free()
			return nil
		})
		launch := func(s, nd *points) error {
			return aidw(d, kernel, prob, s.b[0], s.b[1], s.b[2], len(c.X), nd.b[0], nd.b[1], nd.b[2], len(c.NodeX),
				cuda.Buffer{})
		}
		return paperRun(d, l, f64, c, "kNN and weighting (one kernel)", launch)
	case GridNaive, GridTiled:
		if l != SoA {
			return nil, errors.New("aidw: the even-grid version is SoA only, as in the paper")
		}
		return gridAIDW(d, m, f64, params, c)
	}
	return nil, fmt.Errorf("AIDW has no %s version", m)
}

// paperRun is paperRunT in the precision asked for.
func paperRun(d *cuda.Device, l PointLayout, f64 bool, c *Case, stage string, run func(s, nd *points) error) (*Run, error) {
	var r *Run
	err := d.Do(func() error {
		var err error
		if f64 {
			r, err = paperRunT[float64](l, c, stage, run)
		} else {
			r, err = paperRunT[float32](l, c, stage, run)
		}
		return err
	})
	return r, err
}

// real is the arithmetic of a kernel.
type real interface{ float32 | float64 }

// points are points on the device in a layout: three arrays (SoA: x, y, and z or the nodes'
// values) or one (AoS, AoaS: the nodes' values go to z).
type points struct{ b [3]cuda.Buffer }

func (p *points) free() { cuda.FreeAll(&p.b[0], &p.b[1], &p.b[2]) }

// pack lays points out for the device; z == nil leaves z zero (nodes).
func pack[T real](l PointLayout, x, y, z []float64) [][]T {
	n := len(x)
	if l == SoA {
		a, b := make([]T, n), make([]T, n)
		for i := range x {
			a[i], b[i] = T(x[i]), T(y[i])
		}
		if z == nil {
			return [][]T{a, b}
		}
		c := make([]T, n)
		for i, v := range z {
			c[i] = T(v)
		}
		return [][]T{a, b, c}
	}
	s := l.stride()
	p := make([]T, s*n)
	for i := range x {
		p[s*i], p[s*i+1] = T(x[i]), T(y[i])
		if z != nil {
			p[s*i+2] = T(z[i])
		}
	}
	return [][]T{p}
}

// uploadPoints allocates and fills the arrays; m > 0 adds a third array of m values (the SoA
// nodes' output).
func uploadPoints[T real](arrays [][]T, m int) (points, error) {
	var p points
	for i, a := range arrays {
		var err error
		if p.b[i], err = cuda.UploadNew(a); err != nil {
			p.free()
			return p, err
		}
	}
	if m > 0 && len(arrays) == 2 {
		var err error
		if p.b[2], err = cuda.AllocN[T](m); err != nil {
			p.free()
			return p, err
		}
	}
	return p, nil
}

// nodeValues downloads the m nodes' values.
func nodeValues[T real](l PointLayout, nd *points, m int) ([]float64, error) {
	values := make([]float64, m)
	if l == SoA {
		out := make([]T, m)
		if err := cuda.Download(out, nd.b[2], 0); err != nil {
			return nil, err
		}
		for i, v := range out {
			values[i] = float64(v)
		}
		return values, nil
	}
	s := l.stride()
	all := make([]T, s*m)
	if err := cuda.Download(all, nd.b[0], 0); err != nil {
		return nil, err
	}
	for i := range values {
		values[i] = float64(all[s*i+2])
	}
	return values, nil
}

// paperRunT uploads the case in layout l and precision T, runs the kernels (the stage named
// stage), downloads the nodes' values and times it all (device thread only). Laying the points
// out on the host is not timed: the papers generate their data in the layout.
func paperRunT[T real](l PointLayout, c *Case, stage string, run func(s, nd *points) error) (*Run, error) {
	sp, np := pack[T](l, c.X, c.Y, c.Z), pack[T](l, c.NodeX, c.NodeY, nil)
	m := len(c.NodeX)
	tl, err := cuda.StartTimeline()
	defer tl.Destroy()
	if err != nil {
		return nil, err
	}
	s, err := uploadPoints(sp, 0)
	defer s.free()
	if err != nil {
		return nil, err
	}
	nd, err := uploadPoints(np, m)
	defer nd.free()
	if err != nil {
		return nil, err
	}
	if err := tl.Mark("upload"); err != nil {
		return nil, err
	}
	if err := run(&s, &nd); err != nil {
		return nil, err
	}
	if err := tl.Mark(stage); err != nil {
		return nil, err
	}
	values, err := nodeValues[T](l, &nd, m)
	if err != nil {
		return nil, err
	}
	if err := tl.Mark("download"); err != nil {
		return nil, err
	}
	return finish(tl, values)
}

// gridAIDW is the even-grid version of Mei, Xu & Xu 2016 in its stages: upload, grid build
// (the engine's bounds, keys, radix sort, reduce-by-key, scan and gather), kNN (the engine's
// ring search, giving each node's power), weighting over every sample (naive or tiled, SoA),
// download.
func gridAIDW(d *cuda.Device, m Method, f64 bool, params interp.DeviceParams, c *Case) (*Run, error) {
	var r *Run
	err := d.Do(func() error {
		var err error
		if f64 {
			r, err = gridT[float64](d, m, params, c)
		} else {
			r, err = gridT[float32](d, m, params, c)
		}
		return err
	})
	return r, err
}

func gridT[T real](d *cuda.Device, m Method, params interp.DeviceParams, c *Case) (*Run, error) {
	n, nn := len(c.X), len(c.NodeX)
	_, wide := any(T(0)).(float64)
	var sp, np [][]T
	if !wide { // float64 weighting reads the build's own float64 arrays
		sp, np = pack[T](SoA, c.X, c.Y, c.Z), pack[T](SoA, c.NodeX, c.NodeY, nil)
	}
	tl, err := cuda.StartTimeline()
	defer tl.Destroy()
	if err != nil {
		return nil, err
	}
	var x, y, z, nx, ny, alpha cuda.Buffer
	var s, nd points
	defer func() {
		cuda.FreeAll(&x, &y, &z, &nx, &ny, &alpha)
		s.free()
		nd.free()
	}()
	for _, u := range []struct {
		b   *cuda.Buffer
		src []float64
	}{{&x, c.X}, {&y, c.Y}, {&z, c.Z}, {&nx, c.NodeX}, {&ny, c.NodeY}} {
		if *u.b, err = cuda.UploadNew(u.src); err != nil {
			return nil, err
		}
	}
	if wide {
		nd.b[2], err = cuda.AllocN[T](nn)
	} else {
		if s, err = uploadPoints(sp, 0); err == nil {
			nd, err = uploadPoints(np, nn)
		}
	}
	if err != nil {
		return nil, err
	}
	if alpha, err = cuda.AllocN[float64](nn); err != nil {
		return nil, err
	}
	if err := tl.Mark("upload"); err != nil {
		return nil, err
	}
	unit := raster.NorthUp(0, 0, 1, 1, 1, 1) // nodes come as arrays: the target is unused
	g, err := kernels.BuildGrid(d, x, y, z, n, params, unit, 0, 0)
	if err != nil {
		return nil, err
	}
	defer g.Free()
	if err := tl.Mark("grid build"); err != nil {
		return nil, err
	}
	if err := gridAlpha(d, g.Problem(), nx, ny, nn, alpha); err != nil {
		return nil, err
	}
	if err := tl.Mark("kNN"); err != nil {
		return nil, err
	}
	sx, sy, sz, qx, qy := x, y, z, nx, ny
	if !wide {
		sx, sy, sz, qx, qy = s.b[0], s.b[1], s.b[2], nd.b[0], nd.b[1]
	}
	if err := aidw(d, aidwKernel(m, wide, SoA), g.Problem(), sx, sy, sz, n, qx, qy, nd.b[2], nn, alpha); err != nil {
		return nil, err
	}
	if err := tl.Mark("weighting"); err != nil {
		return nil, err
	}
	values, err := nodeValues[T](SoA, &nd, nn)
	if err != nil {
		return nil, err
	}
	if err := tl.Mark("download"); err != nil {
		return nil, err
	}
	return finish(tl, values)
}

// BBox computes the samples' bounding box (min x, min y, max x, max y) with a reduction of
// the reduction article, reps times after a warm-up, and returns the box and the median time of
// the reduction alone (the samples are uploaded beforehand, untimed).
func BBox(d *cuda.Device, m BBoxMethod, x, y []float64, reps int) ([4]float64, time.Duration, error) {
	var box [4]float64
	var med time.Duration
	n := len(x)
	if n == 0 || len(y) != n {
		return box, 0, fmt.Errorf("bounding box of %d x and %d y", n, len(y))
	}
	err := d.Do(func() error {
		var bx, by, part, keys, counter cuda.Buffer
		defer cuda.FreeAll(&bx, &by, &part, &keys, &counter)
		var err error
		if bx, err = cuda.UploadNew(x); err != nil {
			return err
		}
		if by, err = cuda.UploadNew(y); err != nil {
			return err
		}
		nb := kernels.BBoxBlocks(d, n)
		if part, err = cuda.AllocN[float64](4 * (nb + 1)); err != nil {
			return err
		}
		out := cuda.At[float64](part, 4*nb)
		var run func() error
		switch m {
		case TwoPass:
			run = func() error { return kernels.BBoxTwoPass(d, bx, by, n, part) }
		case Atomic:
			if keys, err = cuda.AllocN[uint64](4); err != nil {
				return err
			}
			run = func() error {
				if err := cuda.MemsetD32(keys.Ptr, math.MaxUint32, 4); err != nil {
					return err
				}
				if err := cuda.MemsetD32(cuda.At[uint64](keys, 2), 0, 4); err != nil {
					return err
				}
				return bboxAtomic(d, nb, bx, by, n, keys)
			}
		case Retirement:
			if counter, err = cuda.AllocN[uint32](1); err != nil {
				return err
			}
			if err := cuda.MemsetD32(counter.Ptr, 0, 1); err != nil {
				return err
			}
			run = func() error { return bboxRetire(d, nb, bx, by, n, part, counter, out) }
		default:
			return fmt.Errorf("no bounding-box reduction %q", m)
		}
		if med, err = cuda.MedianTime(reps, run); err != nil {
			return err
		}
		if m == Atomic {
			var k [4]uint64
			if err := cuda.Download(k[:], keys, 0); err != nil {
				return err
			}
			for i, v := range k {
				box[i] = fromOrdKey(v)
			}
			return nil
		}
		return cuda.Download(box[:], part, 4*nb)
	})
	if err != nil {
		return box, 0, fmt.Errorf("bounding box (%s): %w", m, err)
	}
	return box, med, nil
}

// fromOrdKey inverts paper.cuh's ord_key.
func fromOrdKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// finish waits for the timeline's last event and returns the run.
func finish(tl *cuda.Timeline, values []float64) (*Run, error) {
	stages, total, err := tl.Finish()
	if err != nil {
		return nil, err
	}
	return &Run{Values: values, Elapsed: total, Stages: stages}, nil
}
