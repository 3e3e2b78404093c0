package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
)

// chooseEngine picks the engine for -device, for aidw grid and aidw cv alike: the GPUs when
// asked for (or, with auto, when the build has them and a device answers) and they run this
// algorithm; else the CPU engine. gpus names the GPUs (nil: every visible one); several share
// the work (interp.Multi). Work that holds samples out (cross-validation) runs on the CPU
// engine, the one that can.
func chooseEngine(device string, gpus []int, alg interp.Algorithm, holdOut bool, threads int, stderr io.Writer) (interp.Engine, error) {
	cpu := &interp.CPU{Threads: threads}
	if device == "cpu" {
		return cpu, nil
	}
	if holdOut {
		if device == "gpu" {
			fmt.Fprintln(stderr, "Cross-validation runs on the CPU engine: the GPU engine cannot hold a sample out.")
		}
		return cpu, nil
	}
	gpu, err := openGPUs(gpus)
	if err != nil {
		if device == "gpu" {
			return nil, fmt.Errorf("%s: %w", gpuRequest(gpus), err)
		}
		return cpu, nil
	}
	if bands := interp.BandNames(alg); len(bands) > 1 {
		// only the CPU engine computes the bands after the value
		if device == "gpu" {
			fmt.Fprintf(stderr, "The GPU engine does not compute %s's %s bands: running it on the CPU engine.\n",
				alg.Name(), strings.Join(bands[1:], ", "))
		}
		return cpu, nil
	}
	if why := interp.WhyNot(gpu, alg); why != "" {
		if device == "gpu" {
			fmt.Fprintf(stderr, "The GPU engine does not run %s with these options (%s): running it on the CPU engine.\n",
				alg.Name(), why)
		}
		return cpu, nil
	}
	return gpu, nil
}

// gpuRequest is the GPUs asked for as the flags that ask for them: -device gpu (every visible
// one), -device gpu:<n> (one) or -gpus <n>,<n>... (several).
func gpuRequest(gpus []int) string {
	switch len(gpus) {
	case 0:
		return "-device gpu"
	case 1:
		return fmt.Sprintf("-device gpu:%d", gpus[0])
	}
	return "-gpus " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(gpus)), ","), "[]")
}

// openGPUs opens the engine of each GPU: one engine, or several sharing each problem.
func openGPUs(gpus []int) (interp.Engine, error) {
	engines, err := kernels.OpenEngines(gpus)
	if err != nil {
		return nil, err
	}
	if len(engines) == 1 {
		return engines[0], nil
	}
	return &interp.Multi{Engines: engines}, nil
}
