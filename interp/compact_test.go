package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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

// Compact samples give every algorithm what the same coordinates in the plain form give,
// bit for bit: the compact form changes how coordinates are held, never what they are.
func TestCompactSamplesGridAsPlain(t *testing.T) {
	s := compactSamples(400)
	plain := s.plain()
	if plain == s || plain.IsCompact() || plain.OriginX != s.OriginX {
		t.Fatal("plain() did not give the plain form")
	}
	target := NorthUp(499995, 3999995, 500105, 4000065, 44, 28)
	for _, spec := range []string{
		"aidw", "aidw:max_points=12", "aidw:max_points=12:radius=6", "aidw:diagnostics=yes",
		"invdist", "invdist:power=3:smoothing=0.5", "invdist:radius1=8:radius2=5:angle=30",
		"invdistnn:radius=9:max_points=12", "nearest", "nearest:radius1=4:radius2=4",
		"average:radius1=9:radius2=6:angle=20", "average:radius=7:min_points_per_quadrant=1",
		"minimum:radius=7", "maximum:radius=7", "range:radius=7", "count:radius=7",
		"average_distance", "average_distance:radius=7", "average_distance_pts:radius=7", "linear",
	} {
		alg, _, err := ParseAlgorithm(spec)
		if err != nil {
			t.Fatal(err)
		}
		got := gridAllBands(t, &Problem{Samples: s, Target: target, Alg: alg})
		want := gridAllBands(t, &Problem{Samples: plain, Target: target, Alg: alg})
		for k := range want {
			if !slices.Equal(got[k], want[k]) {
				t.Errorf("%s, band %d: compact and plain samples give different rasters", spec, k+1)
			}
		}
		if spec == "aidw" || spec == "invdistnn:radius=9:max_points=12" || spec == "average:radius=7:min_points_per_quadrant=1" {
			got, err := LeaveOneOut(context.Background(), alg, s, target, 2)
			if err != nil {
				t.Fatal(err)
			}
			want, err := LeaveOneOut(context.Background(), alg, plain, target, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: leave-one-out differs between compact and plain samples", spec)
			}
		}
	}
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
