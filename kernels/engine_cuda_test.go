//go:build cuda

package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// compareValues checks got against the CPU engine's want: nodata exactly where want has it,
// elsewhere within tol relative. It returns the largest relative error.
func compareValues(t *testing.T, what string, got, want []float64, nodata, tol float64) float64 {
	t.Helper()
	worst, bad := 0.0, 0
	for i := range want {
		g, w := got[i], want[i]
		if w == nodata || g == nodata {
			if g != w {
				if bad == 0 {
					t.Errorf("%s: node %d is %v, want %v (nodata %v)", what, i, g, w, nodata)
				}
				bad++
			}
			continue
		}
		rel := math.Abs(g-w) / math.Max(math.Abs(w), 1)
		if !(rel <= tol) {
			if bad == 0 {
				t.Errorf("%s: node %d is %.17g, want %.17g (relative error %.3g > %g)", what, i, g, w, rel, tol)
			}
			bad++
		}
		if rel > worst || math.IsNaN(rel) {
			worst = rel
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d nodes wrong", what, bad, len(want))
	}
	return worst
}

// engineCases are the algorithms the GPU engine runs, global forms first.
var engineCases = []struct {
	spec   string
	global bool
}{
	{"aidw", true},
	{"aidw:k=64:rmin=0.5:rmax=1.5:alphas=1,1.5,2,3,4", true},
	{"invdist", true},
	{"invdist:power=3:smoothing=2", true},
	{"invdist:power=2:smoothing=1", true},
	{"invdist:power=1.5", true},
	{"aidw:max_points=15", false},
	{"aidw:k=7:max_points=40:radius=60:min_points=10:nodata=-9999", false},
	{"aidw:radius=45:min_points=3:nodata=-1", false},
}

// TestEngineMatchesCPU runs every case on every dataset through interp.Grid with both engines:
// float32 global weighting within 1e-5 of the CPU engine's float64, everything else within 1e-12.
func TestEngineMatchesCPU(t *testing.T) {
	for _, d := range testSets() {
		for _, c := range engineCases {
			alg := mustParse(t, c.spec)
			p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: alg}
			want := gridValues(t, &interp.CPU{}, p)
			precisions := []bool{true}
			if c.global {
				precisions = []bool{false, true}
			}
			for _, f64 := range precisions {
				e := NewEngine(testDev)
				e.Float64 = f64
				if !e.Supports(alg) {
					t.Fatalf("%s is not supported", c.spec)
				}
				tol := 1e-12
				if c.global && !f64 {
					tol = 1e-5
				}
				what := d.name + " " + c.spec
				if f64 {
					what += " (float64)"
				}
				worst := compareValues(t, what, gridValues(t, e, p), want, alg.NoData(), tol)
				t.Logf("%-40s %-60s max relative error %.3g", d.name, c.spec+map[bool]string{true: " f64", false: " f32"}[f64], worst)
			}
		}
	}
}

// TestEngineMaskAndChunks computes a masked target in many small chunks.
func TestEngineMaskAndChunks(t *testing.T) {
	d := clusteredSet(41, 10000)
	d.target.Mask = func(row0, rows int, skip []bool) error {
		for i := range skip[:rows*d.target.Cols] {
			skip[i] = (row0*d.target.Cols+i)%3 == 0
		}
		return nil
	}
	for _, spec := range []string{"aidw:nodata=-5", "aidw:max_points=12:nodata=-5"} {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
		want := gridValues(t, &interp.CPU{}, p)
		for _, f64 := range []bool{false, true} {
			e := NewEngine(testDev)
			e.Float64, e.chunkNodes = f64, 333
			tol := 1e-12
			if !f64 && spec == "aidw:nodata=-5" {
				tol = 1e-5
			}
			compareValues(t, fmt.Sprintf("masked %s (float64 %v)", spec, f64), gridValues(t, e, p), want, -5, tol)
		}
		e := NewEngine(testDev)
		e.FarField, e.chunkNodes = FarFieldOn, 333
		compareValues(t, fmt.Sprintf("masked %s (far field)", spec), gridValues(t, e, p), want, -5, farfield.DeviceTol)
	}
}

