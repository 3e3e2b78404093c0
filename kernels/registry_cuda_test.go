//go:build cuda

package kernels

import (
	"testing"

	"github.com/aidw/aidw/interp"
)

// TestRegistryGPUForms asks the GPU engine about every algorithm of the registry as declared:
// one that declares no GPU form is refused with a reason that names it (the message of the
// fallback to the CPU engine), one that declares a form runs its declared example
// (GPUExample). The engine decides from the declarations alone, so no device is needed.
func TestRegistryGPUForms(t *testing.T) {
	e := &Engine{}
	for _, d := range interp.Registry {
		a, _, err := interp.ParseAlgorithm(d.GPUExample())
		if err != nil {
			t.Fatal(err)
		}
		why := interp.WhyNot(e, a)
		switch {
		case d.GPU == nil && why != d.Name+" has no GPU form":
			t.Errorf("%s declares no GPU form, and the GPU engine says %q", d.Name, why)
		case d.GPU != nil && why != "":
			t.Errorf("%s declares a GPU form, and the GPU engine refuses it: %s", d.Name, why)
		}
	}
}
