package sample

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/testload"
)

// compactSamples are n samples on the 0.01 lattice around (500000, 4000000), some repeated,
// in the compact form with their origin at the lattice point nearest the centre.
func compactSamples(n int) *Samples {
	r := rand.New(rand.NewPCG(11, 12))
	s := &Samples{QuantumX: 0.01, QuantumY: 0.01, OriginX: 500050, OriginY: 4000030}
	for i := range n {
		qx, qy := int32(r.IntN(10000))-5000, int32(r.IntN(6000))-3000
		if i > 0 && i%17 == 0 {
			qx, qy = s.QX[i/2], s.QY[i/2] // a repeat, of another value
		}
		s.QX, s.QY, s.Z = append(s.QX, qx), append(s.QY, qy), append(s.Z, 100*r.Float64())
	}
	return s
}

// MoveOrigin keeps compact samples where they are, exactly: on the lattice, by whole quanta,
// with a whole-number origin for a quantum that divides 1; when the offsets would overflow
// int32 it expands them to the plain form at the same places.
func TestCompactMoveOrigin(t *testing.T) {
	s := compactSamples(50)
	at := func(s *Samples, i int) (float64, float64) {
		x, y := s.XY(int32(i))
		return x + s.OriginX, y + s.OriginY
	}
	quanta := func(s *Samples, i int) (int64, int64) {
		kx, _ := LatticePoint(s.OriginX, s.QuantumX)
		ky, _ := LatticePoint(s.OriginY, s.QuantumY)
		return int64(s.QX[i]) + kx, int64(s.QY[i]) + ky
	}
	var wantQ [][2]int64
	for i := range s.Len() {
		qx, qy := quanta(s, i)
		wantQ = append(wantQ, [2]int64{qx, qy})
	}
	for _, o := range [][2]float64{{500000.004, 3999999.996}, {-123.7, 88.2}, {500050, 4000030}} {
		s.MoveOrigin(o[0], o[1])
		if !s.IsCompact() || s.OriginX != math.Round(o[0]) || s.OriginY != math.Round(o[1]) {
			t.Fatalf("MoveOrigin(%v): origin %v,%v, compact %v: want the nearest whole numbers", o, s.OriginX, s.OriginY, s.IsCompact())
		}
		for i := range s.Len() {
			if qx, qy := quanta(s, i); qx != wantQ[i][0] || qy != wantQ[i][1] {
				t.Fatalf("MoveOrigin(%v): sample %d moved to quanta %d,%d from %v", o, i, qx, qy, wantQ[i])
			}
		}
	}
	wantX, wantY := at(s, 7)
	s.MoveOrigin(3e7, 0) // 3e9 quanta away: beyond int32
	if s.IsCompact() || s.OriginX != 3e7 {
		t.Fatalf("a move beyond int32 left the samples compact (%v) or the origin at %v", s.IsCompact(), s.OriginX)
	}
	if x, y := at(s, 7); math.Abs(x-wantX) > 1e-8 || math.Abs(y-wantY) > 1e-8 {
		t.Errorf("expanded sample at %v,%v, want %v,%v", x, y, wantX, wantY)
	}

	if k, v := LatticePoint(10.4, 0.3); k != 35 || v != 35*0.3 {
		t.Errorf("LatticePoint(10.4, 0.3) = %d, %v: want 35 quanta", k, v)
	}
	if k, v := LatticePoint(-2.6, 0.001); k != -3000 || v != -3 {
		t.Errorf("LatticePoint(-2.6, 0.001) = %d, %v: want -3, 3000 quanta", k, v)
	}
}

// Compact samples in input order stay so while a move keeps them on the lattice; a move that
// expands them puts them in canonical order too, as the same samples canonicalized first and
// moved the same way: only compact samples may be left unsorted.
func TestMoveOffLatticeOrders(t *testing.T) {
	clone := func(s *Samples) *Samples {
		c := *s
		c.QX, c.QY, c.Z = slices.Clone(s.QX), slices.Clone(s.QY), slices.Clone(s.Z)
		return &c
	}
	unsorted := compactSamples(500)
	unsorted.InputOrder = true
	sorted := clone(unsorted)
	if err := Canonicalize(context.Background(), sorted); err != nil {
		t.Fatal(err)
	}
	qx := slices.Clone(unsorted.QX)
	unsorted.MoveOrigin(500000.004, 3999999.996)
	if !unsorted.InputOrder || !unsorted.IsCompact() || slices.Equal(unsorted.QY, sorted.QY) {
		t.Fatalf("a move on the lattice: InputOrder %v, compact %v, sorted %v", unsorted.InputOrder, unsorted.IsCompact(),
			slices.Equal(unsorted.QY, sorted.QY))
	}
	for i := range qx {
		if unsorted.QX[i]-qx[i] != unsorted.QX[0]-qx[0] {
			t.Fatalf("a move on the lattice reordered sample %d", i)
		}
	}
	for _, s := range []*Samples{unsorted, sorted} {
		if err := s.MoveOriginContext(context.Background(), 3e7, 0); err != nil { // beyond int32
			t.Fatal(err)
		}
	}
	if unsorted.IsCompact() || unsorted.InputOrder {
		t.Fatalf("a move off the lattice: compact %v, InputOrder %v", unsorted.IsCompact(), unsorted.InputOrder)
	}
	for i := range sorted.Len() {
		if unsorted.X[i] != sorted.X[i] || unsorted.Y[i] != sorted.Y[i] || unsorted.Z[i] != sorted.Z[i] {
			t.Fatalf("sample %d after the move is (%v, %v, %v), canonicalized first (%v, %v, %v)", i,
				unsorted.X[i], unsorted.Y[i], unsorted.Z[i], sorted.X[i], sorted.Y[i], sorted.Z[i])
		}
	}
}

