package sample

// Grow extends the samples by n slots, to be filled in place (by a reader's workers).
func (s *Samples) Grow(n int) {
	l := s.Len() + n
	if s.IsCompact() {
		s.QX, s.QY = growTo(s.QX, l), growTo(s.QY, l)
	} else {
		s.X, s.Y = growTo(s.X, l), growTo(s.Y, l)
	}
	s.Z = growTo(s.Z, l)
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

// growTo extends v to length l, at least doubling its capacity when it must move. It uses
// make, not append: make skips clearing memory fresh from the OS, so the decoding workers
// are the first to touch those pages, in parallel, instead of one thread clearing them all.
func growTo[T int32 | float64](v []T, l int) []T {
	if l <= cap(v) {
		return v[:l]
	}
	w := make([]T, l, max(l, 2*cap(v)))
	copy(w, v)
	return w
}
