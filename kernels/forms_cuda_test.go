//go:build cuda

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// formCases are gdal_grid's forms on the GPU, with radii for the test sets (about 0.02 samples
// a square unit): the CPU engine sums each in float64 in the order the GPU does, so that both
// give the same raster, bit for bit.
var formCases = []string{
	"nearest",
	"nearest:radius1=15:radius2=15",
	"nearest:radius1=20:radius2=0",
	"nearest:radius1=9:radius2=14:nodata=-7",
	"invdistnn:radius=30:max_points=12",
	"invdistnn:power=3:smoothing=0.5:radius=25:max_points=20:min_points=3:nodata=-9",
	"invdistnn:power=1:radius=40:max_points=63",
	"invdistnn:power=0:radius=10:max_points=5",
	"invdistnn:radius=30:max_points=12:min_points_per_quadrant=1",
	"invdistnn:power=3:smoothing=0.5:radius=25:max_points_per_quadrant=3:min_points_per_quadrant=2:nodata=-5",
	"invdistnn:radius=40:max_points=20:max_points_per_quadrant=8:min_points=6",
	"average:radius1=20:radius2=15",
	"average:radius1=25:radius2=25:min_points=3:nodata=-1",
	"minimum:radius1=20:radius2=20",
	"maximum:radius1=20:radius2=12",
	"range:radius1=20:radius2=20",
	"count:radius1=15:radius2=15",
	"count:radius1=15:radius2=15:min_points=4:nodata=-3",
	"average_distance:radius1=20:radius2=20",
	"average_distance_pts:radius1=20:radius2=20",
	"average_distance_pts:radius1=12:radius2=25:min_points=40:nodata=-2",
	"invdist:radius1=30:radius2=20",
	"invdist:power=3:smoothing=1:radius1=25:radius2=25:min_points=2",
}

// collinearSet: samples on lattice points of a few lines (a row, a column, a diagonal) and on
// a coarse lattice, and nodes on the lattice too: distances tie everywhere, so the forms must
// break ties as gdal does (input order, or gdal's quadtree order).
func collinearSet(seed uint64) dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	t := raster.NorthUp(0, 0, 200, 200, 50, 50)
	s := newSamples(t)
	for i := range 200 {
		v := float64(i)
		s.Add(v, 100, field(rng, v, 100))
		s.Add(100, v, field(rng, 100, v))
		s.Add(v, v, field(rng, v, v))
	}
	for i := range 20 {
		for j := range 20 {
			s.Add(float64(i*10+2), float64(j*10+2), field(rng, float64(i), float64(j)))
		}
	}
	return dataset{"collinear", s, t}
}

// smallSet: fewer than gdal's quadtree threshold (100 samples), where nearest searches the
// ellipse itself.
func smallSet(seed uint64) dataset {
	d := uniformSet(seed, 90, 0, 0, 300, 37, 29)
	d.name = "small-90"
	return d
}

func formSets() []dataset {
	return append(testSets(), collinearSet(16), smallSet(17))
}

// sameBits reports the first node whose bits differ (NaN equal to NaN).
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if math.Float64bits(g) != math.Float64bits(w) && !(g != g && w != w) {
			t.Errorf("%s: node %d is %.17g, the CPU engine's %.17g", what, i, g, w)
			return
		}
	}
}

// TestFormsEqualCPU: every gdal_grid form on every set, in one chunk and in chunks of 333
// nodes (each chunk may need gdal's order anew), gives the CPU engine's raster bit for bit.
func TestFormsEqualCPU(t *testing.T) {
	for _, d := range formSets() {
		tieOrders := 0
		for _, spec := range formCases {
			alg := mustParse(t, spec)
			p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: alg}
			e := NewEngine(testDev)
			if why := e.WhyNot(alg); why != "" {
				t.Fatalf("%s: %s", spec, why)
			}
			want := gridValues(t, &interp.CPU{}, p)
			sameBits(t, d.name+" "+spec, gridValues(t, e, p), want)
			host := NewEngine(testDev)
			host.hostTieOrder = true
			sameBits(t, d.name+" "+spec+" with the host's order", gridValues(t, host, p), want)
			e.chunkNodes = 333
			sameBits(t, d.name+" "+spec+" in chunks", gridValues(t, e, p), want)
			tieOrders += e.tieOrders
		}
		if d.name == "collinear" && tieOrders == 0 {
			t.Errorf("no node of the collinear set needed gdal's quadtree order: its ties went untested")
		}
	}
}

