//go:build cuda

package tiles

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// AIDW's local forms spread over several GPU engines as bands (Spread), each band loading its own
// samples as read, give one GPU's in-memory raster bit for bit: clusters, an empty stretch
// whose nodes need a second load, and samples repeated on one place (the first as read wins
// an exact hit). With one GPU the test opens it several times, each engine with a context's
// worth of its own, as on a host with several GPUs.
func TestSpreadOverGPUsEqualsOne(t *testing.T) {
	var engines []interp.Engine
	for range 3 {
		d, err := kernels.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		engines = append(engines, kernels.NewEngine(d))
	}
	target := raster.NorthUp(0, 0, 800, 1000, 113, 151)
	s := gpuSurvey(target)
	for _, spec := range []string{"aidw:max_points=12", "aidw:k=8:max_points=20:radius=9", "aidw:max_points=6:radius=15:min_points=2"} {
		alg, _, err := interp.ParseAlgorithm(spec)
		if err != nil {
			t.Fatal(err)
		}
		if !Spreads(engines, alg, s.Len()) {
			t.Fatalf("%s does not spread over GPUs", spec)
		}
		p := &interp.Problem{Samples: s, Target: target, Alg: alg}
		want := bandsOf(t, func(sink interp.BandSink) error {
			return interp.GridBands(context.Background(), engines[0], p, sink, nil)
		})
		got := bandsOf(t, func(sink interp.BandSink) error {
			return Spread(context.Background(), engines, p, 0, sink, nil)
		})
		sameBits(t, spec+" spread over GPUs", got, want)
	}
}

// gpuSurvey is compact samples as a LiDAR reader gives them, in the input's order: clusters,
// a scatter, nothing in the target's northern fifth, and a tenth repeated on one place with
// other values, around target's centre as the origin.
func gpuSurvey(target raster.Target) *sample.Samples {
	rng := rand.New(rand.NewPCG(7, 24))
	s := &sample.Samples{QuantumX: 0.01, QuantumY: 0.01, InputOrder: true}
	s.OriginX, s.OriginY = target.Centre()
	add := func(x, y, z float64) {
		s.QX = append(s.QX, int32(math.Round((x-s.OriginX)/s.QuantumX)))
		s.QY = append(s.QY, int32(math.Round((y-s.OriginY)/s.QuantumY)))
		s.Z = append(s.Z, z)
	}
	for i := range 40000 {
		x, y := 800*rng.Float64(), 800*rng.Float64()
		if i%3 != 0 {
			x, y = 300+60*rng.NormFloat64(), 400+90*rng.NormFloat64()
		}
		if y < 0 || y >= 800 || x < 0 || x > 800 {
			continue
		}
		z := math.Sin(x/50) + y/100
		add(x, y, z)
		if i%10 == 0 {
			add(x, y, z+1)
		}
	}
	return s
}

// bandsOf collects the bands that run hands its sink.
func bandsOf(t *testing.T, run func(interp.BandSink) error) [][]float64 {
	t.Helper()
	var out [][]float64
	err := run(func(row0, rows int, bands [][]float64) error {
		if out == nil {
			out = make([][]float64, len(bands))
		}
		for k, b := range bands {
			out[k] = append(out[k], b...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
