//go:build cuda

package kernels

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"
)

//go:embed aidw.ptx
var embeddedPTX string

// Device is one CUDA device with the kernels loaded. The driver API binds a context to an OS
// thread, so everything that touches CUDA runs as a closure on one goroutine locked to its
// thread (do); the exported methods are safe to call from any goroutine.
type Device struct {
	work chan func()
	name string
	sms  int
	mod  cu.Module
	fns  map[string]cu.Function
	ctx  cu.CUContext
}

// Open creates a context on device ordinal and loads the kernels: the embedded PTX, or the
// file named by AIDW_PTX. It fails when no device answers or the driver cannot compile the PTX.
func Open(ordinal int) (*Device, error) {
	d := &Device{work: make(chan func()), fns: map[string]cu.Function{}}
	errc := make(chan error)
	go d.serve(ordinal, errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Device) serve(ordinal int, errc chan<- error) {
	runtime.LockOSThread()
	err := d.init(ordinal)
	errc <- err
	if err != nil {
		return
	}
	for f := range d.work {
		f()
	}
}

func (d *Device) init(ordinal int) error {
	n, err := cu.NumDevices()
	if err != nil {
		return fmt.Errorf("counting CUDA devices: %w", err)
	}
	if ordinal < 0 || ordinal >= n {
		return fmt.Errorf("no CUDA device %d (%d found)", ordinal, n)
	}
	dev := cu.Device(ordinal)
	if d.name, err = dev.Name(); err != nil {
		return fmt.Errorf("naming CUDA device %d: %w", ordinal, err)
	}
	if d.sms, err = dev.Attribute(cu.MultiprocessorCount); err != nil {
		return fmt.Errorf("reading %s's multiprocessor count: %w", d.name, err)
	}
	if d.ctx, err = dev.MakeContext(cu.SchedAuto); err != nil {
		return fmt.Errorf("creating a context on %s: %w", d.name, err)
	}
	src, origin := embeddedPTX, "the embedded PTX"
	if path := os.Getenv("AIDW_PTX"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading AIDW_PTX: %w", err)
		}
		src, origin = string(b), path
	}
	if d.mod, err = cu.LoadData(src); err != nil {
		d.ctx.Destroy()
		return fmt.Errorf("loading %s on %s (the driver may be older than the nvcc that wrote it; see README): %w",
			origin, d.name, err)
	}
	return nil
}

// Name is the device's name, as the driver gives it.
func (d *Device) Name() string { return d.name }

// Close releases the context; the Device cannot be used afterwards.
func (d *Device) Close() error {
	err := d.do(func() error {
		if err := d.mod.Unload(); err != nil {
			return err
		}
		return d.ctx.Destroy()
	})
	close(d.work)
	return err
}

// do runs f on the device's thread and returns its error.
func (d *Device) do(f func() error) error {
	errc := make(chan error, 1)
	d.work <- func() { errc <- f() }
	return <-errc
}

// fn returns the kernel called name (device thread only).
func (d *Device) fn(name string) (cu.Function, error) {
	if f, ok := d.fns[name]; ok {
		return f, nil
	}
	f, err := d.mod.Function(name)
	if err != nil {
		return f, fmt.Errorf("kernel %s: %w", name, err)
	}
	d.fns[name] = f
	return f, nil
}

// launch starts kernel name on a gx x gy grid of blocks of threads (device thread only).
// Arguments are buffers, device pointers, integers or float64s: each is passed as the 8 bytes
// that cu's Launch copies, so kernels take only pointers and 64-bit scalars.
func (d *Device) launch(name string, gx, gy, threads int, args ...any) error {
	if gx <= 0 || gy <= 0 {
		return nil
	}
	f, err := d.fn(name)
	if err != nil {
		return err
	}
	vals := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case buffer:
			vals[i] = uint64(v.ptr)
		case cu.DevicePtr:
			vals[i] = uint64(v)
		case int:
			vals[i] = uint64(int64(v))
		case int64:
			vals[i] = uint64(v)
		case float64:
			vals[i] = math.Float64bits(v)
		default:
			return fmt.Errorf("kernel %s: argument %d has unsupported type %T", name, i, a)
		}
		params[i] = unsafe.Pointer(&vals[i])
	}
	if err := f.Launch(gx, gy, 1, threads, 1, 1, 0, cu.NoStream, params); err != nil {
		return fmt.Errorf("launching %s (%dx%d blocks of %d): %w", name, gx, gy, threads, err)
	}
	return nil
}

// synchronize waits for the device's work and reports the first error of a kernel (device
// thread only).
func synchronize(what string) error {
	if err := cu.Synchronize(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// blocks is the number of blocks of threads that cover n items.
func blocks(n, threads int) int { return (n + threads - 1) / threads }

// buffer is an allocation of device memory.
type buffer struct {
	ptr   cu.DevicePtr
	bytes int64
}

// alloc allocates bytes of device memory (device thread only); zero bytes give a null buffer.
func alloc(bytes int64) (buffer, error) {
	if bytes == 0 {
		return buffer{}, nil
	}
	p, err := cu.MemAlloc(bytes)
	if err != nil {
		return buffer{}, fmt.Errorf("allocating %d bytes of device memory: %w", bytes, err)
	}
	return buffer{p, bytes}, nil
}

// allocN allocates n elements of T.
func allocN[T any](n int) (buffer, error) {
	var t T
	return alloc(int64(n) * int64(unsafe.Sizeof(t)))
}

func (b *buffer) free() {
	if b.ptr != 0 {
		cu.MemFree(b.ptr)
	}
	*b = buffer{}
}

// freeAll frees every buffer given.
func freeAll(bs ...*buffer) {
	for _, b := range bs {
		b.free()
	}
}

// upload copies src into b (device thread only).
func upload[T any](b buffer, src []T) error {
	if len(src) == 0 {
		return nil
	}
	n := int64(len(src)) * int64(unsafe.Sizeof(src[0]))
	if n > b.bytes {
		return errors.New("upload larger than its buffer")
	}
	if err := cu.MemcpyHtoD(b.ptr, unsafe.Pointer(&src[0]), n); err != nil {
		return fmt.Errorf("copying %d bytes to the device: %w", n, err)
	}
	return nil
}

// uploadNew allocates a buffer holding a copy of src.
func uploadNew[T any](src []T) (buffer, error) {
	b, err := allocN[T](len(src))
	if err != nil {
		return b, err
	}
	if err := upload(b, src); err != nil {
		b.free()
		return buffer{}, err
	}
	return b, nil
}

// download copies len(dst) elements from b, starting at element off (device thread only).
func download[T any](dst []T, b buffer, off int) error {
	if len(dst) == 0 {
		return nil
	}
	size := int64(unsafe.Sizeof(dst[0]))
	n := int64(len(dst)) * size
	if int64(off)*size+n > b.bytes {
		return errors.New("download beyond its buffer")
	}
	if err := cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr+cu.DevicePtr(int64(off)*size), n); err != nil {
		return fmt.Errorf("copying %d bytes from the device: %w", n, err)
	}
	return nil
}

// at is the device address of element i of a buffer of T.
func at[T any](b buffer, i int) cu.DevicePtr {
	var t T
	return b.ptr + cu.DevicePtr(int64(i)*int64(unsafe.Sizeof(t)))
}
