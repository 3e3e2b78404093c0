//go:build cuda

package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// testDev is the device every test and benchmark shares; a cuda test binary runs only where
// a device answers.
var testDev *cuda.Device

func TestMain(m *testing.M) {
	t0 := time.Now()
	d, err := Open(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kernels tests need a CUDA device:", err)
		os.Exit(1)
	}
	testDev = d
	fmt.Printf("device: %s (%d SMs), driver API %d, opened (context, PTX loaded) in %v\n", d.Name(), d.SMs(),
		cuda.DriverVersion(), time.Since(t0))
	code := m.Run()
	d.Close()
	os.Exit(code)
}

// dataset is a test problem: samples (relative to the target's centre) and a target.
type dataset struct {
	name    string
	samples *sample.Samples
	target  raster.Target
}

// newSamples returns empty samples whose origin is the target's centre, as gdalio sets it.
func newSamples(t raster.Target) *sample.Samples {
	ox, oy := t.Centre()
	return &sample.Samples{OriginX: ox, OriginY: oy}
}

// field is a smooth surface plus noise, kept well away from 0 so that relative errors mean
// something.
func field(rng *rand.Rand, x, y float64) float64 {
	return 200 + 50*math.Sin(x/137) + 30*math.Cos(y/71) + rng.Float64()
}

// uniformSet: n samples uniform over a square of side `side` at (x0,y0), a cols x rows target
// over the same square.
func uniformSet(seed uint64, n int, x0, y0, side float64, cols, rows int) dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := raster.NorthUp(x0, y0, x0+side, y0+side, cols, rows)
	s := newSamples(t)
	for range n {
		x, y := x0+side*rng.Float64(), y0+side*rng.Float64()
		s.Add(x, y, field(rng, x-x0, y-y0))
	}
	return dataset{fmt.Sprintf("uniform-%d", n), s, t}
}

// clusteredSet: tight Gaussian clusters over a sparse background; the target reaches beyond
// the samples' box, so some nodes lie off the grid.
func clusteredSet(seed uint64, n int) dataset {
	rng := rand.New(rand.NewPCG(seed, 2))
	t := raster.NorthUp(-150, -100, 1150, 1100, 61, 47)
	s := newSamples(t)
	type centre struct{ x, y, sd float64 }
	cs := make([]centre, 12)
	for i := range cs {
		cs[i] = centre{1000 * rng.Float64(), 1000 * rng.Float64(), 2 + 30*rng.Float64()}
	}
	for i := range n {
		var x, y float64
		if i%10 == 0 {
			x, y = 1000*rng.Float64(), 1000*rng.Float64()
		} else {
			c := cs[rng.IntN(len(cs))]
			x, y = c.x+c.sd*rng.NormFloat64(), c.y+c.sd*rng.NormFloat64()
		}
		s.Add(x, y, field(rng, x, y))
	}
	return dataset{fmt.Sprintf("clustered-%d", n), s, t}
}

// duplicatedSet: samples repeated up to four times at one point with different values, a
// third of them on node centres (exact hits, where the first in input order must win).
func duplicatedSet(seed uint64, sites int) dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	cols, rows := 40, 30
	t := raster.NorthUp(0, 0, 400, 300, cols, rows)
	s := newSamples(t)
	for i := range sites {
		var x, y float64
		if i%3 == 0 {
			x, y = (float64(rng.IntN(cols))+0.5)*10, 300-(float64(rng.IntN(rows))+0.5)*10
		} else {
			x, y = 400*rng.Float64(), 300*rng.Float64()
		}
		for range 1 + rng.IntN(4) {
			s.Add(x, y, field(rng, x, y)+10*rng.Float64())
		}
	}
	return dataset{fmt.Sprintf("duplicated-%d", sites), s, t}
}

// utmSet: UTM-scale coordinates (x ~ 4.5e5, y ~ 5.4e6) over a 20 km square, half of the
// samples in clusters.
func utmSet(seed uint64, n int) dataset {
	rng := rand.New(rand.NewPCG(seed, 4))
	x0, y0 := 451234.5, 5401234.25
	t := raster.NorthUp(x0, y0, x0+20000, y0+20000, 53, 59)
	s := newSamples(t)
	for i := range n {
		x, y := x0+20000*rng.Float64(), y0+20000*rng.Float64()
		if i%2 == 0 {
			x, y = x0+5000+300*rng.NormFloat64(), y0+12000+500*rng.NormFloat64()
		}
		s.Add(x, y, field(rng, x-x0, y-y0))
	}
	return dataset{fmt.Sprintf("utm-%d", n), s, t}
}

func testSets() []dataset {
	return []dataset{
		uniformSet(11, 20000, 0, 0, 1000, 64, 48),
		clusteredSet(12, 15000),
		duplicatedSet(13, 3000),
		utmSet(14, 20000),
	}
}

// gridValues runs interp.Grid with eng and returns every node's value, row-major.
func gridValues(tb testing.TB, eng interp.Engine, p *interp.Problem) []float64 {
	tb.Helper()
	cols := p.Target.Cols
	out := make([]float64, cols*p.Target.Rows)
	for i := range out {
		out[i] = math.NaN()
	}
	err := interp.Grid(context.Background(), eng, p, func(row0, rows int, v []float64) error {
		copy(out[row0*cols:], v[:rows*cols])
		return nil
	}, nil)
	if err != nil {
		tb.Fatalf("%s: %v", eng.Name(), err)
	}
	return out
}

func mustParse(tb testing.TB, s string) interp.Algorithm {
	tb.Helper()
	a, _, err := interp.ParseAlgorithm(s)
	if err != nil {
		tb.Fatalf("parsing %q: %v", s, err)
	}
	return a
}

// testGroup is n engines on the test's device, each with a context of its own (the first is
// testDev's), as the GPUs of a host are; the devices close when the test ends.
func testGroup(t *testing.T, n int) ([]*Engine, []interp.Engine) {
	gpus := []*Engine{NewEngine(testDev)}
	for range n - 1 {
		d, err := Open(0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		gpus = append(gpus, NewEngine(d))
	}
	engines := make([]interp.Engine, n)
	for i, e := range gpus {
		engines[i] = e
	}
	return gpus, engines
}
