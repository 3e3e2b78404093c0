//go:build cuda

package kernels

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
	"gorgonia.org/cu"
)

// The papers' own kernels (paper.cuh), for `aidw bench`: each run uploads a case in the
// variant's layout and precision, runs the kernel and downloads the values, timed with CUDA
// events from the first upload to the last download, as the AIDW papers time their GPU versions.

// PointLayout is how the papers' kernels store points (Mei & Tian 2016).
type PointLayout int

const (
	SoA  PointLayout = iota // structure of arrays: x[], y[], z[]
	AoS                     // array of structures {x, y, z}
	AoaS                    // array of aligned structures: float4, or {x, y, z, pad} aligned to 16 bytes in float64
)

func (l PointLayout) String() string { return [...]string{"SoA", "AoS", "AoaS"}[l] }

// suffix names the layout in kernel names.
func (l PointLayout) suffix() string { return [...]string{"soa", "aos", "aoas"}[l] }

// stride is how many values a point takes in AoS and AoaS.
func (l PointLayout) stride() int { return [...]int{1, 3, 4}[l] }

// PaperMethod is a version of the papers' kernels.
type PaperMethod string

const (
	Naive PaperMethod = "naive" // one thread per node, samples read from global memory
	Tiled PaperMethod = "tiled" // one thread per node, samples read through shared-memory tiles
	// CDP is the improved CDP version's work as one kernel: a block of 1024 threads per node and
	// a block reduction (IDW only).
	CDP PaperMethod = "cdp"
	// GridNaive and GridTiled are the even-grid version (AIDW only, SoA): grid build and kNN on
	// the engine's kernels, then the naive or tiled weighting with each node's power.
	GridNaive PaperMethod = "grid-naive"
	GridTiled PaperMethod = "grid-tiled"
)

// BBoxMethod is a bounding-box reduction of the reduction article.
type BBoxMethod string

const (
	TwoPass    BBoxMethod = "two-pass"   // per-block boxes, then one block reduces them
	Atomic     BBoxMethod = "atomic"     // single pass: each block's box joins through atomics
	Retirement BBoxMethod = "retirement" // single pass: the last block to retire reduces the boxes
)

// Launch shapes of paper.cuh.
const (
	paperBlock = 256
	cdpBlock   = 1024
	paperK     = 15
)

// PaperCase is one benchmark case: the samples and the nodes, relative to a local origin (where
// float32 keeps its precision).
type PaperCase struct {
	X, Y, Z      []float64
	NodeX, NodeY []float64
}

func (c *PaperCase) check() error {
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

// Stage is a timed part of a run.
type Stage struct {
	Name    string
	Elapsed time.Duration
}

// PaperRun is one timed run: the value at every node, the CUDA-event time from the first upload
// to the last download, and its stages.
type PaperRun struct {
	Values  []float64
	Elapsed time.Duration
	Stages  []Stage
}

// MemoryTotal is the device's memory in bytes.
func (d *Device) MemoryTotal() (int64, error) {
	var total int64
	err := d.do(func() error {
		var err error
		_, total, err = cu.MemInfo()
		return err
	})
	return total, err
}

// Driver describes the driver: the kernel module's version where /proc/driver/nvidia/version
// gives it, and the CUDA version of the driver API.
func Driver() string {
	v := cu.Version()
	api := fmt.Sprintf("CUDA %d.%d", v/1000, v%1000/10)
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return api
	}
	line, _, _ := strings.Cut(string(b), "\n") // "NVRM version: NVIDIA UNIX ... Kernel Module ... 580.95.05 ..."
	for _, w := range strings.Fields(line) {
		if strings.Count(w, ".") >= 1 && strings.Trim(w, "0123456789.") == "" {
			return w + " (" + api + ")"
		}
	}
	return api
}

