package sample

import "github.com/aidw/aidw/internal/memory"

// Grow extends the samples by n slots, to be filled in place (by a reader's workers).
func (s *Samples) Grow(n int) { s.GrowIn(nil, n) }

// GrowIn is Grow with the arrays, when they must move, made in arena a (see memory.Make): a
// run's samples, read once, that the process's exit would free on one thread.
func (s *Samples) GrowIn(a *memory.Arena, n int) {
	l := s.Len() + n
	if s.IsCompact() {
		s.QX, s.QY = growTo(a, s.QX, l), growTo(a, s.QY, l)
	} else {
		s.X, s.Y = growTo(a, s.X, l), growTo(a, s.Y, l)
	}
	s.Z = growTo(a, s.Z, l)
}

// Free lets the samples' arrays go, unmapping those arena a holds (see memory.Free): for
// samples replaced by others, whose arrays nothing else uses. s is left empty.
func (s *Samples) Free(a *memory.Arena) {
	memory.Free(a, s.X)
	memory.Free(a, s.Y)
	memory.Free(a, s.QX)
	memory.Free(a, s.QY)
	memory.Free(a, s.Z)
	*s = Samples{}
}

// Move moves the k samples from at down to to (to < at).
func (s *Samples) Move(to, at, k int) {
	if s.IsCompact() {
		copy(s.QX[to:], s.QX[at:at+k])
		copy(s.QY[to:], s.QY[at:at+k])
	} else {
		copy(s.X[to:], s.X[at:at+k])
		copy(s.Y[to:], s.Y[at:at+k])
	}
	copy(s.Z[to:], s.Z[at:at+k])
}

// Truncate keeps the first n samples.
func (s *Samples) Truncate(n int) {
	if s.IsCompact() {
		s.QX, s.QY = s.QX[:n], s.QY[:n]
	} else {
		s.X, s.Y = s.X[:n], s.Y[:n]
	}
	s.Z = s.Z[:n]
}

// growTo extends v to length l, at least doubling its capacity when it must move, in arena a
// (the old array freed there). It uses make (or a fresh mapping), not append: make skips
// clearing memory fresh from the OS, so the decoding workers are the first to touch those
// pages, in parallel, instead of one thread clearing them all.
func growTo[T int32 | float64](a *memory.Arena, v []T, l int) []T {
	if l <= cap(v) {
		return v[:l]
	}
	w := memory.Make[T](a, l, max(l, 2*cap(v)))
	copy(w, v)
	memory.Free(a, v)
	return w
}
