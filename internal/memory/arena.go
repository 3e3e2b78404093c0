package memory

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Arena holds a run's large arrays of plain values (the samples' coordinates, their sort's
// records, the index) in mappings of its own, outside the Go heap, so that a process that
// ends can hand their pages back on several threads at once (Release). A process's exit frees
// its pages on the one exiting thread: 1e8 LAS points' 4-5 GB of 4 KiB pages cost 0.40-0.56 s
// of system time, over a second of wall time beside 4 busy processes on 2 cores, of which that
// thread gets a fifth and Release's workers, being more, get more.
//
// Arrays smaller than the arena's least size come from the Go heap, and so does everything of
// a nil *Arena: a run without an arena (a library caller, a tile) is as before. An array made
// in the arena lives until Free, FreeSince or the process's end: the collector never sees it.
type Arena struct {
	least uintptr
	mu    sync.Mutex
	maps  map[uintptr]mapping // by the address of the first byte
	made  int                 // mappings made so far
}

// mapping is one array's pages and its rank among the arena's mappings.
type mapping struct {
	b    []byte
	rank int
}

// NewArena returns an empty arena for arrays of least bytes or more (smaller ones come from
// the heap, where they are reused).
func NewArena(least int) *Arena {
	return &Arena{least: uintptr(max(1, least)), maps: map[uintptr]mapping{}}
}

// Make returns n zero values of T with room for c (c >= n): in a mapping of a's own when a is
// not nil and they take its least size or more, else from the heap. T must hold no pointers,
// which the garbage collector would not see there; Make panics otherwise.
func Make[T any](a *Arena, n, c int) []T {
	var zero T
	size := uintptr(c) * unsafe.Sizeof(zero)
	if a == nil || size < a.least || c > math.MaxInt/int(max(1, unsafe.Sizeof(zero))) {
		return make([]T, n, c)
	}
	if t := reflect.TypeFor[T](); !pointerFree(t) {
		panic(fmt.Sprintf("memory.Make: %v holds pointers", t))
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]T, n, c) // out of mappings or address space: the heap says it better
	}
	a.mu.Lock()
	a.maps[uintptr(unsafe.Pointer(&b[0]))] = mapping{b, a.made}
	a.made++
	a.mu.Unlock()
	shiftLimit(-int64(size))
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), c)[:n]
}

// Free unmaps s's array when a holds it (from its first element on, as Make returned it),
// and says so; an array of the heap is left to the collector. The caller must hold the only
// use of the array: reading it afterwards faults.
func Free[T any](a *Arena, s []T) bool {
	if a == nil || cap(s) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	a.mu.Lock()
	m, ok := a.maps[p]
	delete(a.maps, p)
	a.mu.Unlock()
	if ok {
		unmap(m.b)
	}
	return ok
}

// Drop hands the pages of s's array back to the system when a holds it, on releaseWorkers
// threads, and says so; the array stays mapped (it then reads as zeros), for a caller done
// with an array that others still refer to.
func Drop[T any](a *Arena, s []T) bool {
	if a == nil || cap(s) == 0 {
		return false
	}
	a.mu.Lock()
	m, ok := a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(s)))]
	a.mu.Unlock()
	if ok {
		dropPages(chunksOf(nil, m.b))
	}
	return ok
}

// Bytes is how much a maps now.
func (a *Arena) Bytes() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.maps {
		n += len(m.b)
	}
	return n
}

// Mark is the point of a's life that FreeSince returns to.
func (a *Arena) Mark() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.made
}

// FreeSince unmaps every array a made after mark, for a caller that knows them all dead: a
// source's index once its raster is written, before the next source's.
func (a *Arena) FreeSince(mark int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	var dead [][]byte
	for p, m := range a.maps {
		if m.rank >= mark {
			dead = append(dead, m.b)
			delete(a.maps, p)
		}
	}
	a.mu.Unlock()
	for _, b := range dead {
		unmap(b)
	}
}

// unmap unmaps b, a large b's pages first handed back on several threads (dropPages): the
// kernel frees an unmapped array on the unmapping thread alone, which took one thread 3.5 s
// for the 15 GB of 1e9 samples' sort records while the other cores waited.
func unmap(b []byte) {
	if len(b) > 2*releaseChunk {
		dropPages(chunksOf(nil, b))
	}
	syscall.Munmap(b)
	shiftLimit(int64(len(b)))
}

// releaseWorkers and releaseChunk split the freeing of pages (Release, unmap of a large array):
// a chunk is a few milliseconds of the kernel's freeing. The scheduler shares the cores by
// thread within a session: beside 4 busy processes on 2 cores, 8 threads are due 2/3 of the
// cores, where the one exiting thread is due 1/5.
const (
	releaseWorkers = 8
	releaseChunk   = 64 << 20
)

// Release hands the pages of every array a holds back to the system, on releaseWorkers
// threads at once, for a process about to exit: the mappings stay, so that a worker the run's
// end left behind reads zeros instead of faulting, and the exit then has little to free.
func (a *Arena) Release() {
	if a == nil {
		return
	}
	a.mu.Lock()
	var chunks [][]byte
	for _, m := range a.maps {
		chunks = chunksOf(chunks, m.b)
	}
	a.mu.Unlock()
	dropPages(chunks)
}

// chunksOf appends b's releaseChunk pieces to chunks.
func chunksOf(chunks [][]byte, b []byte) [][]byte {
	for lo := 0; lo < len(b); lo += releaseChunk {
		chunks = append(chunks, b[lo:min(lo+releaseChunk, len(b))])
	}
	return chunks
}

// dropPages hands the pages of chunks back to the system on releaseWorkers threads at once.
func dropPages(chunks [][]byte) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(releaseWorkers, len(chunks)) {
		// Each worker blocks in the kernel, so the runtime hands its P to the next: the
		// workers run on threads of their own.
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(chunks); i = int(next.Add(1) - 1) {
				syscall.Madvise(chunks[i], syscall.MADV_DONTNEED)
			}
		})
	}
	wg.Wait()
}

// shiftLimit moves the garbage collector's soft limit by d bytes, when one is set: the
// arena's mappings take memory the limit (see cmd/aidw's setMemoryLimit) was meant to bound.
func shiftLimit(d int64) {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		debug.SetMemoryLimit(max(0, l+d))
	}
}

// pointerFree says whether values of t hold no pointers.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

type arenaKey struct{}

// WithArena returns ctx carrying a: the arrays a run's readers, sort and index make under ctx
// go into it (see ArenaOf).
func WithArena(ctx context.Context, a *Arena) context.Context {
	return context.WithValue(ctx, arenaKey{}, a)
}

// ArenaOf is the arena ctx carries, or nil.
func ArenaOf(ctx context.Context) *Arena {
	a, _ := ctx.Value(arenaKey{}).(*Arena)
	return a
}
