package grid

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/sample"
)

// The index of samples in canonical order, built with an arena in the context, is the heap's
// bit for bit, and its arrays are the arena's.
func TestIndexInArena(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 200_000
	s := &sample.Samples{QuantumX: 0.01, QuantumY: 0.01}
	for range n {
		s.QX, s.QY, s.Z = append(s.QX, int32(r.IntN(50_000))), append(s.QY, int32(r.IntN(80_000))), append(s.Z, 0)
	}
	if err := sample.Canonicalize(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	want, err := Of(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	a := memory.NewArena(1)
	got, err := Of(memory.WithArena(context.Background(), a), s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout != want.Layout || !slices.Equal(got.Order, want.Order) || !slices.Equal(got.Start, want.Start) ||
		!slices.Equal(got.QX, want.QX) || !slices.Equal(got.QY, want.QY) {
		t.Fatal("the index in the arena differs from the heap's")
	}
	if bytes, arrays := a.Bytes(), 4*(3*n+len(got.Start)); bytes != arrays {
		t.Errorf("the arena maps %d bytes, want the index's %d", bytes, arrays)
	}
}
