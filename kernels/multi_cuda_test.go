//go:build cuda

package kernels

import (
	"math"
	"testing"

	"github.com/aidw/aidw/interp"
)

// Several GPU engines sharing a problem (interp.Multi) give one engine's raster, bit for bit,
// summing every sample or by far field (each engine builds its own tree), the samples taken
// from the host by each or in slices that each GPU takes and the others copy (Together), each
// engine joining as it is ready. With one GPU the test opens it up to three more times: each engine has its own
// module, buffers and thread (on the GPU's one context), as on a host with several GPUs, and
// the parts go to whichever is free.
func TestMultiGPUEqualsOne(t *testing.T) {
	gpus, engines := testGroup(t, 4)
	for k, far := range []FarFieldMode{FarFieldOff, FarFieldOn, FarFieldOff} {
		for _, e := range gpus {
			e.FarField = far
			e.shareFrom = 1 + k/2*sharedSamples // the first two share every upload, the last none
		}
		for _, d := range testSets() {
			for _, spec := range []string{"aidw", "aidw:max_points=15", "invdist:power=2"} {
				p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
				want := gridValues(t, engines[0], p)
				for n := 2; n <= len(engines); n++ {
					got := gridValues(t, &interp.Multi{Engines: engines[:n], PartRows: 1 + n%3}, p)
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s %s (far field %d) on %d engines: node %d is %v, one gives %v", d.name, spec, far,
								n, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// Every float32 global weighting kernel (the engine's and the benchmark's others) runs through
// the one launcher within the float32 tolerance of the CPU engine, in chunks that start at
// any node (so at any lane).
func TestEveryF32WeightingMatchesCPU(t *testing.T) {
	d := clusteredSet(61, 15000)
	p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, "aidw")}
	want := gridValues(t, &interp.CPU{}, p)
	for _, w := range f32Weightings {
		e := NewEngine(testDev)
		e.f32Kernel, e.chunkNodes = w.name, 1000
		compareValues(t, w.name, gridValues(t, e, p), want, p.Alg.NoData(), 1e-5)
	}
}
