//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"
)

// Buffer is an allocation of device memory, or a part of one.
type Buffer struct {
	Ptr   DevicePtr
	Bytes int64
}

// Alloc allocates bytes of device memory (device thread only); zero bytes give a null buffer.
func Alloc(bytes int64) (Buffer, error) {
	if bytes == 0 {
		return Buffer{}, nil
	}
	p, err := memAlloc(bytes)
	if err != nil {
		return Buffer{}, fmt.Errorf("allocating %d bytes of device memory: %w", bytes, err)
	}
	return Buffer{p, bytes}, nil
}

// AllocN allocates n elements of T (device thread only).
func AllocN[T any](n int) (Buffer, error) {
	var t T
	return Alloc(int64(n) * int64(unsafe.Sizeof(t)))
}

// Free frees the buffer (device thread only) and leaves it null.
func (b *Buffer) Free() {
	if b.Ptr != 0 {
		memFree(b.Ptr)
	}
	*b = Buffer{}
}

// FreeAll frees every buffer given (device thread only).
func FreeAll(bs ...*Buffer) {
	for _, b := range bs {
		b.Free()
	}
}

// At is the device address of element i of a buffer of T.
func At[T any](b Buffer, i int) DevicePtr {
	var t T
	return b.Ptr + DevicePtr(int64(i)*int64(unsafe.Sizeof(t)))
}

// Part is elements lo..hi-1 of a buffer of T (not to be freed).
func Part[T any](b Buffer, lo, hi int) Buffer {
	var t T
	return Buffer{At[T](b, lo), int64(hi-lo) * int64(unsafe.Sizeof(t))}
}

// From is the part of a buffer of T from element i on (not to be freed).
func From[T any](b Buffer, i int) Buffer {
	var t T
	return Buffer{At[T](b, i), b.Bytes - int64(i)*int64(unsafe.Sizeof(t))}
}

// Upload copies src into b (device thread only).
func Upload[T any](b Buffer, src []T) error {
	if len(src) == 0 {
		return nil
	}
	n := int64(len(src)) * int64(unsafe.Sizeof(src[0]))
	if n > b.Bytes {
		return errors.New("upload larger than its buffer")
	}
	if err := memcpyHtoD(b.Ptr, unsafe.Pointer(&src[0]), n); err != nil {
		return fmt.Errorf("copying %d bytes to the device: %w", n, err)
	}
	return nil
}

// UploadNew allocates a buffer holding a copy of src (device thread only).
func UploadNew[T any](src []T) (Buffer, error) {
	b, err := AllocN[T](len(src))
	if err != nil {
		return b, err
	}
	if err := Upload(b, src); err != nil {
		b.Free()
		return Buffer{}, err
	}
	return b, nil
}

// Download copies len(dst) elements from b, starting at element off (device thread only).
func Download[T any](dst []T, b Buffer, off int) error {
	if len(dst) == 0 {
		return nil
	}
	size := int64(unsafe.Sizeof(dst[0]))
	n := int64(len(dst)) * size
	if int64(off)*size+n > b.Bytes {
		return errors.New("download beyond its buffer")
	}
	if err := memcpyDtoH(unsafe.Pointer(&dst[0]), b.Ptr+DevicePtr(int64(off)*size), n); err != nil {
		return fmt.Errorf("copying %d bytes from the device: %w", n, err)
	}
	return nil
}