// TestEngineCompactSamples: compact samples (LiDAR's int32 quanta), converted a staging piece at
// a time, give the GPU engine what the same coordinates in the plain form give, bit for bit.
func TestEngineCompactSamples(t *testing.T) {
	d := utmSet(61, cuda.StagePiece/8+123) // two staging pieces
	s := d.samples
	_, ox := sample.LatticePoint(s.OriginX, 0.01)
	_, oy := sample.LatticePoint(s.OriginY, 0.01)
	compact := &sample.Samples{Z: s.Z, OriginX: ox, OriginY: oy, QuantumX: 0.01, QuantumY: 0.01}
	for i := range int32(s.Len()) {
		x, y := s.XY(i)
		compact.QX = append(compact.QX, int32(math.Round((x+s.OriginX-ox)/0.01)))
		compact.QY = append(compact.QY, int32(math.Round((y+s.OriginY-oy)/0.01)))
	}
	// in canonical order, the order of both forms: compact samples break ties by their
	// coordinates, plain ones by their index
	if err := sample.Canonicalize(context.Background(), compact); err != nil {
		t.Fatal(err)
	}
	x, y := compact.Coords()
	plain := &sample.Samples{X: x, Y: y, Z: compact.Z, OriginX: ox, OriginY: oy}
	for _, c := range engineCases {
		alg := mustParse(t, c.spec)
		e := NewEngine(testDev)
		got := gridValues(t, e, &interp.Problem{Samples: compact, Target: d.target, Alg: alg})
		want := gridValues(t, e, &interp.Problem{Samples: plain, Target: d.target, Alg: alg})
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: node %d is %v from compact samples, %v from plain", c.spec, i, got[i], want[i])
			}
		}
	}
}

// latticeSet is compact samples on a 1 m lattice, a fifth of its points taken twice or three
// times with other values, and a target whose nodes lie on the lattice's cell centres: every
// node meets ties in distance (four samples, then eight, at the same distance).
func latticeSet(seed uint64) (*sample.Samples, raster.Target) {
	rng := rand.New(rand.NewPCG(seed, 5))
	t := raster.NorthUp(500000, 5400000, 500060, 5400040, 60, 40)
	_, ox := sample.LatticePoint(500030, 0.5)
	_, oy := sample.LatticePoint(5400020, 0.5)
	s := &sample.Samples{OriginX: ox, OriginY: oy, QuantumX: 0.5, QuantumY: 0.5}
	for i := range 61 {
		for j := range 41 {
			for range 1 + rng.IntN(5)/4*(1+rng.IntN(2)) {
				s.QX = append(s.QX, int32(2*i-60))
				s.QY = append(s.QY, int32(2*j-40))
				s.Z = append(s.Z, float64(rng.IntN(50))) // few values: ties in z too
			}
		}
	}
	return s, t
}

