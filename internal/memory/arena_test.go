package memory

import (
	"context"
	"math"
	"runtime/debug"
	"slices"
	"testing"
)

// Arrays of the arena's least size or more are mapped, zeroed and writable; smaller ones, and
// every array of a nil arena, come from the heap; Free unmaps only the arena's own.
func TestArenaMakeFree(t *testing.T) {
	a := NewArena(1 << 20)
	big := Make[float64](a, 1<<17, 1<<18) // 2 MiB of room
	if len(big) != 1<<17 || cap(big) != 1<<18 {
		t.Fatalf("len %d cap %d, want %d %d", len(big), cap(big), 1<<17, 1<<18)
	}
	if got := a.Bytes(); got != 2<<20 {
		t.Fatalf("arena holds %d bytes, want %d", got, 2<<20)
	}
	big = big[:cap(big)]
	if slices.ContainsFunc(big, func(v float64) bool { return v != 0 }) {
		t.Fatal("a new array is not zero")
	}
	for i := range big {
		big[i] = float64(i)
	}
	small := Make[int32](a, 10, 10)
	onHeap := Make[int32](nil, 1<<20, 1<<20)
	if got := a.Bytes(); got != 2<<20 {
		t.Fatalf("arena holds %d bytes after heap arrays, want %d", got, 2<<20)
	}
	if Free(a, small) || Free(a, onHeap) || Free(nil, big) {
		t.Fatal("Free says it unmapped an array of the heap")
	}
	if !Free(a, big) || a.Bytes() != 0 {
		t.Fatalf("Free left %d bytes mapped", a.Bytes())
	}
}

// The collector's soft limit, when set, leaves room for what the arena maps while it is
// mapped.
func TestArenaShiftsLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	a := NewArena(1)
	v := Make[byte](a, 3<<20, 3<<20)
	if got := debug.SetMemoryLimit(-1); got != 1<<40-3<<20 {
		t.Errorf("limit %d with 3 MiB mapped, want %d", got, 1<<40-3<<20)
	}
	Free(a, v)
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("limit %d after Free, want %d", got, 1<<40)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	Make[byte](a, 3<<20, 3<<20)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("no limit became %d", got)
	}
}

// Release hands the pages back but keeps the mappings: what a worker left behind reads there
// is zero, and writing works.
func TestArenaRelease(t *testing.T) {
	a := NewArena(1)
	var arrays [][]int32
	for range 3 {
		v := Make[int32](a, 5<<20, 5<<20) // 20 MiB: several chunks of Release
		for i := range v {
			v[i] = int32(i) + 1
		}
		arrays = append(arrays, v)
	}
	a.Release()
	for _, v := range arrays {
		if i := slices.IndexFunc(v, func(x int32) bool { return x != 0 }); i >= 0 {
			t.Fatalf("value %d is %d after Release, want 0", i, v[i])
		}
		v[7] = 3
	}
	if a.Bytes() != 3*20<<20 {
		t.Errorf("Release dropped mappings: %d bytes held", a.Bytes())
	}
	var none *Arena
	none.Release()
}

// Drop hands one array's pages back and keeps its mapping: it reads zeros, the others keep
// their values; an array of the heap is not the arena's.
func TestArenaDrop(t *testing.T) {
	a := NewArena(1 << 20)
	dropped, kept := Make[int64](a, 3<<20, 3<<20), Make[int64](a, 3<<20, 3<<20)
	for i := range dropped {
		dropped[i], kept[i] = int64(i)+1, int64(i)+1
	}
	if !Drop(a, dropped) {
		t.Fatal("Drop did not find the arena's array")
	}
	if i := slices.IndexFunc(dropped, func(x int64) bool { return x != 0 }); i >= 0 {
		t.Fatalf("value %d is %d after Drop, want 0", i, dropped[i])
	}
	for i, v := range kept {
		if v != int64(i)+1 {
			t.Fatalf("the other array's value %d is %d", i, v)
		}
	}
	if a.Bytes() != 2*24<<20 {
		t.Errorf("Drop unmapped: %d bytes held", a.Bytes())
	}
	if Drop(a, make([]int64, 10)) || Drop[int64](nil, kept) {
		t.Error("Drop took an array the arena does not hold")
	}
}

// FreeSince unmaps what was made after the mark, and only that.
func TestArenaFreeSince(t *testing.T) {
	a := NewArena(1)
	keep := Make[float64](a, 1000, 1000)
	mark := a.Mark()
	Make[float64](a, 2000, 2000)
	Make[uint32](a, 3000, 3000)
	a.FreeSince(mark)
	if got := a.Bytes(); got != 8000 {
		t.Errorf("arena holds %d bytes, want the first array's 8000", got)
	}
	keep[999] = 1 // still mapped
	var none *Arena
	none.FreeSince(none.Mark())
}

// A type holding pointers is refused: the collector would not see them in a mapping.
func TestArenaRefusesPointers(t *testing.T) {
	type rec struct {
		x float64
		p *int
	}
	defer func() {
		if recover() == nil {
			t.Error("Make of a type with pointers did not panic")
		}
	}()
	Make[rec](NewArena(1), 10, 10)
}

func TestArenaOf(t *testing.T) {
	if ArenaOf(context.Background()) != nil {
		t.Error("a context without an arena gives one")
	}
	a := NewArena(1)
	if ArenaOf(WithArena(context.Background(), a)) != a {
		t.Error("the context's arena is lost")
	}
}
