//go:build cuda

package paperbench

import (
	"context"
	"fmt"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/paperbench/gpu"
)

// RegisterGPU implements the GPU variants of paperbench's catalogue on the first CUDA
// device: the papers' kernels (paperbench/gpu and its module) and aidw's own GPU engine. Without a device
// every GPU variant is reported as not run, with the reason.
func RegisterGPU(r *Registry) error {
	dev, err := kernels.Open(0)
	if err != nil {
		r.SetGPUNotRun("no CUDA device answered: " + err.Error())
		return nil
	}
	if err := gpu.Load(dev); err != nil {
		r.SetGPUNotRun("the papers' kernels did not load: " + err.Error())
		return nil
	}
	r.GPU = GPUInfo{Name: dev.Name(), Driver: cuda.Driver()}
	if total, err := dev.MemoryTotal(); err == nil {
		r.GPU.Memory = fmt.Sprintf("%.0f GiB", float64(total)/(1<<30))
	}
	for _, v := range r.Variants() {
		if v.Device != GPU {
			continue
		}
		run, err := gpuVariant(dev, v)
		if err != nil {
			return fmt.Errorf("variant %s: %w", v.Name, err)
		}
		if run == nil {
			continue
		}
		if err := r.Implement(v.Name, run); err != nil {
			return err
		}
	}
	r.SetGPUNotRun("this build has no kernel for this variant")
	return nil
}

// gpuVariant returns the run function of a catalogued GPU variant, nil for one it does not know.
func gpuVariant(dev *cuda.Device, v Variant) (RunFunc, error) {
	f64 := v.Precision == F64
	switch v.Method {
	case "gpu-engine":
		return engineRun(dev, f64, kernels.FarFieldOff), nil
	case "gpu-farfield":
		return engineRun(dev, f64, kernels.FarFieldOn), nil
	}
	if v.Family == BBox {
		m, ok := map[string]gpu.BBoxMethod{"gpu-two-pass": gpu.TwoPass, "gpu-atomic": gpu.Atomic,
			"gpu-retirement": gpu.Retirement}[v.Method]
		if !ok {
			return nil, nil
		}
		return bboxRun(dev, m), nil
	}
	l, ok := map[Layout]gpu.PointLayout{SoA: gpu.SoA, AoS: gpu.AoS, AoaS: gpu.AoaS}[v.Layout]
	if !ok {
		return nil, fmt.Errorf("layout %q has no kernels", v.Layout)
	}
	switch v.Family {
	case IDW2, IDW3:
		m, ok := map[string]gpu.Method{"gpu-naive": gpu.Naive, "gpu-tiled": gpu.Tiled, "gpu-cdp": gpu.CDP}[v.Method]
		if !ok {
			return nil, nil
		}
		return idwRun(dev, m, l, f64), nil
	case AIDW:
		m, ok := map[string]gpu.Method{"gpu-naive": gpu.Naive, "gpu-tiled": gpu.Tiled,
			"gpu-grid-naive": gpu.GridNaive, "gpu-grid-tiled": gpu.GridTiled}[v.Method]
		if !ok {
			return nil, nil
		}
		return aidwRun(dev, m, l, f64), nil
	}
	return nil, nil
}

// paperTiming says what the papers' kernels' times cover, as the AIDW papers time theirs.
const paperTiming = "CUDA events: upload, kernels, download (pageable host memory, allocations included)"

// paperCase is the input relative to the samples' local origin, where float32 keeps its
// precision.
func paperCase(in *Input) *gpu.Case {
	c := &gpu.Case{X: in.Local.X, Y: in.Local.Y, Z: in.Local.Z,
		NodeX: make([]float64, in.Nodes), NodeY: make([]float64, in.Nodes)}
	for i := range c.NodeX {
		c.NodeX[i], c.NodeY[i] = in.NodeX[i]-in.Local.OriginX, in.NodeY[i]-in.Local.OriginY
	}
	return c
}

// output is a run of the papers' kernels as paperbench reports it; stages are kept where asked.
func output(r *gpu.Run, stages bool) *Output {
	out := &Output{Values: r.Values, Elapsed: r.Elapsed, Timing: paperTiming}
	if stages {
		for _, s := range r.Stages {
			out.Stages = append(out.Stages, Stage{Name: s.Name, Elapsed: s.Elapsed})
		}
	}
	return out
}

func idwRun(dev *cuda.Device, m gpu.Method, l gpu.PointLayout, f64 bool) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alg, ok := in.Alg.(*interp.InvDist)
		if !ok {
			return nil, fmt.Errorf("idw variant given %s", in.Alg.Name())
		}
		r, err := gpu.IDW(dev, m, l, f64, alg.Power, paperCase(in))
		if err != nil {
			return nil, err
		}
		return output(r, false), nil
	}
}

// aidwRun runs an AIDW variant; the even-grid ones report their stages, as the 2016 paper's
// Table 3.
func aidwRun(dev *cuda.Device, m gpu.Method, l gpu.PointLayout, f64 bool) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alg, ok := in.Alg.(*interp.AIDW)
		if !ok {
			return nil, fmt.Errorf("aidw variant given %s", in.Alg.Name())
		}
		r, err := gpu.AIDW(dev, m, l, f64, alg, paperCase(in))
		if err != nil {
			return nil, err
		}
		return output(r, m == gpu.GridNaive || m == gpu.GridTiled), nil
	}
}

// bboxReps is how many times a bounding-box reduction is timed (it takes microseconds).
const bboxReps = 20

func bboxRun(dev *cuda.Device, m gpu.BBoxMethod) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		box, med, err := gpu.BBox(dev, m, in.X, in.Y, bboxReps)
		if err != nil {
			return nil, err
		}
		return &Output{Values: box[:], Elapsed: med,
			Timing: fmt.Sprintf("CUDA events, the reduction's kernels only (samples already on the device), median of %d", bboxReps)}, nil
	}
}

// engineRun runs aidw's GPU engine (kernels.Engine) as `aidw grid -device gpu` does, on a
// raster of as many nodes as the case has: summing every sample (the papers' global form), or
// distant ones by the far field.
func engineRun(dev *cuda.Device, f64 bool, far kernels.FarFieldMode) RunFunc {
	e := kernels.NewEngine(dev)
	e.Float64, e.FarField = f64, far
	timing := "wall clock: upload, grid build, kNN, weighting, download (aidw grid -device gpu)"
	if far == kernels.FarFieldOn {
		timing = "wall clock: the far field's tree on the host, upload, grid build, kNN, weighting, download (aidw grid -device gpu)"
	}
	return RasterRun(e, timing)
}
