package weigh

import (
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
