//go:build cuda

package cuda

import (
	"fmt"
	"math"
)

// Arg is a kernel argument: a launch passes every parameter as 8 bytes, so kernels take
// only pointers and 64-bit scalars, and an Arg is made from nothing else.
type Arg uint64

// Ptr passes a buffer's device address (a null buffer passes NULL).
func Ptr(b Buffer) Arg { return Arg(b.Ptr) }

// Addr passes a device address.
func Addr(p DevicePtr) Arg { return Arg(p) }

// Int passes an integer as a 64-bit i64.
func Int(v int) Arg { return Arg(uint64(int64(v))) }

// F64 passes a float64 (a double).
func F64(v float64) Arg { return Arg(math.Float64bits(v)) }

// Shape is a launch's grid: GX x GY blocks of Threads threads.
type Shape struct{ GX, GY, Threads int }

// Over is the one-dimensional shape covering n items with blocks of threads.
func Over(n, threads int) Shape { return Shape{Blocks(n, threads), 1, threads} }

// Blocks is the number of blocks of threads that cover n items.
func Blocks(n, threads int) int { return (n + threads - 1) / threads }

// kernel returns the kernel called name of the device's modules (device thread only).
func (d *Device) kernel(name string) (function, error) {
	if f, ok := d.fns[name]; ok {
		return f, nil
	}
	var err error
	for _, m := range d.mods {
		var f function
		if f, err = m.function(name); err == nil {
			d.fns[name] = f
			return f, nil
		}
	}
	return function{}, fmt.Errorf("kernel %s: %w", name, err)
}

// Launch starts kernel name on shape s with args (device thread only); an empty grid launches
// nothing. Typed launchers (one Go function per kernel) are its callers.
func (d *Device) Launch(name string, s Shape, args ...Arg) error {
	if s.GX <= 0 || s.GY <= 0 {
		return nil
	}
	f, err := d.kernel(name)
	if err != nil {
		return err
	}
	vals := make([]uint64, len(args))
	for i, a := range args {
		vals[i] = uint64(a)
	}
	if err := f.launch(s.GX, s.GY, s.Threads, vals); err != nil {
		return fmt.Errorf("launching %s (%dx%d blocks of %d): %w", name, s.GX, s.GY, s.Threads, err)
	}
	return nil
}