// TestBounds: the box is math.Min's and math.Max's over every sample, compact or plain, with
// NaN, signed zeros and no samples as they give them.
func TestBounds(t *testing.T) {
	ref := func(s *Samples) [4]float64 {
		b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for i := range int32(s.Len()) {
			x, y := s.XY(i)
			b = [4]float64{math.Min(b[0], x), math.Min(b[1], y), math.Max(b[2], x), math.Max(b[3], y)}
		}
		return [4]float64{b[0] + s.OriginX, b[1] + s.OriginY, b[2] + s.OriginX, b[3] + s.OriginY}
	}
	same := func(a, b [4]float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return false
			}
		}
		return true
	}
	plain := []*Samples{
		{},
		{X: []float64{3, -1, 2}, Y: []float64{0, 5, -7}, Z: []float64{1, 1, 1}},
		{X: []float64{0, math.Copysign(0, -1)}, Y: []float64{math.Copysign(0, -1), 0}, Z: []float64{1, 1}},
		{X: []float64{1, math.NaN(), 2}, Y: []float64{1, 2, 3}, Z: []float64{1, 1, 1}, OriginX: 450000},
	}
	for i, s := range plain {
		minX, minY, maxX, maxY := s.Bounds()
		if got, want := [4]float64{minX, minY, maxX, maxY}, ref(s); !same(got, want) {
			t.Errorf("plain %d: %v, want %v", i, got, want)
		}
	}
	c := &Samples{QX: []int32{-5, 17, 3}, QY: []int32{9, -2, 4}, Z: []float64{1, 1, 1},
		QuantumX: 0.01, QuantumY: 0.001, OriginX: 451000, OriginY: 5401000}
	minX, minY, maxX, maxY := c.Bounds()
	if got, want := [4]float64{minX, minY, maxX, maxY}, ref(c); !same(got, want) {
		t.Errorf("compact: %v, want %v", got, want)
	}
}

// Moving the origin, a pass over every sample, looks at the context every moveChunk samples:
// an interrupt during the pass (the first look finds the context live, the second done)
// stops it after exactly one chunk, plain and compact, and returns the context's error.
func TestMoveOriginStops(t *testing.T) {
	for _, compact := range []bool{false, true} {
		s := &Samples{}
		if compact {
			s.QuantumX, s.QuantumY = 0.01, 0.01
		}
		for i := range 3 * moveChunk {
			if compact {
				s.QX, s.QY, s.Z = append(s.QX, int32(i%1000)), append(s.QY, 0), append(s.Z, 0)
			} else {
				s.Add(float64(i%1000), 0, 0)
			}
		}
		before := make([]float64, s.Len())
		for i := range before {
			before[i], _ = s.XY(int32(i))
		}
		if err := s.MoveOriginContext(testload.DoneAt(2), 10, 0); err != context.Canceled {
			t.Fatalf("compact %v: %v, want context.Canceled", compact, err)
		}
		moved := 0
		for i, x0 := range before {
			if x, _ := s.XY(int32(i)); x != x0 {
				moved++
			}
		}
		if moved != moveChunk || s.OriginX != 0 {
			t.Errorf("compact %v: %d samples moved after the interrupt, origin %g: want the first chunk's %d, origin 0",
				compact, moved, s.OriginX, moveChunk)
		}
	}
}

// QuantaRange over several chunks, taken on every core, is slices.Min and slices.Max, wherever
// the extremes lie.
func TestQuantaRangeChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	q := make([]int32, 5*moveChunk/2)
	for i := range q {
		q[i] = int32(rng.IntN(1<<20)) - 1<<19
	}
	for _, at := range [][2]int{{0, len(q) - 1}, {moveChunk + 7, 2*moveChunk + 1}, {len(q) - 1, moveChunk}} {
		q[at[0]], q[at[1]] = -1<<30, 1<<30-int32(at[1]%3)
		lo, hi, err := QuantaRange(context.Background(), q)
		if err != nil || lo != slices.Min(q) || hi != slices.Max(q) {
			t.Errorf("extremes at %v: %d, %d (%v), want %d, %d", at, lo, hi, err, slices.Min(q), slices.Max(q))
		}
		q[at[0]], q[at[1]] = 0, 0
	}
}
