package paperbench

import (
	"fmt"

	"github.com/aidw/aidw/interp/farfield"
)

// gpuCatalog lists the GPU variants of the papers, none implemented: the cuda build gives them
// run functions with Registry.Implement. Names are family/method/layout/precision:
//
//	idw2, idw3   gpu-naive, gpu-tiled, gpu-cdp (improved CDP: one block per node)  x SoA, AoS, AoaS  x f32, f64
//	             gpu-engine (aidw's own kernels, transfers included)                       x f32, f64
//	             gpu-farfield (the engine's far field, tol 1e-6)                                 f32
//	aidw         gpu-naive (brute-force kNN in the kernel, 2015), gpu-tiled         x SoA, AoS, AoaS  x f32, f64
//	             gpu-grid-naive, gpu-grid-tiled (even-grid kNN, 2016; stage breakdown)    SoA  x f32, f64
//	             gpu-engine (aidw's own kernels: grid build, kNN, weighting; stages)       x f32, f64
//	             gpu-farfield (the engine's far field, tol 1e-6)                                 f32
//	bbox         gpu-two-pass, gpu-atomic, gpu-retirement (single pass, retirement counter)    f64
func gpuCatalog() []Variant {
	var out []Variant
	add := func(f Family, method, label string, l Layout, p Precision) {
		out = append(out, Variant{Name: VariantName(f, method, l, p), Family: f, Device: GPU, Method: method,
			Label: label, Layout: l, Precision: p, NotRun: NoGPUEngine})
	}
	farField := func(f Family) {
		add(f, "gpu-farfield", fmt.Sprintf("GPU engine, far field (tol %g)", farfield.DeviceTol), "", F32)
		v := &out[len(out)-1]
		v.NearLinear, v.Tolerance = true, farfield.DeviceTol
	}
	layouts := []Layout{SoA, AoS, AoaS}
	precisions := []Precision{F32, F64}
	for _, f := range []Family{IDW2, IDW3} {
		for _, m := range [][2]string{
			{"gpu-naive", "GPU naive"},
			{"gpu-tiled", "GPU tiled"},
			{"gpu-cdp", "GPU improved CDP (one block per node)"},
		} {
			for _, l := range layouts {
				for _, p := range precisions {
					add(f, m[0], m[1], l, p)
				}
			}
		}
		for _, p := range precisions {
			add(f, "gpu-engine", "GPU engine (aidw kernels)", "", p)
		}
		farField(f)
	}
	for _, m := range [][2]string{
		{"gpu-naive", "GPU naive (brute-force kNN)"},
		{"gpu-tiled", "GPU tiled (brute-force kNN)"},
	} {
		for _, l := range layouts {
			for _, p := range precisions {
				add(AIDW, m[0], m[1], l, p)
			}
		}
	}
	for _, m := range [][2]string{
		{"gpu-grid-naive", "GPU even-grid kNN, naive weighting"},
		{"gpu-grid-tiled", "GPU even-grid kNN, tiled weighting"},
	} {
		for _, p := range precisions {
			add(AIDW, m[0], m[1], SoA, p)
		}
	}
	for _, p := range precisions {
		add(AIDW, "gpu-engine", "GPU engine (aidw kernels)", "", p)
	}
	farField(AIDW)
	for _, m := range [][2]string{
		{"gpu-two-pass", "GPU two-pass reduction"},
		{"gpu-atomic", "GPU single pass, atomics"},
		{"gpu-retirement", "GPU single pass, retirement counter"},
	} {
		add(BBox, m[0], m[1], "", F64)
	}
	return out
}
