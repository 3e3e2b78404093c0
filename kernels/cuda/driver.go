//go:build cuda

package cuda

// The binding to the CUDA driver API: the few calls the engine and the papers' experiments
// make, and nothing at package init, so that a cuda build starts on a host whose driver finds
// no GPU and the driver starts (cuInit) only when a device is counted or opened.

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdlib.h>

// launch starts f on the default stream with n parameters of 8 bytes each, vals[i] being
// parameter i. The array of pointers is C's: cgo lets C hold no Go memory that holds pointers.
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned threads, unsigned long long *vals, int n) {
	void *params[n > 0 ? n : 1];
	for (int i = 0; i < n; i++) params[i] = &vals[i];
	return cuLaunchKernel(f, gx, gy, 1, threads, 1, 1, 0, NULL, params, NULL);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// DevicePtr is an address in device memory (a CUdeviceptr).
type DevicePtr uint64

// cudaError is a CUresult other than CUDA_SUCCESS.
type cudaError C.CUresult

func (e cudaError) Error() string {
	var name, desc *C.char
	C.cuGetErrorName(C.CUresult(e), &name)
	C.cuGetErrorString(C.CUresult(e), &desc)
	if name == nil || desc == nil {
		return fmt.Sprintf("CUDA error %d", int(e))
	}
	return C.GoString(name) + " (" + C.GoString(desc) + ")"
}

func check(r C.CUresult) error {
	if r != C.CUDA_SUCCESS {
		return cudaError(r)
	}
	return nil
}

// DeviceCount starts the driver, if it has not started, and counts the devices it shows.
// cuInit is idempotent and thread-safe, so every count or open may call it.
func DeviceCount() (int, error) {
	if r := C.cuInit(0); r == C.CUDA_ERROR_NO_DEVICE {
		return 0, fmt.Errorf("the CUDA driver found no GPU: %w", cudaError(r))
	} else if r != C.CUDA_SUCCESS {
		return 0, fmt.Errorf("starting the CUDA driver: %w", cudaError(r))
	}
	var n C.int
	if err := check(C.cuDeviceGetCount(&n)); err != nil {
		return 0, fmt.Errorf("counting CUDA devices: %w", err)
	}
	return int(n), nil
}

// DriverVersion is the CUDA version of the driver API, as 1000*major + 10*minor (0 when the
// driver does not say).
func DriverVersion() int {
	var v C.int
	if C.cuDriverGetVersion(&v) != C.CUDA_SUCCESS {
		return 0
	}
	return int(v)
}

func deviceHandle(ordinal int) (C.CUdevice, error) {
	var dev C.CUdevice
	return dev, check(C.cuDeviceGet(&dev, C.int(ordinal)))
}

// deviceName is the name of device ordinal, as the driver gives it.
func deviceName(ordinal int) (string, error) {
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return "", err
	}
	var buf [256]C.char
	if err := check(C.cuDeviceGetName(&buf[0], C.int(len(buf)), dev)); err != nil {
		return "", err
	}
	return C.GoString(&buf[0]), nil
}

// multiprocessors is device ordinal's number of multiprocessors.
func multiprocessors(ordinal int) (int, error) {
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return 0, err
	}
	var n C.int
	return int(n), check(C.cuDeviceGetAttribute(&n, C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))
}

// retainPrimaryContext makes device ordinal's primary context current on the calling thread,
// retaining it: every Device of one GPU shares the one context, and the call is the same in
// the headers of CUDA 12 and 13 (cuCtxCreate is not).
func retainPrimaryContext(ordinal int) (context, error) {
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return context{}, err
	}
	var ctx C.CUcontext
	if err := check(C.cuDevicePrimaryCtxRetain(&ctx, dev)); err != nil {
		return context{}, err
	}
	if err := check(C.cuCtxSetCurrent(ctx)); err != nil {
		C.cuDevicePrimaryCtxRelease(dev)
		return context{}, err
	}
	return context{ctx}, nil
}

// context is a CUDA context.
type context struct{ c C.CUcontext }

// canAccessPeer says whether device ordinal can read peer's memory directly (NVLink, PCIe peer
// to peer).
func canAccessPeer(ordinal, peer int) (bool, error) {
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return false, err
	}
	other, err := deviceHandle(peer)
	if err != nil {
		return false, err
	}
	var can C.int
	err = check(C.cuDeviceCanAccessPeer(&can, dev, other))
	return can != 0, err
}

// enablePeerAccess lets the current context's copies and kernels reach peer's memory directly;
// access already enabled is no error.
func enablePeerAccess(peer context) error {
	if r := C.cuCtxEnablePeerAccess(peer.c, 0); r != C.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
		return check(r)
	}
	return nil
}

// memcpyPeer copies bytes from src in context from to dst in context to.
func memcpyPeer(dst DevicePtr, to context, src DevicePtr, from context, bytes int64) error {
	return check(C.cuMemcpyPeer(C.CUdeviceptr(dst), to.c, C.CUdeviceptr(src), from.c, C.size_t(bytes)))
}

// releasePrimaryContext releases what retainPrimaryContext retained; the driver destroys the
// context, with everything in it, when its last holder releases it.
func releasePrimaryContext(ordinal int) error {
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return err
	}
	return check(C.cuDevicePrimaryCtxRelease(dev))
}

// ctxSynchronize waits for the current context's work and returns the first error of a kernel.
func ctxSynchronize() error { return check(C.cuCtxSynchronize()) }