// TestEngineOrdersCompactSamples: compact samples in any order (sample.Samples.InputOrder)
// give the nearest form's nodes that the same samples in canonical order give, bit for bit,
// where ties in distance are everywhere; the CPU engine, which breaks ties by place, shows
// that the order matters on these samples.
func TestEngineOrdersCompactSamples(t *testing.T) {
	canonical, target := latticeSet(71)
	if err := sample.Canonicalize(context.Background(), canonical); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(72, 6))
	shuffled := &sample.Samples{OriginX: canonical.OriginX, OriginY: canonical.OriginY, QuantumX: 0.5, QuantumY: 0.5,
		QX: slices.Clone(canonical.QX), QY: slices.Clone(canonical.QY), Z: slices.Clone(canonical.Z)}
	rng.Shuffle(shuffled.Len(), func(i, j int) {
		shuffled.QX[i], shuffled.QX[j] = shuffled.QX[j], shuffled.QX[i]
		shuffled.QY[i], shuffled.QY[j] = shuffled.QY[j], shuffled.QY[i]
		shuffled.Z[i], shuffled.Z[j] = shuffled.Z[j], shuffled.Z[i]
	})
	e := NewEngine(testDev)
	orderMatters := false
	for _, spec := range []string{"aidw:max_points=4", "aidw:max_points=6", "aidw:max_points=12",
		"aidw:k=5:max_points=9:radius=2.2:min_points=3", "aidw:k=6:max_points=7:rmin=0.5:rmax=1.5"} {
		alg := mustParse(t, spec)
		if !e.OrdersCompact(alg) {
			t.Fatalf("%s: the engine does not order compact samples", spec)
		}
		want := gridValues(t, e, &interp.Problem{Samples: canonical, Target: target, Alg: alg})
		shuffled.InputOrder = true
		got := gridValues(t, e, &interp.Problem{Samples: shuffled, Target: target, Alg: alg})
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: node %d is %v from samples in input order, %v in canonical order", spec, i, got[i], want[i])
			}
		}
		shuffled.InputOrder = false
		cpu := gridValues(t, &interp.CPU{}, &interp.Problem{Samples: shuffled, Target: target, Alg: alg})
		cpuCanonical := gridValues(t, &interp.CPU{}, &interp.Problem{Samples: canonical, Target: target, Alg: alg})
		orderMatters = orderMatters || !slices.Equal(cpu, cpuCanonical)
	}
	if !orderMatters {
		t.Fatal("the CPU engine gives the same nodes from both orders: the samples test no tie")
	}
	// a global form sums in cell order: it takes samples in canonical order only
	shuffled.InputOrder = true
	if e.OrdersCompact(mustParse(t, "aidw")) {
		t.Fatal("the engine claims to order compact samples for global AIDW")
	}
	_, err := e.Prepare(context.Background(), &interp.Problem{Samples: shuffled, Target: target, Alg: mustParse(t, "aidw")})
	if err == nil || !strings.Contains(err.Error(), "canonical order") {
		t.Fatalf("global AIDW on samples in input order: %v, want a refusal", err)
	}
}

// TestEngineIsDeterministic runs the same problems twice: bit-identical output.
func TestEngineIsDeterministic(t *testing.T) {
	d := uniformSet(51, 100_000, 0, 0, 1000, 128, 96)
	for _, spec := range []string{"aidw", "aidw:max_points=15"} {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(t, spec)}
		e := NewEngine(testDev)
		a, b := gridValues(t, e, p), gridValues(t, e, p)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s: node %d is %v then %v", spec, i, a[i], b[i])
			}
		}
	}
}

func TestEngineSupports(t *testing.T) {
	e := NewEngine(testDev)
	for spec, want := range map[string]bool{
		"aidw":                        true,
		"aidw:k=64:max_points=64":     true,
		"aidw:k=65":                   false,
		"aidw:diagnostics=yes":        false,
		"aidw:max_points=65":          false,
		"invdist:power=3":             true,
		"invdist:radius1=5:radius2=5": true,
		"invdist:radius1=5:radius2=5:max_points=3":          false,
		"invdist:radius1=5:radius2=5:angle=10":              false,
		"invdistnn":                                         true,
		"invdistnn:power=1.5":                               false,
		"invdistnn:max_points=64":                           false,
		"invdistnn:max_points=63":                           true,
		"invdistnn:min_points_per_quadrant=1":               true,
		"invdistnn:max_points=33:min_points_per_quadrant=1": false,
		"invdistnn:max_points=0:max_points_per_quadrant=9":  true,
		"nearest":                     true,
		"nearest:radius1=3:angle=5":   false,
		"maximum:radius1=2:radius2=2": true,
		"maximum":                     false,
		"average_distance_pts:radius1=2:radius2=2":            true,
		"average_distance_pts:radius1=2:radius2=2:angle=20":   false,
		"average_distance_pts":                                false,
		"count:radius1=2:radius2=2:max_points_per_quadrant=2": false,
	} {
		a, _, err := interp.ParseAlgorithm(spec)
		if err != nil {
			t.Fatalf("parsing %q: %v", spec, err)
		}
		if got := e.Supports(a); got != want {
			t.Errorf("Supports(%s) = %v, want %v", spec, got, want)
		}
		if why := e.WhyNot(a); (why == "") != want {
			t.Errorf("WhyNot(%s) = %q", spec, why)
		}
	}
}

