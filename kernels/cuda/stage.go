//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/aidw/aidw/internal/parts"
)

// StagePiece is the size in bytes of each of a device's two pinned staging buffers: large enough that a
// copy runs at the bus's speed, small enough that the pair costs little page-locked memory.
const StagePiece = 32 << 20

// staging is a device's pair of pinned (page-locked) host buffers and the stream its staged
// copies run on. A large copy goes through them in pieces: the host fills one buffer while
// the device's DMA engine reads the other, so that the copy runs near the bus's speed rather
// than pageable memory's (which the driver stages itself, one piece at a time). The stream is
// a blocking one: work on the default stream, where the kernels run, waits for it and it for
// that work, so staged copies keep their order with the kernels.
type staging struct {
	buf    [2]unsafe.Pointer
	done   [2]Event // recorded after the last copy from or into each buffer
	used   [2]bool
	stream stream
}

// stage returns the device's staging, made on first use (device thread only).
func (d *Device) stage() (*staging, error) {
	if d.st != nil {
		return d.st, nil
	}
	st := &staging{}
	var err error
	if st.stream, err = newStream(); err != nil {
		return nil, fmt.Errorf("creating a CUDA stream: %w", err)
	}
	for k := range st.buf {
		if st.buf[k], err = memAllocHost(StagePiece); err != nil {
			st.free()
			return nil, fmt.Errorf("allocating %d bytes of pinned host memory: %w", StagePiece, err)
		}
		if st.done[k], err = NewEvent(false); err != nil {
			st.free()
			return nil, fmt.Errorf("creating a CUDA event: %w", err)
		}
	}
	d.st = st
	return st, nil
}

// free releases the staging (device thread only).
func (st *staging) free() {
	for k := range st.buf {
		if st.buf[k] != nil {
			memFreeHost(st.buf[k])
			st.buf[k] = nil
		}
		st.done[k].Destroy()
	}
	st.stream.destroy()
}

// piece waits until buffer k is free and returns it as n bytes.
func (st *staging) piece(k int, n int64) ([]byte, error) {
	if st.used[k] {
		if err := st.done[k].Synchronize(); err != nil {
			return nil, fmt.Errorf("waiting for a staged copy: %w", err)
		}
	}
	st.used[k] = true
	return unsafe.Slice((*byte)(st.buf[k]), n), nil
}

// stageCopiers is how many goroutines fill or empty a staging piece: one core's memory copy
// runs at a fraction of the bus's speed.
const stageCopiers = 8

// parallel runs f over [0, n) in up to stageCopiers parts at once.
func parallel(n int, f func(a, b int)) {
	parts.Each(n, min(stageCopiers, runtime.GOMAXPROCS(0), max(1, n>>16)), func(_, a, b int) { f(a, b) })
}

// UploadStaged is Upload through the device's pinned staging buffers (device thread only):
// for the samples and other large arrays. Small ones go straight.
func UploadStaged[T any](d *Device, b Buffer, src []T) error {
	if int64(len(src))*int64(unsafe.Sizeof(*new(T))) <= StagePiece {
		return Upload(b, src)
	}
	return UploadFill(d, b, len(src), func(lo int, p []T) { copy(p, src[lo:]) })
}

// UploadFill writes n elements into b through the device's pinned staging buffers (device
// thread only): fill puts elements [lo, lo+len(p)) into p, which the device then copies while
// fill works on the next piece. It lets a caller convert its data straight into pinned memory.
func UploadFill[T any](d *Device, b Buffer, n int, fill func(lo int, p []T)) error {
	size := int64(unsafe.Sizeof(*new(T)))
	if int64(n)*size > b.Bytes {
		return fmt.Errorf("upload larger than its buffer")
	}
	if n == 0 {
		return nil
	}
	st, err := d.stage()
	if err != nil {
		return err
	}
	per := int(StagePiece / size)
	for lo, k := 0, 0; lo < n; lo, k = lo+per, k^1 {
		m := min(per, n-lo)
		p, err := st.piece(k, int64(m)*size)
		if err != nil {
			return err
		}
		parallel(m, func(a, b int) { fill(lo+a, unsafe.Slice((*T)(unsafe.Pointer(&p[0])), m)[a:b]) })
		if err := memcpyHtoDAsync(b.Ptr+DevicePtr(int64(lo)*size), st.buf[k], int64(m)*size, st.stream); err != nil {
			return fmt.Errorf("copying %d bytes to the device: %w", int64(m)*size, err)
		}
		if err := st.done[k].recordOn(st.stream); err != nil {
			return fmt.Errorf("recording a CUDA event: %w", err)
		}
	}
	// the caller's data may change or go once this returns: wait for the last pieces
	if err := st.stream.synchronize(); err != nil {
		return fmt.Errorf("copying %d bytes to the device: %w", int64(n)*size, err)
	}
	return nil
}

