package interp

import (
	"strings"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// TestDeviceParamsStudyArea: the study area a device gets is StudyArea's, from the box it
// passes: samples spread, on a line, on a point, and an explicit area.
func TestDeviceParamsStudyArea(t *testing.T) {
	tg := raster.NorthUp(-50, -40, 150, 160, 23, 19)
	for name, pts := range map[string][][2]float64{
		"spread": {{0, 0}, {100, 0}, {0, 100}, {37, 64}},
		"line":   {{-10, 20}, {5, 20}, {130, 20}},
		"point":  {{30, 30}, {30, 30}},
	} {
		s := &sample.Samples{OriginX: 12.5, OriginY: -3.25}
		for i, p := range pts {
			s.Add(p[0], p[1], float64(i))
		}
		for _, spec := range []string{"aidw", "aidw:area=1234", "aidw:max_points=3:k=10"} {
			a, _, err := ParseAlgorithm(spec)
			if err != nil {
				t.Fatal(err)
			}
			p := &Problem{Samples: s, Target: tg, Alg: a}
			d, ok, why := a.(DeviceAlgorithm).DeviceParams(p, SampleBounds(p))
			if !ok {
				t.Fatalf("%s %s: %s", name, spec, why)
			}
			aidw := a.(*AIDW)
			if want := aidw.StudyArea(s, tg); d.Area != want {
				t.Errorf("%s %s: area %g, StudyArea %g", name, spec, d.Area, want)
			}
			if want := ExpectedDistance(len(pts), d.Area); d.RExp != want {
				t.Errorf("%s %s: r_exp %g, want %g", name, spec, d.RExp, want)
			}
			if d.K != min(aidw.K, len(pts)) {
				t.Errorf("%s %s: K %d, want %d clamped to %d samples", name, spec, d.K, aidw.K, len(pts))
			}
		}
	}
}

func TestDeviceParamsForms(t *testing.T) {
	for spec, want := range map[string]struct {
		ok       bool
		form     DeviceForm
		maxPower float64
		exactHit float64
	}{
		"aidw":                           {true, DeviceGlobal, 3.5, ExactHitD2},
		"aidw:max_points=20:radius=5":    {true, DeviceNearest, 3.5, ExactHitD2},
		"aidw:radius=5:alphas=1,2,9,3,4": {true, DeviceRadius, 9, ExactHitD2},
		"aidw:diagnostics=yes":           {false, DeviceGlobal, 3.5, ExactHitD2},
		"invdist:power=3:smoothing=1":    {true, DeviceGlobal, 3, ExactHitD2},
		"invdist:power=2:smoothing=1":    {true, DeviceGlobal, 2, -1},
		"invdist:radius1=5:radius2=5":    {true, DeviceEllipse, 2, ExactHitD2},
	} {
		a, _, err := ParseAlgorithm(spec)
		if err != nil {
			t.Fatal(err)
		}
		d, ok, why := a.(DeviceAlgorithm).DeviceParams(nil, Bounds{})
		if ok != want.ok || d.Form != want.form || d.MaxPower() != want.maxPower || d.ExactHit != want.exactHit {
			t.Errorf("%s: ok %v form %v max power %g exact hit %g, want %+v", spec, ok, d.Form, d.MaxPower(),
				d.ExactHit, want)
		}
		if ok != (why == "") {
			t.Errorf("%s: ok %v with reason %q", spec, ok, why)
		}
	}
}

func TestWhyNot(t *testing.T) {
	a, _, _ := ParseAlgorithm("aidw")
	if why := WhyNot(&CPU{}, a); why != "" {
		t.Errorf("CPU engine: %q", why)
	}
	if why := WhyNot(&CPU{}, badAlg{}); !strings.Contains(why, "does not run") {
		t.Errorf("CPU engine on an unknown algorithm: %q", why)
	}
}

type badAlg struct{}

func (badAlg) Name() string    { return "bad" }
func (badAlg) NoData() float64 { return 0 }