// TestEngineDegenerateSamples: fewer samples than k, samples on a line (the study area falls
// back to the target's extent), all samples at one point (a single cell), each with nodes on
// and off the samples' box.
func TestEngineDegenerateSamples(t *testing.T) {
	tg := raster.NorthUp(-50, -40, 150, 160, 23, 19)
	sets := map[string][][3]float64{
		"five":  {{0, 0, 10}, {100, 0, 20}, {0, 100, 30}, {100, 100, 40}, {50, 50, 50}},
		"line":  {{-10, 20, 1}, {5, 20, 2}, {40, 20, 3}, {41, 20, 4}, {90, 20, 5}, {130, 20, 6}, {77, 20, 7}},
		"point": {{30, 30, 5}, {30, 30, 6}, {30, 30, 7}, {30, 30, 8}},
	}
	for name, pts := range sets {
		s := newSamples(tg)
		for _, p := range pts {
			s.Add(p[0], p[1], p[2])
		}
		for _, spec := range []string{"aidw", "aidw:max_points=3", "aidw:radius=60:nodata=-1", "invdist:power=3"} {
			p := &interp.Problem{Samples: s, Target: tg, Alg: mustParse(t, spec)}
			want := gridValues(t, &interp.CPU{}, p)
			for _, f64 := range []bool{false, true} {
				e := NewEngine(testDev)
				e.Float64 = f64
				tol := 1e-12
				if !f64 && (spec == "aidw" || spec == "invdist:power=3") {
					tol = 1e-5
				}
				compareValues(t, fmt.Sprintf("%s %s (float64 %v)", name, spec, f64), gridValues(t, e, p), want,
					p.Alg.NoData(), tol)
			}
		}
	}
}

// TestEngineFarFieldMatchesCPU runs the global cases by far field on every dataset and on a
// larger one whose tree is deeper: within farfield.DeviceTol of the CPU engine, and the same
// bits in chunks of 333 nodes as in one.
func TestEngineFarFieldMatchesCPU(t *testing.T) {
	sets := append(testSets(), uniformSet(15, 300_000, 0, 0, 1000, 200, 150))
	for _, d := range sets {
		for _, c := range engineCases {
			if !c.global {
				continue
			}
			alg := mustParse(t, c.spec)
			p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: alg}
			e := NewEngine(testDev)
			e.FarField = FarFieldOn
			prep, err := e.Prepare(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			pp := prep.(*prepared)
			far, order := pp.far != nil, 0
			if far {
				order = pp.far.order
			}
			prep.Close()
			smooth := strings.Contains(c.spec, "smoothing")
			if far == smooth {
				t.Errorf("%s %s: far field %v", d.name, c.spec, far)
			}
			tol := 1e-5 // the brute force's float32
			if far {
				tol = farfield.DeviceTol
			}
			got := gridValues(t, e, p)
			worst := compareValues(t, d.name+" "+c.spec+" far field", got, gridValues(t, &interp.CPU{}, p), alg.NoData(), tol)
			t.Logf("%-16s %-50s far field %v (order %d): max relative error %.3g", d.name, c.spec, far, order, worst)
			e.chunkNodes = 333
			for i, v := range gridValues(t, e, p) {
				if math.Float64bits(v) != math.Float64bits(got[i]) {
					t.Fatalf("%s %s: node %d is %v in chunks of 333, %v in one", d.name, c.spec, i, v, got[i])
				}
			}
		}
	}
}
