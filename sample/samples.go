// Package sample holds the scattered points that every reader produces and every engine
// consumes: a structure of arrays relative to a local origin, plain float64 or compact
// integer offsets. It imports nothing of aidw but internal/memory (whose arena may hold its
// arrays), so readers and engines share it without depending on each other.
package sample

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Samples are the scattered points, as a structure of arrays. X and Y are relative to
// (OriginX, OriginY) so that float32 copies (the GPU's) keep their precision at UTM scale.
//
// Samples come in one of two forms. The plain form holds X and Y as float64. The compact form
// (QuantumX > 0) holds them as int32 offsets from the origin in whole quanta: sample i lies at
// (QX[i]*QuantumX, QY[i]*QuantumY) from an origin that is itself a whole number of quanta.
// LiDAR coordinates are integers times a scale, so the compact form holds them exactly in
// 16 bytes a sample instead of 24, and the index built on it keeps 8 bytes a sample instead of
// 16. Both forms give every consumer the same float64 coordinates through XY and Coords.
type Samples struct {
	X, Y, Z          []float64
	OriginX, OriginY float64
	// The compact form: QX and QY replace X and Y.
	QX, QY             []int32
	QuantumX, QuantumY float64
	// InputOrder says that the samples are in the order they were read, where Canonicalize
	// (which clears it) would have put them in canonical order: for an engine that computes
	// them in any order as in that one (interp.OrdersCompact).
	InputOrder bool
}

// Len is the number of samples.
func (s *Samples) Len() int {
	if s.IsCompact() {
		return len(s.QX)
	}
	return len(s.X)
}

// IsCompact says whether the samples are in the compact form.
func (s *Samples) IsCompact() bool { return s.QuantumX > 0 }

// XY returns sample i's coordinates relative to the origin.
func (s *Samples) XY(i int32) (x, y float64) {
	if s.QuantumX > 0 {
		return float64(s.QX[i]) * s.QuantumX, float64(s.QY[i]) * s.QuantumY
	}
	return s.X[i], s.Y[i]
}

// Coords returns the coordinates relative to the origin as float64 arrays: the samples' own in
// the plain form, a new copy in the compact form.
func (s *Samples) Coords() (x, y []float64) {
	if !s.IsCompact() {
		return s.X, s.Y
	}
	x, y = make([]float64, len(s.QX)), make([]float64, len(s.QY))
	for i := range x {
		x[i], y[i] = s.XY(int32(i))
	}
	return x, y
}

// Plain returns the samples in the plain form: s itself, or a copy of its coordinates that
// shares Z. The algorithms that loop over every sample per node take this form once.
func (s *Samples) Plain() *Samples {
	if !s.IsCompact() {
		return s
	}
	x, y := s.Coords()
	return &Samples{X: x, Y: y, Z: s.Z, OriginX: s.OriginX, OriginY: s.OriginY}
}

// Add appends one sample given in absolute coordinates to samples in the plain form.
func (s *Samples) Add(x, y, z float64) {
	s.X = append(s.X, x-s.OriginX)
	s.Y = append(s.Y, y-s.OriginY)
	s.Z = append(s.Z, z)
}

// Expand turns compact samples into the plain form (for transforms that leave the lattice).
func (s *Samples) Expand() {
	if s.IsCompact() {
		s.X, s.Y = s.Coords()
		s.QX, s.QY, s.QuantumX, s.QuantumY = nil, nil, 0, 0
	}
}

// MoveOrigin re-expresses the coordinates relative to a new origin. Compact samples move by
// whole quanta, to the lattice point nearest (ox, oy), and stay exact; when the offsets would
// no longer fit in int32 they are expanded to the plain form first, and put in canonical order
// if they were in input order (InputOrder holds for compact samples only).
func (s *Samples) MoveOrigin(ox, oy float64) {
	s.MoveOriginContext(context.Background(), ox, oy)
}

// MoveOriginContext is MoveOrigin, a pass over every sample, that a cancelled ctx stops
// within moveChunk samples: it then returns ctx's error and leaves the samples part moved,
// for a run that ends.
func (s *Samples) MoveOriginContext(ctx context.Context, ox, oy float64) error {
	if s.IsCompact() {
		kx, newX := LatticePoint(ox, s.QuantumX)
		ky, newY := LatticePoint(oy, s.QuantumY)
		oldX, _ := LatticePoint(s.OriginX, s.QuantumX)
		oldY, _ := LatticePoint(s.OriginY, s.QuantumY)
		if dx, dy := oldX-kx, oldY-ky; shiftFits(s.QX, dx) && shiftFits(s.QY, dy) {
			err := inChunks(ctx, len(s.QX), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					s.QX[i] += int32(dx)
					s.QY[i] += int32(dy)
				}
			})
			if err == nil {
				s.OriginX, s.OriginY = newX, newY
			}
			return err
		}
		s.Expand()
	}
	dx, dy := s.OriginX-ox, s.OriginY-oy
	err := inChunks(ctx, len(s.X), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.X[i] += dx
			s.Y[i] += dy
		}
	})
	if err != nil {
		return err
	}
	s.OriginX, s.OriginY = ox, oy
	if s.InputOrder {
		return Canonicalize(ctx, s)
	}
	return nil
}