// TestFormsMask: skipped nodes stay untouched and the others are the CPU's.
func TestFormsMask(t *testing.T) {
	d := clusteredSet(42, 10000)
	d.target.Mask = func(row0, rows int, skip []bool) error {
		for i := range skip[:rows*d.target.Cols] {
			skip[i] = (row0*d.target.Cols+i)%3 == 0
		}
		return nil
	}
	for _, spec := range []string{"nearest:radius1=15:radius2=15", "invdistnn:radius=30:max_points=12",
		"maximum:radius1=20:radius2=20", "invdist:radius1=30:radius2=20"} {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
		e := NewEngine(testDev)
		e.chunkNodes = 500
		sameBits(t, "masked "+spec, gridValues(t, e, p), gridValues(t, &interp.CPU{}, p))
	}
}

// TestFormsOnTwoEngines: two GPU engines (one GPU opened twice: each its own module, buffers
// and thread on the GPU's one context) give one engine's raster, each engine computing gdal's
// order for itself.
func TestFormsOnTwoEngines(t *testing.T) {
	d2, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	for _, d := range []dataset{collinearSet(18), clusteredSet(19, 15000)} {
		for _, spec := range formCases {
			p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
			m := &interp.Multi{Engines: []interp.Engine{NewEngine(testDev), NewEngine(d2)}, PartRows: 3}
			sameBits(t, fmt.Sprintf("%s %s on 2 engines", d.name, spec), gridValues(t, m, p),
				gridValues(t, &interp.CPU{}, p))
		}
	}
}

// pileSet: a uniform set with twelve samples on one place, whose leaf lies deeper than a key
// holds: the device leaves gdal's order to the host there.
func pileSet(seed uint64) dataset {
	d := uniformSet(seed, 3000, 0, 0, 300, 31, 23)
	for range 12 {
		d.samples.Add(123.25, 77.5, 1)
	}
	d.name = "pile"
	return d
}

// piled says whether more than a quadtree bucket of samples lie on one place, whose leaf is
// deeper than the device's keys hold.
func piled(s *sample.Samples) bool {
	at := map[[2]float64]int{}
	for i := range s.Len() {
		x, y := s.XY(int32(i))
		at[[2]float64{x, y}]++
		if at[[2]float64{x, y}] > interp.QuadtreeBucket {
			return true
		}
	}
	return false
}

// TestTieRanksOnDevice: gdal's quadtree order built on the device is the host's (interp's
// quadBuild, itself checked against gdal's insertions), sample for sample, on every set but
// those with a pile of samples on one place, which leave it to the host, whose order the
// raster then has.
func TestTieRanksOnDevice(t *testing.T) {
	for _, d := range append(formSets(), pileSet(21), uniformSet(22, 5, 0, 0, 10, 3, 3), uniformSet(23, 9, 0, 0, 10, 3, 3)) {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, "nearest:radius1=15:radius2=15")}
		pr, err := NewEngine(testDev).Prepare(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		pp := pr.(*prepared)
		n := d.samples.Len()
		got, order := make([]int32, n), make([]int32, n)
		var ok bool
		err = testDev.Do(func() error {
			rank, err := cuda.AllocN[int32](n)
			if err != nil {
				return err
			}
			defer rank.Free()
			if ok, err = pp.deviceTieRanks(rank); err != nil || !ok {
				return err
			}
			if err := cuda.Download(got, rank, 0); err != nil {
				return err
			}
			return cuda.Download(order, pp.ix.order, 0)
		})
		pr.Close()
		if err != nil {
			t.Fatal(err)
		}
		if piled(d.samples) {
			if ok {
				t.Errorf("%s: the device built an order its keys cannot hold", d.name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: the device left gdal's order to the host", d.name)
			continue
		}
		want := interp.DeviceTieRanks(p)
		for q, id := range order {
			if got[q] != want[id] {
				t.Errorf("%s (%d samples): sample %d is %d in the device's order, %d in the host's", d.name, n, id,
					got[q], want[id])
				break
			}
		}
	}
	d := pileSet(24)
	for _, spec := range []string{"nearest:radius1=15:radius2=15", "invdistnn:radius=20:max_points=6"} {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
		sameBits(t, "pile "+spec, gridValues(t, NewEngine(testDev), p), gridValues(t, &interp.CPU{}, p))
	}
}
