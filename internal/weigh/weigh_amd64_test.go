package weigh

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestKernelLayout pins the offsets that weigh_amd64.s reads kernel's fields at.
func TestKernelLayout(t *testing.T) {
	var k kernel
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"invC", unsafe.Offsetof(k.invC), 0},
		{"log2C", unsafe.Offsetof(k.log2C), 128},
		{"exp2", unsafe.Offsetof(k.exp2), 256},
		{"logPoly", unsafe.Offsetof(k.logPoly), 384},
		{"expPoly", unsafe.Offsetof(k.expPoly), 456},
		{"one", unsafe.Offsetof(k.one), 512},
		{"shift", unsafe.Offsetof(k.shift), 520},
		{"minT", unsafe.Offsetof(k.minT), 528},
		{"sixteen", unsafe.Offsetof(k.sixteen), 536},
		{"sixteenth", unsafe.Offsetof(k.sixteenth), 544},
		{"inf", unsafe.Offsetof(k.inf), 552},
	} {
		if f.got != f.want {
			t.Errorf("kernel.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}

// TestKernelAVX2Layout pins the offsets that weigh_amd64.s's AVX2 loops read kernelAVX2's
// fields at.
func TestKernelAVX2Layout(t *testing.T) {
	var k kernelAVX2
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"offset", unsafe.Offsetof(k.offset), 0},
		{"mantissa", unsafe.Offsetof(k.mantissa), 32},
		{"sqrtHalf", unsafe.Offsetof(k.sqrtHalf), 64},
		{"expBits", unsafe.Offsetof(k.expBits), 96},
		{"expBias", unsafe.Offsetof(k.expBias), 128},
		{"one", unsafe.Offsetof(k.one), 160},
		{"logPoly", unsafe.Offsetof(k.logPoly), 192},
		{"shift", unsafe.Offsetof(k.shift), 416},
		{"minT", unsafe.Offsetof(k.minT), 448},
		{"expPoly", unsafe.Offsetof(k.expPoly), 480},
		{"inf", unsafe.Offsetof(k.inf), 832},
	} {
		if f.got != f.want {
			t.Errorf("kernelAVX2.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}

// withAVX2 runs f with Sum and Pairs on the AVX2 loops, so that they are tested on a CPU
// with AVX-512 too; it skips where the CPU lacks AVX2 or FMA.
func withAVX2(t *testing.T, f func()) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA")
	}
	defer func(old bool) { haveAVX512 = old }(haveAVX512)
	haveAVX512 = false
	f()
}

// TestSumKernelsAVX2 is TestSumKernels on the AVX2 loop, whatever the CPU's AVX-512.
func TestSumKernelsAVX2(t *testing.T) { withAVX2(t, func() { TestSumKernels(t) }) }

// TestPairsKernelsAVX2 is TestPairsKernels on the AVX2 loop, whatever the CPU's AVX-512.
func TestPairsKernelsAVX2(t *testing.T) { withAVX2(t, func() { TestPairsKernels(t) }) }

// TestWeightsAVX2 checks each weight w of the AVX2 loop, one sample at a time in lane 0 (the
// others far away), against math.Pow's over d2 from 1e-12 to 1e12, every mantissa, and powers
// up to 16: within 1e-14 relative beyond the rounding of the exponent itself, 2.2e-16 |ln w|
// (measured: 6e-16 beyond it; the AVX-512 and Go loops, 1.3e-14).
func TestWeightsAVX2(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA")
	}
	rng := rand.New(rand.NewPCG(105, 106))
	xs, ys, zs := make([]float64, 8), make([]float64, 8), make([]float64, 8)
	for i := 1; i < 8; i++ {
		xs[i] = 1e100
	}
	zs[0] = 1
	worst := 0.0
	for range 200_000 {
		xs[0] = math.Pow(10, rng.Float64()*12-6)
		alpha := rng.Float64() * 16
		want := math.Pow(xs[0], -alpha)
		if want < 0x1p-1000 || want > 0x1p1000 {
			continue // under the floor of 2^-1000, or beyond exp2's range
		}
		var acc [24]float64
		sumAVX2(&xs[0], &ys[0], &zs[0], 8, 0, 0, -alpha/2, 0, constsAVX2, &acc)
		worst = max(worst, math.Abs(acc[4]-want)/want-2.2e-16*math.Abs(math.Log(want)))
	}
	if worst > 1e-14 {
		t.Errorf("AVX2 weights within %.3g of math.Pow's beyond the exponent's rounding, want 1e-14", worst)
	}
}
