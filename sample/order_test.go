package sample

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/internal/memory"
)

// canonicalCmp is the canonical order by definition: y, x, z, each by the total order of its bits.
func canonicalCmp(a, b [3]float64) int {
	for _, k := range []int{1, 0, 2} {
		if c := cmp.Compare(totalOrder(a[k]), totalOrder(b[k])); c != 0 {
			return c
		}
	}
	return 0
}

// TestCanonicalizeCompact checks Canonicalize on compact samples against a comparison sort, on
// sets that exercise its cases: several chunks, narrow and wide y ranges (bands of one quantum
// and of many), long runs of one row, duplicates, signed zeros and NaN values.
func TestCanonicalizeCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name       string
		n          int
		yRange     int32
		xRange     int32
		reserveCap bool
	}{
		{"one", 1, 10, 10, false},
		{"few", 9, 3, 3, false},
		{"rows", 5000, 4, 1 << 20, false},
		{"dense", 200_000, 300, 300, true},
		{"wide", 150_000, math.MaxInt32, math.MaxInt32, false},
		{"fine", 100_000, 1 << 24, 1000, true},
		{"short runs", 100_000, 20_000, 8, false},
		{"chunks of 1 Mi", 3<<20 + 5, 1 << 22, 1 << 22, false},
	}
	for _, c := range cases {
		for _, arena := range []*memory.Arena{nil, memory.NewArena(1)} {
			t.Run(fmt.Sprintf("%s, arena %t", c.name, arena != nil), func(t *testing.T) {
				canonicalizeCompactCase(t, rng, arena, c.n, c.yRange, c.xRange, c.reserveCap)
			})
		}
	}
}

// canonicalizeCompactCase sorts n random compact samples in arena a (which then holds the
// samples alone) and checks them against a comparison sort.
func canonicalizeCompactCase(t *testing.T, rng *rand.Rand, a *memory.Arena, n int, yRange, xRange int32, reserveCap bool) {
	c := struct {
		n              int
		yRange, xRange int32
	}{n, yRange, xRange}
	s := &Samples{QuantumX: 0.01, QuantumY: 0.001, OriginX: 5, OriginY: -7}
	var want [][3]float64
	capacity := c.n
	if reserveCap {
		capacity = 2 * c.n
	}
	s.GrowIn(a, capacity)
	s.Truncate(0)
	zs := []float64{math.Copysign(0, -1), 0, math.NaN(), 1, -1, 2.5}
	for range c.n {
		qx := int32(rng.Int64N(int64(c.xRange))) - c.xRange/2
		qy := int32(rng.Int64N(int64(c.yRange))) - c.yRange/2
		z := zs[rng.IntN(len(zs))]
		s.QX, s.QY, s.Z = append(s.QX, qx), append(s.QY, qy), append(s.Z, z)
		want = append(want, [3]float64{float64(qx), float64(qy), z})
	}
	slices.SortStableFunc(want, canonicalCmp)
	Canonicalize(memory.WithArena(context.Background(), a), s)
	if s.Len() != c.n {
		t.Fatalf("%d samples after sorting, want %d", s.Len(), c.n)
	}
	for i, w := range want {
		got := [3]float64{float64(s.QX[i]), float64(s.QY[i]), s.Z[i]}
		if got[0] != w[0] || got[1] != w[1] || math.Float64bits(got[2]) != math.Float64bits(w[2]) {
			t.Fatalf("sample %d is %v, want %v", i, got, w)
		}
	}
	checkArenaHolds(t, a, s)
}

// checkArenaHolds checks that arena a (if any) maps the samples' arrays and nothing else: the
// sort's records and the arrays it left behind are unmapped.
func checkArenaHolds(t *testing.T, a *memory.Arena, s *Samples) {
	t.Helper()
	if a == nil {
		return
	}
	want := 8*cap(s.Z) + 8*cap(s.X) + 8*cap(s.Y) + 4*cap(s.QX) + 4*cap(s.QY)
	if got := a.Bytes(); got != want {
		t.Errorf("the arena maps %d bytes, want the samples' %d", got, want)
	}
}

// TestCanonicalizePlain checks Canonicalize on plain samples against a comparison sort.
func TestCanonicalizePlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{2, 70, 100_000, 5<<19 + 3} { // the last in chunks of 1 Mi
		a := memory.NewArena(1)
		s := &Samples{}
		s.GrowIn(a, n+n/4) // room a filter left: the sort leaves it behind
		s.Truncate(0)
		var want [][3]float64
		for range n {
			p := [3]float64{float64(rng.IntN(50)) - 25, float64(rng.IntN(n/10+3)) / 4, float64(rng.IntN(4))}
			if rng.IntN(10) == 0 {
				p[1] = math.Copysign(0, -1)
			}
			s.X, s.Y, s.Z = append(s.X, p[0]), append(s.Y, p[1]), append(s.Z, p[2])
			want = append(want, p)
		}
		slices.SortStableFunc(want, canonicalCmp)
		Canonicalize(memory.WithArena(context.Background(), a), s)
		for i, w := range want {
			got := [3]float64{s.X[i], s.Y[i], s.Z[i]}
			if canonicalCmp(got, w) != 0 {
				t.Fatalf("n=%d: sample %d is %v, want %v", n, i, got, w)
			}
		}
		checkArenaHolds(t, a, s)
	}
}

// TestCanonicalizeCancelled checks that a cancelled context stops the sort and is returned.
func TestCanonicalizeCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, compact := range []bool{false, true} {
		s := &Samples{}
		if compact {
			s.QuantumX, s.QuantumY = 0.01, 0.01
		}
		for range 3 << 20 {
			if compact {
				s.QX, s.QY, s.Z = append(s.QX, rng.Int32()), append(s.QY, rng.Int32()), append(s.Z, 0)
			} else {
				s.X, s.Y, s.Z = append(s.X, rng.Float64()), append(s.Y, rng.Float64()), append(s.Z, 0)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Canonicalize(ctx, s); err != context.Canceled {
			t.Errorf("compact %v: a cancelled sort returned %v", compact, err)
		}
	}
}

// BenchmarkCanonicalizeWideRows orders a tile of a wide survey as LAS holds it: centimetre
// quanta over 5 km by 160 m, 2.5 samples a square metre, so that a row of one y quantum holds
// about 125 samples (runs that insertion does not take).
func BenchmarkCanonicalizeWideRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 2_000_000
	qx, qy, z := make([]int32, n), make([]int32, n), make([]float64, n)
	for i := range n {
		qx[i], qy[i], z[i] = int32(rng.IntN(500_000)), int32(rng.IntN(16_000)), rng.Float64()
	}
	s := &Samples{QuantumX: 0.01, QuantumY: 0.01}
	for b.Loop() {
		s.QX, s.QY, s.Z = slices.Clone(qx), slices.Clone(qy), slices.Clone(z)
		Canonicalize(context.Background(), s)
	}
}
