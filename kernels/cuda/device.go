//go:build cuda

package cuda

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Device is one CUDA device with a module loaded (PTX, cubin or fatbin), and any more that
// Load adds. The driver API binds a context to an OS
// thread, so everything that touches CUDA runs as a closure on one goroutine locked to its
// thread (Do); the exported methods other than Do's helpers are safe to call from any
// goroutine. Functions documented "device thread only" must run inside Do.
type Device struct {
	work    chan func()
	ordinal int
	name    string
	sms     int
	ctx     context  // the device's primary context
	mods    []module // the first Open's; a kernel is looked up in them in turn
	fns     map[string]function
	st      *staging     // the pinned buffers of large copies, made on first use
	peers   map[int]bool // devices whose memory this one's copies reach directly (CopyPeer)
}

// Open starts the driver if need be, makes device ordinal's primary context current on the
// device's thread and loads the PTX module ptx (origin names it in errors). It fails when no
// device answers or the driver cannot compile the PTX. Every Device of one GPU shares its
// primary context (one context a GPU), each with its own modules, buffers and staging.
func Open(ordinal int, ptx, origin string) (*Device, error) {
	d := &Device{work: make(chan func()), ordinal: ordinal, fns: map[string]function{}, peers: map[int]bool{}}
	errc := make(chan error)
	go d.serve(ordinal, ptx, origin, errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Device) serve(ordinal int, ptx, origin string, errc chan<- error) {
	runtime.LockOSThread()
	err := d.init(ordinal, ptx, origin)
	errc <- err
	if err != nil {
		return
	}
	for f := range d.work {
		f()
	}
}

func (d *Device) init(ordinal int, ptx, origin string) error {
	n, err := DeviceCount()
	if err != nil {
		return err
	}
	if ordinal < 0 || ordinal >= n {
		return fmt.Errorf("no CUDA device %d (%d found)", ordinal, n)
	}
	if d.name, err = deviceName(ordinal); err != nil {
		return fmt.Errorf("naming CUDA device %d: %w", ordinal, err)
	}
	if d.sms, err = multiprocessors(ordinal); err != nil {
		return fmt.Errorf("reading %s's multiprocessor count: %w", d.name, err)
	}
	if d.ctx, err = retainPrimaryContext(ordinal); err != nil {
		return fmt.Errorf("making %s's context current: %w", d.name, err)
	}
	if err := d.load(ptx, origin); err != nil {
		releasePrimaryContext(ordinal)
		return err
	}
	return nil
}

// Load loads one more module (PTX, cubin or fatbin; origin names it in errors) beside the
// device's, whose kernels stay first: a kernel name the device's module holds is its.
func (d *Device) Load(image, origin string) error {
	return d.Do(func() error { return d.load(image, origin) })
}

func (d *Device) load(image, origin string) error {
	m, err := loadModule(image)
	if err != nil {
		return fmt.Errorf("loading %s on %s (the driver may be older than the nvcc that wrote it; see README): %w",
			origin, d.name, err)
	}
	d.mods = append(d.mods, m)
	return nil
}

// CanCopyFrom says whether d's copies reach from's memory directly (NVLink, PCIe peer to
// peer), or d and from are one GPU.
func (d *Device) CanCopyFrom(from *Device) bool {
	if from.ordinal == d.ordinal {
		return true
	}
	can, err := canAccessPeer(d.ordinal, from.ordinal)
	return err == nil && can
}

// CopyPeer copies src, a buffer of device from, into dst, a buffer of d at least as large, and
// waits for the copy (device thread only: d's). See CanCopyFrom.
func (d *Device) CopyPeer(dst Buffer, from *Device, src Buffer) error {
	if src.Bytes > dst.Bytes {
		return fmt.Errorf("copy larger than its buffer")
	}
	if from.ordinal != d.ordinal && !d.peers[from.ordinal] {
		if err := enablePeerAccess(from.ctx); err != nil {
			return fmt.Errorf("reaching %s's memory from %s: %w", from.name, d.name, err)
		}
		d.peers[from.ordinal] = true
	}
	err := memcpyPeer(dst.Ptr, d.ctx, src.Ptr, from.ctx, src.Bytes)
	if err == nil {
		err = ctxSynchronize() // the copy is not always synchronous
	}
	if err != nil {
		return fmt.Errorf("copying %d bytes from %s: %w", src.Bytes, from.name, err)
	}
	return nil
}

// Name is the device's name, as the driver gives it.
func (d *Device) Name() string { return d.name }

// SMs is the device's number of multiprocessors.
func (d *Device) SMs() int { return d.sms }

// Close unloads the Device's modules and releases its hold on the context, which the driver
// destroys with the last hold on it; the Device cannot be used afterwards.
func (d *Device) Close() error {
	err := d.Do(func() error {
		if d.st != nil {
			d.st.free()
			d.st = nil
		}
		for _, m := range d.mods {
			if err := m.unload(); err != nil {
				return err
			}
		}
		return releasePrimaryContext(d.ordinal)
	})
	close(d.work)
	return err
}

// Do runs f on the device's thread and returns its error.
func (d *Device) Do(f func() error) error {
	errc := make(chan error, 1)
	d.work <- func() { errc <- f() }
	return <-errc
}

// MemoryTotal is the device's memory in bytes.
func (d *Device) MemoryTotal() (int64, error) {
	var total int64
	err := d.Do(func() error {
		var err error
		_, total, err = memGetInfo()
		return err
	})
	return total, err
}

// FreeMemory is the device's free memory in bytes, 0 when the driver does not say (device
// thread only).
func FreeMemory() int64 {
	free, _, err := memGetInfo()
	if err != nil {
		return 0
	}
	return free
}

// Synchronize waits for the device's work and reports the first error of a kernel (device
// thread only).
func Synchronize(what string) error {
	if err := ctxSynchronize(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Driver describes the driver: the kernel module's version where /proc/driver/nvidia/version
// gives it, and the CUDA version of the driver API.
func Driver() string {
	v := DriverVersion()
	api := fmt.Sprintf("CUDA %d.%d", v/1000, v%1000/10)
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return api
	}
	line, _, _ := strings.Cut(string(b), "\n") // "NVRM version: NVIDIA UNIX ... Kernel Module ... 580.95.05 ..."
	for _, w := range strings.Fields(line) {
		if strings.Count(w, ".") >= 1 && strings.Trim(w, "0123456789.") == "" {
			return w + " (" + api + ")"
		}
	}
	return api
}
