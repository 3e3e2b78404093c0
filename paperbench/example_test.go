package paperbench_test

import (
	"context"
	"fmt"

	"github.com/aidw/aidw/paperbench"
)

// The cuda build implements the catalogued GPU variants in benchgpu_cuda.go (package main),
// whose RegisterGPU(r *paperbench.Registry) error the bench command calls; this is its shape.
func ExampleRegistry_Implement() {
	r := paperbench.NewRegistry()
	r.GPU = paperbench.GPUInfo{Name: "NVIDIA H100 80GB HBM3", Driver: "550.54.15"}
	err := r.Implement("aidw/gpu-tiled/SoA/f32", func(ctx context.Context, in *paperbench.Input) (*paperbench.Output, error) {
		if in.Samples > 1<<30 {
			return nil, paperbench.CannotRun("more samples than the device holds")
		}
		// Upload in.X, in.Y, in.Z, in.NodeX, in.NodeY as float32 (relative to the square's centre,
		// as in.Local is), launch the kernel, time it with CUDA events, download the values.
		values := make([]float64, in.Nodes)
		return &paperbench.Output{Values: values, Timing: "CUDA events, transfers included",
			Stages: []paperbench.Stage{{Name: "kNN"}, {Name: "weighting"}}}, nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Whatever the build does not implement says why.
	r.SetGPUNotRun("not implemented in this build")
	vs, _ := r.Select(paperbench.Filter{Patterns: []string{"aidw/gpu-tiled/SoA/*"}})
	for _, v := range vs {
		if v.Run != nil {
			fmt.Println(v.Name, "implemented")
		} else {
			fmt.Println(v.Name, "not run:", v.NotRun)
		}
	}
	// Output:
	// aidw/gpu-tiled/SoA/f32 implemented
	// aidw/gpu-tiled/SoA/f64 not run: not implemented in this build
}
