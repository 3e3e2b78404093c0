package interp

import (
	"testing"
	"unsafe"
)

// TestWeighKernelLayout pins the offsets that aidw_amd64.s reads weighKernel's fields at.
func TestWeighKernelLayout(t *testing.T) {
	var k weighKernel
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
	} {
		if f.got != f.want {
			t.Errorf("weighKernel.%s at offset %d, the assembly reads it at %d", f.name, f.got, f.want)
		}
	}
}
