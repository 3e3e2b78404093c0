//go:build cuda

package kernels

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
)

// OpenEngines opens the GPU engine on the devices named by their numbers among the visible
// ones (CUDA_VISIBLE_DEVICES narrows those, as for every CUDA program), or on every visible
// device when devices is nil; each device has its context on a goroutine of its own.
// AIDW_GPU_FLOAT64=1 runs the global weighting in float64 (within 1e-12 of the CPU engine
// instead of 1e-5, several times slower); AIDW_GPU_TIMES=1 has each engine print its phases'
// times to standard error.
func OpenEngines(devices []int) ([]interp.Engine, error) {
	n, err := cuda.DeviceCount()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("no CUDA device is visible")
	}
	if devices == nil {
		for i := range n {
			devices = append(devices, i)
		}
	}
	for _, i := range devices {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("GPU %d: %d device(s) are visible, numbered from 0", i, n)
		}
	}
	// side by side: a context and its module take 0.15 s or more a device
	devs := make([]*cuda.Device, len(devices))
	errs := make([]error, len(devices))
	var wg sync.WaitGroup
	for k, i := range devices {
		wg.Go(func() {
			if devs[k], errs[k] = Open(i); errs[k] != nil {
				errs[k] = fmt.Errorf("GPU %d: %w", i, errs[k])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, d := range devs {
			if d != nil {
				d.Close()
			}
		}
		return nil, err
	}
	var out []interp.Engine
	for k, i := range devices {
		e := NewEngine(devs[k])
		e.ordinal = i
		e.Float64 = os.Getenv("AIDW_GPU_FLOAT64") == "1"
		if os.Getenv("AIDW_GPU_TIMES") == "1" {
			e.Times = os.Stderr
		}
		out = append(out, e)
	}
	return out, nil
}

// OrdersCompact says whether the GPU engine orders algorithm a's compact samples itself (see
// Engine.OrdersCompact), known before any GPU is open: a run reads its samples while the GPUs
// open.
func OrdersCompact(a interp.Algorithm) bool { return (&Engine{}).OrdersCompact(a) }
