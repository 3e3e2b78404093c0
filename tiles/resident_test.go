package tiles

import (
	"context"
	"math"
	"sync/atomic"
	"testing"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// spread runs Spread on the samples of paths, read as a GPU run reads them (compact LAS
// samples in the input's order when inputOrder), and returns its bands.
func spread(t *testing.T, paths []string, inputOrder bool, target raster.Target, alg interp.Algorithm, engines ...interp.Engine) [][]float64 {
	t.Helper()
	srcs, err := gdalio.ReadInputs(context.Background(), paths, gdalio.SourceOptions{InputOrder: inputOrder})
	if err != nil {
		t.Fatal(err)
	}
	s := srcs[0].Samples
	cx, cy := target.Centre()
	s.MoveOrigin(cx, cy)
	if !Spreads(engines, alg, s.Len()) {
		t.Fatalf("%s does not spread over these engines", alg.Name())
	}
	out := make([][]float64, len(interp.BandNames(alg)))
	err = Spread(context.Background(), engines, &interp.Problem{Samples: s, Target: target, Alg: alg}, 2,
		func(row0, rows int, bands [][]float64) error {
			if want := len(out[0]) / target.Cols; row0 != want {
				t.Fatalf("rows from %d, want %d", row0, want)
			}
			for k, b := range bands {
				out[k] = append(out[k], b...)
			}
			return nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An in-memory problem spread over several engines as bands, each loading its own samples,
// gives the in-memory raster bit for bit: masked or not, compact samples in the input's order
// or in canonical order, halos that hold every node's neighbours or fall short (empty bands,
// sparse edges: nodes go again with more samples).
func TestSpreadEqualsInMemory(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 3000, 1, false)
	plain := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	// beyond the samples to the north: its first bands have none near
	far := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+400, 40, 90)
	for _, target := range []raster.Target{plain, striped(plain, 5, 20, 7), far} {
		for _, a := range []string{"aidw:max_points=12", "aidw:k=8:max_points=20:radius=9", "nearest", "invdistnn:radius=9:max_points=12", "maximum:radius1=4:radius2=4"} {
			alg, _, err := interp.ParseAlgorithm(a)
			if err != nil {
				t.Fatal(err)
			}
			want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
			for _, inputOrder := range []bool{true, false} {
				var unsorted, sorted atomic.Int64
				engines := []interp.Engine{
					sortingEngine{&interp.CPU{Threads: 1}, &unsorted, &sorted},
					sortingEngine{&interp.CPU{Threads: 1}, &unsorted, &sorted},
					sortingEngine{&interp.CPU{Threads: 1}, &unsorted, &sorted},
				}
				got := spread(t, paths, inputOrder, target, alg, engines...)
				sameBits(t, a+" spread", got, want)
				if inputOrder && sorted.Load() != 0 {
					t.Errorf("%s: %d bands came sorted, want none", a, sorted.Load())
				}
			}
		}
	}
}

// Spread takes the forms whose engines tell reach and order their samples, the nearest
// family's only, on more than one engine.
func TestSpreads(t *testing.T) {
	var n atomic.Int64
	ordering := sortingEngine{&interp.CPU{Threads: 1}, &n, &n}
	for _, c := range []struct {
		alg     string
		engines []interp.Engine
		want    bool
	}{
		{"aidw:max_points=12", []interp.Engine{ordering, ordering}, true},
		{"aidw:max_points=12", []interp.Engine{ordering}, false},
		{"aidw:max_points=12", []interp.Engine{ordering, &interp.CPU{}}, false},
		{"aidw", []interp.Engine{ordering, ordering}, false},
		{"invdistnn:radius=9:max_points=12", []interp.Engine{ordering, ordering}, true},
		{"average:radius1=5:radius2=5", []interp.Engine{ordering, ordering}, false},
		{"maximum:radius1=5:radius2=5", []interp.Engine{ordering, ordering}, true},
		{"invdist:radius1=5:radius2=5:max_points=12", []interp.Engine{ordering, ordering}, true},
		{"aidw:radius=6", []interp.Engine{ordering, ordering}, false}, // the GPU sums in its cells' order
		{"linear", []interp.Engine{ordering, ordering}, false},
	} {
		alg, _, err := interp.ParseAlgorithm(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		if got := Spreads(c.engines, alg, 1000); got != c.want {
			t.Errorf("%s on %d engines: %v, want %v", c.alg, len(c.engines), got, c.want)
		}
	}
}

// A load holds exactly the samples strictly inside its region, compact or plain, as their
// absolute coordinates say, at the region's edges too.
func TestResidentLoadsTheRegion(t *testing.T) {
	s := &sample.Samples{QuantumX: 0.01, QuantumY: 0.001, OriginX: 450000.005, OriginY: 5400000}
	for qx := int32(-300); qx <= 300; qx += 7 {
		for qy := int32(-2000); qy <= 2000; qy += 13 {
			s.QX, s.QY, s.Z = append(s.QX, qx), append(s.QY, qy), append(s.Z, float64(len(s.Z)))
		}
	}
	x, y := s.Coords()
	plain := &sample.Samples{X: x, Y: y, Z: s.Z, OriginX: s.OriginX, OriginY: s.OriginY}
	// edges on samples, between them, and beyond them all
	regions := [][4]float64{
		{450000.005 - 1.4, 5400000 - 0.676, 450000.005 + 0.7, 5400000 + 1.3},
		{450000.005 - 1.401, 5400000 - 0.6765, 450000.005 + 0.7001, 5400000 + 1.2999},
		{0, 0, 1e7, 1e7},
		{450010, 5400000, 450011, 5400001},
		{0, 5400000 - 0.676, 1e7, 5400000 + 1.3}, // a band: every x inside
	}
	for _, src := range []*sample.Samples{s, plain} {
		for _, region := range regions {
			r, err := newResident(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Load(context.Background(), &region)
			if err != nil {
				t.Fatal(err)
			}
			var want []float64
			for i := range src.Len() {
				rx, ry := src.XY(int32(i))
				ax, ay := rx+src.OriginX, ry+src.OriginY
				if src.IsCompact() {
					ax, ay = float64(src.QX[i])*src.QuantumX+src.OriginX, float64(src.QY[i])*src.QuantumY+src.OriginY
				}
				if ax > region[0] && ax < region[2] && ay > region[1] && ay < region[3] {
					want = append(want, src.Z[i])
				}
			}
			if len(got.Z) != len(want) {
				t.Fatalf("compact %v, region %v: %d samples, want %d", src.IsCompact(), region, len(got.Z), len(want))
			}
			for i := range want {
				gx, gy := got.XY(int32(i))
				wx, wy := src.XY(int32(want[i]))
				if got.Z[i] != want[i] || math.Float64bits(gx) != math.Float64bits(wx) || math.Float64bits(gy) != math.Float64bits(wy) {
					t.Fatalf("compact %v, region %v: sample %d is (%g %g %g), want (%g %g %g)", src.IsCompact(), region, i, gx, gy, got.Z[i], wx, wy, want[i])
				}
			}
		}
	}
}