// UploadStagedNew allocates a buffer holding a copy of src, staged (device thread only).
func UploadStagedNew[T any](d *Device, src []T) (Buffer, error) {
	b, err := AllocN[T](len(src))
	if err != nil {
		return b, err
	}
	if err := UploadStaged(d, b, src); err != nil {
		b.Free()
		return Buffer{}, err
	}
	return b, nil
}

// DownloadStaged is Download through the device's pinned staging buffers (device thread only):
// the device fills one buffer while the host empties the other.
func DownloadStaged[T any](d *Device, dst []T, b Buffer, off int) error {
	if len(dst) == 0 {
		return nil
	}
	size := int64(unsafe.Sizeof(dst[0]))
	n := int64(len(dst)) * size
	if int64(off)*size+n > b.Bytes {
		return fmt.Errorf("download beyond its buffer")
	}
	if n <= StagePiece {
		return Download(dst, b, off)
	}
	st, err := d.stage()
	if err != nil {
		return err
	}
	host := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), n)
	from := b.Ptr + DevicePtr(int64(off)*size)
	// issue piece i's copy, then empty piece i-1 while it runs
	var prev struct {
		k        int
		off, len int64
	}
	prev.len = -1
	drain := func() error {
		if prev.len < 0 {
			return nil
		}
		p, err := st.piece(prev.k, prev.len)
		if err != nil {
			return err
		}
		h := host[prev.off : prev.off+prev.len]
		parallel(len(p), func(a, b int) { copy(h[a:b], p[a:b]) })
		st.used[prev.k] = false
		return nil
	}
	for o, k := int64(0), 0; o < n; o, k = o+StagePiece, k^1 {
		m := min(StagePiece, n-o)
		if _, err := st.piece(k, m); err != nil {
			return err
		}
		if err := memcpyDtoHAsync(st.buf[k], from+DevicePtr(o), m, st.stream); err != nil {
			return fmt.Errorf("copying %d bytes from the device: %w", m, err)
		}
		if err := st.done[k].recordOn(st.stream); err != nil {
			return fmt.Errorf("recording a CUDA event: %w", err)
		}
		if err := drain(); err != nil {
			return err
		}
		prev.k, prev.off, prev.len = k, o, m
	}
	return drain()
}

// HostAlloc returns n elements of pinned host memory that the DMA engine of every device
// reads without staging (device thread only): for host arrays that UploadAsync sends. Free it
// with HostFree.
func HostAlloc[T any](n int) ([]T, error) {
	if n == 0 {
		return nil, nil
	}
	bytes := int64(n) * int64(unsafe.Sizeof(*new(T)))
	p, err := memHostAllocPortable(bytes)
	if err != nil {
		return nil, fmt.Errorf("allocating %d bytes of pinned host memory: %w", bytes, err)
	}
	return unsafe.Slice((*T)(p), n), nil
}

// HostFree frees memory of HostAlloc (device thread only).
func HostFree[T any](v []T) {
	if cap(v) > 0 {
		memFreeHost(unsafe.Pointer(unsafe.SliceData(v)))
	}
}

// UploadAsync copies src, memory of HostAlloc, into b from element off on the device's
// staging stream and records done after it (device thread only): the copy runs while the
// caller goes on, and src must stay as it is until done. The kernels on the default stream
// wait for it, as for a staged copy.
func UploadAsync[T any](d *Device, b Buffer, off int, src []T, done Event) error {
	size := int64(unsafe.Sizeof(*new(T)))
	n := int64(len(src)) * size
	if int64(off)*size+n > b.Bytes {
		return fmt.Errorf("upload beyond its buffer")
	}
	st, err := d.stage()
	if err != nil {
		return err
	}
	if n > 0 {
		if err := memcpyHtoDAsync(b.Ptr+DevicePtr(int64(off)*size), unsafe.Pointer(unsafe.SliceData(src)), n, st.stream); err != nil {
			return fmt.Errorf("copying %d bytes to the device: %w", n, err)
		}
	}
	if err := done.recordOn(st.stream); err != nil {
		return fmt.Errorf("recording a CUDA event: %w", err)
	}
	return nil
}