// PaperIDW runs standard IDW with the power over every sample: naive, tiled or CDP, in layout l,
// in float64 or float32.
func (d *Device) PaperIDW(m PaperMethod, l PointLayout, f64 bool, power float64, c *PaperCase) (*PaperRun, error) {
	if m != Naive && m != Tiled && m != CDP {
		return nil, fmt.Errorf("IDW has no %s version", m)
	}
	if !(power > 0) || math.IsInf(power, 0) {
		return nil, fmt.Errorf("power %g: must be positive and finite", power)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	form := "pw"
	if power == 2 {
		form = "p2"
	}
	kernel := fmt.Sprintf("idw_%s_%s_%s_%s", m, form, precision(f64), l.suffix())
	gx, threads := blocks(len(c.NodeX), paperBlock), paperBlock
	if m == CDP {
		gx, threads = len(c.NodeX), cdpBlock
	}
	launch := func(s, nd *points) error {
		return d.launch(kernel, gx, 1, threads, s.b[0], s.b[1], s.b[2], len(c.X), nd.b[0], nd.b[1], nd.b[2],
			len(c.NodeX), power)
	}
	return d.paperRun(l, f64, c, "kernel", launch)
}

// PaperAIDW runs global AIDW (k = 15, the papers' form): naive or tiled with the brute-force kNN
// inside the kernel (layout l), or GridNaive or GridTiled (SoA only), in float64 or float32.
// The algorithm must have the study area set, as the papers pass it.
func (d *Device) PaperAIDW(m PaperMethod, l PointLayout, f64 bool, a *interp.AIDW, c *PaperCase) (*PaperRun, error) {
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
	w, err := weightingOf(&interp.Problem{Samples: samples, Alg: a}, [4]float64{})
	if err != nil {
		return nil, err
	}
	switch m {
	case Naive, Tiled:
		kernel := fmt.Sprintf("aidw_%s_%s_%s", m, precision(f64), l.suffix())
		var prob buffer // AIDW's parameters, uploaded untimed as the papers pass them as arguments
		if err := d.do(func() error {
			var err error
			prob, err = uploadNew([]problem{w.prob})
			return err
		}); err != nil {
			return nil, err
		}
		defer d.do(func() error {
			prob.free()
			return nil
		})
		launch := func(s, nd *points) error {
			return d.launch(kernel, blocks(len(c.NodeX), paperBlock), 1, paperBlock, prob, s.b[0], s.b[1], s.b[2],
				len(c.X), nd.b[0], nd.b[1], nd.b[2], len(c.NodeX), buffer{})
		}
		return d.paperRun(l, f64, c, "kNN and weighting (one kernel)", launch)
	case GridNaive, GridTiled:
		if l != SoA {
			return nil, errors.New("aidw: the even-grid version is SoA only, as in the paper")
		}
		return d.paperGridAIDW(m, f64, w.prob, c)
	}
	return nil, fmt.Errorf("AIDW has no %s version", m)
}

func precision(f64 bool) string {
	if f64 {
		return "f64"
	}
	return "f32"
}

// paperRun is paperRunT in the precision asked for.
func (d *Device) paperRun(l PointLayout, f64 bool, c *PaperCase, stage string, run func(s, nd *points) error) (*PaperRun, error) {
	var r *PaperRun
	err := d.do(func() error {
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
type points struct{ b [3]buffer }

func (p *points) free() { freeAll(&p.b[0], &p.b[1], &p.b[2]) }

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
		if p.b[i], err = uploadNew(a); err != nil {
			p.free()
			return p, err
		}
	}
	if m > 0 && len(arrays) == 2 {
		var err error
		if p.b[2], err = allocN[T](m); err != nil {
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
		if err := download(out, nd.b[2], 0); err != nil {
			return nil, err
		}
		for i, v := range out {
			values[i] = float64(v)
		}
		return values, nil
	}
	s := l.stride()
	all := make([]T, s*m)
	if err := download(all, nd.b[0], 0); err != nil {
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
func paperRunT[T real](l PointLayout, c *PaperCase, stage string, run func(s, nd *points) error) (*PaperRun, error) {
	sp, np := pack[T](l, c.X, c.Y, c.Z), pack[T](l, c.NodeX, c.NodeY, nil)
	m := len(c.NodeX)
	tl, err := startTimeline()
	defer tl.destroy()
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
	if err := tl.mark("upload"); err != nil {
		return nil, err
	}
	if err := run(&s, &nd); err != nil {
		return nil, err
	}
	if err := tl.mark(stage); err != nil {
		return nil, err
	}
	values, err := nodeValues[T](l, &nd, m)
	if err != nil {
		return nil, err
	}
	if err := tl.mark("download"); err != nil {
		return nil, err
	}
	return tl.finish(values)
}

// paperGridAIDW is the even-grid version of Mei, Xu & Xu 2016 in its stages: upload, grid build
// (the engine's bounds, keys, radix sort, reduce-by-key, scan and gather), kNN (the engine's
// ring search, giving each node's power), weighting over every sample (naive or tiled, SoA),
// download.
func (d *Device) paperGridAIDW(m PaperMethod, f64 bool, alg problem, c *PaperCase) (*PaperRun, error) {
	var r *PaperRun
	err := d.do(func() error {
		var err error
		if f64 {
			r, err = paperGridT[float64](d, m, alg, c)
		} else {
			r, err = paperGridT[float32](d, m, alg, c)
		}
		return err
	})
	return r, err
}

func paperGridT[T real](d *Device, m PaperMethod, alg problem, c *PaperCase) (*PaperRun, error) {
	n, nn := len(c.X), len(c.NodeX)
	_, wide := any(T(0)).(float64)
	var sp, np [][]T
	if !wide { // float64 weighting reads the build's own float64 arrays
		sp, np = pack[T](SoA, c.X, c.Y, c.Z), pack[T](SoA, c.NodeX, c.NodeY, nil)
	}
	tl, err := startTimeline()
	defer tl.destroy()
	if err != nil {
		return nil, err
	}
	var x, y, z, nx, ny, alpha, prob buffer
	var s, nd points
	defer func() {
		freeAll(&x, &y, &z, &nx, &ny, &alpha, &prob)
		s.free()
		nd.free()
	}()
	for _, u := range []struct {
		b   *buffer
		src []float64
	}{{&x, c.X}, {&y, c.Y}, {&z, c.Z}, {&nx, c.NodeX}, {&ny, c.NodeY}} {
		if *u.b, err = uploadNew(u.src); err != nil {
			return nil, err
		}
	}
	if wide {
		nd.b[2], err = allocN[T](nn)
	} else {
		if s, err = uploadPoints(sp, 0); err == nil {
			nd, err = uploadPoints(np, nn)
		}
	}
	if err != nil {
		return nil, err
	}
	if alpha, err = allocN[float64](nn); err != nil {
		return nil, err
	}
	if err := tl.mark("upload"); err != nil {
		return nil, err
	}
	b := d.newBuilder()
	defer b.free()
	ix, err := b.build(x, y, z, n)
	if err != nil {
		return nil, err
	}
	unit := raster.NorthUp(0, 0, 1, 1, 1, 1) // nodes come as arrays: the target is unused
	h := deviceProblem(alg, ix, &interp.Problem{Samples: &sample.Samples{X: c.X, Y: c.Y, Z: c.Z}, Target: unit})
	if prob, err = uploadNew([]problem{h}); err != nil {
		return nil, err
	}
	if err := tl.mark("grid build"); err != nil {
		return nil, err
	}
	if err := d.launch("aidw_grid_alpha", blocks(nn, nodeBlock), 1, nodeBlock, prob, nx, ny, nn, alpha); err != nil {
		return nil, err
	}
	if err := tl.mark("kNN"); err != nil {
		return nil, err
	}
	sx, sy, sz, qx, qy := x, y, z, nx, ny
	if !wide {
		sx, sy, sz, qx, qy = s.b[0], s.b[1], s.b[2], nd.b[0], nd.b[1]
	}
	kernel := "aidw_grid_naive_" + precision(wide)
	if m == GridTiled {
		kernel = "aidw_grid_tiled_" + precision(wide)
	}
	if err := d.launch(kernel, blocks(nn, paperBlock), 1, paperBlock, prob, sx, sy, sz, n, qx, qy, nd.b[2], nn,
		alpha); err != nil {
		return nil, err
	}
	if err := tl.mark("weighting"); err != nil {
		return nil, err
	}
	values, err := nodeValues[T](SoA, &nd, nn)
	if err != nil {
		return nil, err
	}
	if err := tl.mark("download"); err != nil {
		return nil, err
	}
	return tl.finish(values)
}

// PaperBBox computes the samples' bounding box (min x, min y, max x, max y) with a reduction of
// the reduction article, reps times after a warm-up, and returns the box and the median time of
// the reduction alone (the samples are uploaded beforehand, untimed).
func (d *Device) PaperBBox(m BBoxMethod, x, y []float64, reps int) ([4]float64, time.Duration, error) {
	var box [4]float64
	var med time.Duration
	n := len(x)
	if n == 0 || len(y) != n {
		return box, 0, fmt.Errorf("bounding box of %d x and %d y", n, len(y))
	}
	err := d.do(func() error {
		var bx, by, part, keys, counter buffer
		defer freeAll(&bx, &by, &part, &keys, &counter)
		var err error
		if bx, err = uploadNew(x); err != nil {
			return err
		}
		if by, err = uploadNew(y); err != nil {
			return err
		}
		nb := max(1, min(blocks(n, bboxBlock), 4*d.sms))
		if part, err = allocN[float64](4 * (nb + 1)); err != nil {
			return err
		}
		out := at[float64](part, 4*nb)
		var run func() error
		switch m {
		case TwoPass:
			run = func() error {
				if err := d.launch("bbox_partial", nb, 1, bboxBlock, bx, by, n, part); err != nil {
					return err
				}
				return d.launch("bbox_final", 1, 1, bboxBlock, part, nb, out)
			}
		case Atomic:
			if keys, err = allocN[uint64](4); err != nil {
				return err
			}
			run = func() error {
				if err := cu.MemsetD32(keys.ptr, math.MaxUint32, 4); err != nil {
					return err
				}
				if err := cu.MemsetD32(at[uint64](keys, 2), 0, 4); err != nil {
					return err
				}
				return d.launch("bbox_atomic", nb, 1, bboxBlock, bx, by, n, keys)
			}
		case Retirement:
			if counter, err = allocN[uint32](1); err != nil {
				return err
			}
			if err := cu.MemsetD32(counter.ptr, 0, 1); err != nil {
				return err
			}
			run = func() error { return d.launch("bbox_retire", nb, 1, bboxBlock, bx, by, n, part, counter, out) }
		default:
			return fmt.Errorf("no bounding-box reduction %q", m)
		}
		if med, err = medianTime(reps, run); err != nil {
			return err
		}
		if m == Atomic {
			var k [4]uint64
			if err := download(k[:], keys, 0); err != nil {
				return err
			}
			for i, v := range k {
				box[i] = fromOrdKey(v)
			}
			return nil
		}
		return download(box[:], part, 4*nb)
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

// medianTime runs f once to warm up, then reps times between two events, and returns the median
// (device thread only).
func medianTime(reps int, f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	times := make([]time.Duration, max(reps, 1))
	for i := range times {
		tl, err := startTimeline()
		if err == nil {
			if err = f(); err == nil {
				err = tl.mark("run")
			}
		}
		var r *PaperRun
		if err == nil {
			r, err = tl.finish(nil)
		}
		tl.destroy()
		if err != nil {
			return 0, err
		}
		times[i] = r.Elapsed
	}
	for i := 1; i < len(times); i++ { // insertion sort: a handful of values
		for j := i; j > 0 && times[j] < times[j-1]; j-- {
			times[j], times[j-1] = times[j-1], times[j]
		}
	}
	return times[len(times)/2], nil
}

// timeline records CUDA events on the default stream between named stages.
type timeline struct {
	events []cu.Event
	names  []string
}

// startTimeline records the start event (device thread only).
func startTimeline() (*timeline, error) {
	t := &timeline{}
	return t, t.mark("")
}

// mark ends the stage called name.
func (t *timeline) mark(name string) error {
	e, err := cu.MakeEvent(cu.DefaultEvent)
	if err != nil {
		return fmt.Errorf("creating a CUDA event: %w", err)
	}
	t.events = append(t.events, e)
	t.names = append(t.names, name)
	if err := e.Record(cu.NoStream); err != nil {
		return fmt.Errorf("recording a CUDA event: %w", err)
	}
	return nil
}

// finish waits for the last event and returns the run with its stages; it also reports the
// first error of the kernels launched.
func (t *timeline) finish(values []float64) (*PaperRun, error) {
	last := len(t.events) - 1
	if err := t.events[last].Synchronize(); err != nil {
		return nil, fmt.Errorf("waiting for the device: %w", err)
	}
	if err := synchronize("running the kernels"); err != nil {
		return nil, err
	}
	r := &PaperRun{Values: values}
	for i := 1; i <= last; i++ {
		ms, err := t.events[i-1].Elapsed(t.events[i])
		if err != nil {
			return nil, err
		}
		r.Stages = append(r.Stages, Stage{Name: t.names[i], Elapsed: time.Duration(ms * 1e6)})
		r.Elapsed += time.Duration(ms * 1e6)
	}
	return r, nil
}

func (t *timeline) destroy() {
	for i := range t.events {
		cu.DestroyEvent(&t.events[i])
	}
}
