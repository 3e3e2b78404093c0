package interp

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// compactSamples are n samples on the 0.01 lattice around (500000, 4000000), some repeated,
// in the compact form with their origin at the lattice point nearest the centre.
func compactSamples(n int) *sample.Samples {
	r := rand.New(rand.NewPCG(11, 12))
	s := &sample.Samples{QuantumX: 0.01, QuantumY: 0.01, OriginX: 500050, OriginY: 4000030}
	for i := range n {
		qx, qy := int32(r.IntN(10000))-5000, int32(r.IntN(6000))-3000
		if i > 0 && i%17 == 0 {
			qx, qy = s.QX[i/2], s.QY[i/2] // a repeat, of another value
		}
		s.QX, s.QY, s.Z = append(s.QX, qx), append(s.QY, qy), append(s.Z, 100*r.Float64())
	}
	return s
}

// Compact samples give every algorithm (everyAlgorithm) what the same coordinates in the plain
// form give, bit for bit: the compact form changes how coordinates are held, never what they are.
func TestCompactSamplesGridAsPlain(t *testing.T) {
	s := compactSamples(400)
	plain := s.Plain()
	if plain == s || plain.IsCompact() || plain.OriginX != s.OriginX {
		t.Fatal("plain() did not give the plain form")
	}
	target := raster.NorthUp(499995, 3999995, 500105, 4000065, 44, 28)
	for _, spec := range everyAlgorithm(3.5) {
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
		looGot, err := LeaveOneOut(context.Background(), alg, s, target, 2)
		if err != nil {
			t.Fatal(err)
		}
		looWant, err := LeaveOneOut(context.Background(), alg, plain, target, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(looGot, looWant) {
			t.Errorf("%s: leave-one-out differs between compact and plain samples", spec)
		}
	}
}