// memGetInfo is the device's free and total memory in bytes.
func memGetInfo() (free, total int64, err error) {
	var f, t C.size_t
	err = check(C.cuMemGetInfo(&f, &t))
	return int64(f), int64(t), err
}

// module is a loaded module of kernels.
type module struct{ m C.CUmodule }

// loadModule loads image (PTX, cubin or fatbin). The driver reads PTX up to a NUL, and wants a
// cubin or fatbin aligned, so it gets a C copy, which it needs only until it returns.
func loadModule(image string) (module, error) {
	c := C.CString(image)
	defer C.free(unsafe.Pointer(c))
	var m module
	return m, check(C.cuModuleLoadData(&m.m, unsafe.Pointer(c)))
}

func (m module) unload() error { return check(C.cuModuleUnload(m.m)) }

// function is a kernel of a loaded module.
type function struct{ f C.CUfunction }

func (m module) function(name string) (function, error) {
	c := C.CString(name)
	defer C.free(unsafe.Pointer(c))
	var f function
	return f, check(C.cuModuleGetFunction(&f.f, m.m, c))
}

// launch starts f on gx x gy blocks of threads threads, on the default stream; each of args
// is one parameter of 8 bytes (a pointer, an i64 or a double), copied before launch returns.
func (f function) launch(gx, gy, threads int, args []uint64) error {
	var vals *C.ulonglong
	if len(args) > 0 {
		vals = (*C.ulonglong)(unsafe.Pointer(&args[0]))
	}
	return check(C.launch(f.f, C.uint(gx), C.uint(gy), C.uint(threads), vals, C.int(len(args))))
}

// stream is a stream of work; a blocking one (flags 0) keeps its order with the default
// stream's work both ways.
type stream struct{ s C.CUstream }

func newStream() (stream, error) {
	var s stream
	return s, check(C.cuStreamCreate(&s.s, C.CU_STREAM_DEFAULT))
}

func (s stream) synchronize() error { return check(C.cuStreamSynchronize(s.s)) }

// destroy destroys the stream, if it was made.
func (s stream) destroy() {
	if s.s != nil {
		C.cuStreamDestroy(s.s)
	}
}

// Event is a CUDA event.
type Event struct{ e C.CUevent }

// NewEvent creates an event; one without timing costs less to record and to wait for but
// cannot measure elapsed time.
func NewEvent(timing bool) (Event, error) {
	flags := C.uint(C.CU_EVENT_DEFAULT)
	if !timing {
		flags = C.CU_EVENT_DISABLE_TIMING
	}
	var e Event
	return e, check(C.cuEventCreate(&e.e, flags))
}

// Record records the event on the default stream.
func (e Event) Record() error { return e.recordOn(stream{}) }

func (e Event) recordOn(s stream) error { return check(C.cuEventRecord(e.e, s.s)) }

// Synchronize waits for the event.
func (e Event) Synchronize() error { return check(C.cuEventSynchronize(e.e)) }

// Elapsed is the time in milliseconds from e to end, both recorded with timing.
func (e Event) Elapsed(end Event) (float64, error) {
	var ms C.float
	err := check(C.cuEventElapsedTime(&ms, e.e, end.e))
	return float64(ms), err
}

// Destroy destroys the event, if it was made.
func (e Event) Destroy() {
	if e.e != nil {
		C.cuEventDestroy(e.e)
	}
}

func memAlloc(bytes int64) (DevicePtr, error) {
	var p C.CUdeviceptr
	err := check(C.cuMemAlloc(&p, C.size_t(bytes)))
	return DevicePtr(p), err
}

func memFree(p DevicePtr) { C.cuMemFree(C.CUdeviceptr(p)) }

// memcpyHtoD and the other copies take host memory as an unsafe.Pointer: Go memory that
// holds no Go pointers (cgo checks) or pinned memory.
func memcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes int64) error {
	return check(C.cuMemcpyHtoD(C.CUdeviceptr(dst), src, C.size_t(bytes)))
}

func memcpyDtoH(dst unsafe.Pointer, src DevicePtr, bytes int64) error {
	return check(C.cuMemcpyDtoH(dst, C.CUdeviceptr(src), C.size_t(bytes)))
}

func memcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes int64, s stream) error {
	return check(C.cuMemcpyHtoDAsync(C.CUdeviceptr(dst), src, C.size_t(bytes), s.s))
}

func memcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes int64, s stream) error {
	return check(C.cuMemcpyDtoHAsync(dst, C.CUdeviceptr(src), C.size_t(bytes), s.s))
}

// MemsetD32 sets n 32-bit words from p to v (device thread only).
func MemsetD32(p DevicePtr, v uint32, n int) error {
	return check(C.cuMemsetD32(C.CUdeviceptr(p), C.uint(v), C.size_t(n)))
}

// memAllocHost allocates bytes of pinned (page-locked) host memory.
func memAllocHost(bytes int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check(C.cuMemAllocHost(&p, C.size_t(bytes)))
	return p, err
}

func memFreeHost(p unsafe.Pointer) { C.cuMemFreeHost(p) }

// memHostAllocPortable allocates bytes of pinned host memory that every context takes as
// pinned, not only the current one's: a window the GPUs of a group copy from.
func memHostAllocPortable(bytes int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check(C.cuMemHostAlloc(&p, C.size_t(bytes), C.CU_MEMHOSTALLOC_PORTABLE))
	return p, err
}