// moveChunk is how many samples a pass over them (MoveOriginContext, QuantaRange) covers
// between looks at the context: about a millisecond of work.
const moveChunk = 1 << 20

// inChunks calls fn on [0,n) in chunks of at most moveChunk, on every core (parallelChunks),
// until ctx is cancelled: fn runs on disjoint chunks at once. On one thread, the passes of a
// 1e9-sample run (its bounds, the order's range, the move of its origin) took 8 s while 15
// cores waited.
func inChunks(ctx context.Context, n int, fn func(lo, hi int)) error {
	chunks := (n + moveChunk - 1) / moveChunk
	var done atomic.Int64
	parallelChunks(ctx, n, chunks, func(_, lo, hi int) {
		fn(lo, hi)
		done.Add(1)
	})
	if done.Load() == int64(chunks) {
		return nil
	}
	return ctx.Err()
}

// LatticePoint returns the point of the lattice of quantum q (the multiples of q) nearest v,
// in quanta and as a float64. When q divides 1, as LiDAR scales (0.01, 0.001) do, it is the
// nearest whole number, which float64 holds exactly: nodes are then placed relative to the
// origin without rounding, and the compact samples' coordinates are exact to the last bit
// of their (small) offsets.
func LatticePoint(v, q float64) (int64, float64) {
	if per := math.Round(1 / q); per >= 1 && math.Abs(1/q-per) <= 1e-9*per {
		w := math.Round(v)
		return int64(w) * int64(per), w
	}
	k := math.Round(v / q)
	return int64(k), k * q
}

// shiftFits says whether every q + d fits in int32.
func shiftFits(q []int32, d int64) bool {
	if len(q) == 0 || d == 0 {
		return true
	}
	lo, hi := int64(slices.Min(q))+d, int64(slices.Max(q))+d
	return lo >= math.MinInt32 && hi <= math.MaxInt32
}

// Bounds returns the bounding box of the samples in absolute coordinates (+Inf, -Inf for none;
// NaN where a coordinate is NaN). Compact samples' extremes are those of their quanta, whose
// products with the quantum keep their order: a 1e8-point survey's box takes a tenth of a
// second, not one second as converting every point did.
func (s *Samples) Bounds() (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = s.RelBounds()
	return minX + s.OriginX, minY + s.OriginY, maxX + s.OriginX, maxY + s.OriginY
}

// RelBounds is Bounds relative to the origin: the extremes of XY.
func (s *Samples) RelBounds() (minX, minY, maxX, maxY float64) {
	if s.IsCompact() {
		if s.Len() == 0 {
			return math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		}
		x0, x1, _ := QuantaRange(context.Background(), s.QX)
		y0, y1, _ := QuantaRange(context.Background(), s.QY)
		minX, maxX = float64(x0)*s.QuantumX, float64(x1)*s.QuantumX
		minY, maxY = float64(y0)*s.QuantumY, float64(y1)*s.QuantumY
	} else {
		minX, maxX = extremes(s.X)
		minY, maxY = extremes(s.Y)
	}
	return minX, minY, maxX, maxY
}

// extremes returns math.Min and math.Max of v (NaN if one is NaN, -0 below +0), +Inf and -Inf
// for none, with one comparison an element where math.Min's branches cost several.
func extremes(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	nan := false
	for _, x := range v {
		if x < lo || x == lo && math.Signbit(x) {
			lo = x
		}
		if x > hi || x == hi && !math.Signbit(x) {
			hi = x
		}
		nan = nan || x != x
	}
	if nan {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

// QuantaRange is slices.Min and slices.Max of non-empty quanta q in one pass, which a
// cancelled ctx stops within moveChunk values (its error returned).
func QuantaRange(ctx context.Context, q []int32) (lo, hi int32, err error) {
	lo, hi = q[0], q[0]
	var mu sync.Mutex
	err = inChunks(ctx, len(q), func(a, b int) {
		l, h := q[a], q[a] // locals: a captured pair would be read and written through memory
		for _, v := range q[a:b] {
			l, h = min(l, v), max(h, v)
		}
		mu.Lock()
		lo, hi = min(lo, l), max(hi, h)
		mu.Unlock()
	})
	return lo, hi, err
}

// RelativeFits refuses a sample that float64 cannot hold relative to the samples' origin (the
// first sample): x - ox overflows when the two are near opposite ends of float64's range.
func RelativeFits(x, y, ox, oy float64) error {
	if !math.IsNaN(x-ox) && !math.IsInf(x-ox, 0) && !math.IsNaN(y-oy) && !math.IsInf(y-oy, 0) {
		return nil
	}
	return fmt.Errorf("x %g, y %g: too far from the first sample (%g, %g) to be gridded in float64", x, y, ox, oy)
}
