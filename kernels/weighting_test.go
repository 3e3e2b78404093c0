package kernels

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// legacyWeightingOf is the engine's mapping before algorithms described themselves
// (interp.DeviceParams): AIDW's and InvDist's meaning copied into the engine. The test below
// checks that the problem the kernels get is unchanged, field for field.
func legacyWeightingOf(p *interp.Problem, box [4]float64) (weighting, error) {
	const formGlobal, formNearest, formRadius = interp.DeviceGlobal, interp.DeviceNearest, interp.DeviceRadius
	n := p.Samples.Len()
	w := weighting{prob: problem{N: int64(n), R2: math.Inf(1), HitD2: 1e-13, K: 1, NQ: 1}}
	switch a := p.Alg.(type) {
	case *interp.AIDW:
		if err := a.Validate(); err != nil {
			return w, fmt.Errorf("aidw: %w", err)
		}
		area := a.Area
		if !(area > 0) {
			ox, oy := p.Samples.OriginX, p.Samples.OriginY
			if area = ((box[2] + ox) - (box[0] + ox)) * ((box[3] + oy) - (box[1] + oy)); !(area > 0) {
				minX, minY, maxX, maxY := p.Target.Extent()
				area = (maxX - minX) * (maxY - minY)
			}
		}
		if !(area > 0) || math.IsInf(area, 0) {
			return w, fmt.Errorf("aidw: study area %g is not a positive finite number", area)
		}
		pr := &w.prob
		pr.Adaptive = 1
		pr.K = int64(min(a.K, n))
		pr.NQ = pr.K
		if a.MaxPoints > 0 {
			pr.NQ = max(pr.K, int64(min(a.MaxPoints, n)))
			pr.MaxPoints = int64(a.MaxPoints)
		}
		if a.Radius > 0 {
			pr.R2 = a.Radius * a.Radius
		}
		pr.MinPoints, pr.Nodata = int64(a.MinPoints), a.NodataValue
		pr.RExp, pr.RMin, pr.RMax, pr.Alphas = interp.ExpectedDistance(n, area), a.RMin, a.RMax, a.Alphas
		for _, v := range a.Alphas {
			w.maxPower = max(w.maxPower, v)
		}
		switch {
		case a.MaxPoints > 0:
			w.form = formNearest
		case a.Radius > 0:
			w.form = formRadius
		default:
			w.form = formGlobal
			pr.NQ = max(pr.K, int64(min(nearCorr, n)))
		}
	case *interp.InvDist:
		pr := &w.prob
		pr.NQ = int64(min(nearCorr, n))
		pr.Power, pr.Smooth2, pr.Nodata = a.Power, a.Smoothing*a.Smoothing, a.NodataValue
		if a.Power == 2 && pr.Smooth2 > 0 {
			pr.HitD2 = -1
		}
		w.maxPower = a.Power
	}
	return w, nil
}

func TestWeightingUnchanged(t *testing.T) {
	tg := raster.NorthUp(451000, 5401000, 452000, 5402300, 37, 41)
	sets := map[string][][2]float64{
		"spread": {{451100.5, 5401200.25}, {451900, 5401250}, {451300, 5402100}, {451650.75, 5401800}, {451500, 5401500},
			{451120, 5401230}, {451880, 5402250}, {451000.5, 5401000.5}, {451777, 5401333}, {451234, 5402222},
			{451555, 5401111}, {451666, 5401999}, {451444, 5401666}, {451333, 5401444}, {451999, 5402299},
			{451010, 5401020}, {451020, 5401010}, {451030, 5401040}},
		"three": {{451100, 5401200}, {451900, 5401250}, {451300, 5402100}},
		"line":  {{451100, 5401200}, {451200, 5401200}, {451700, 5401200}, {451950, 5401200}},
		"point": {{451500, 5401500}, {451500, 5401500}},
	}
	specs := []string{"aidw", "aidw:k=5", "aidw:k=64:max_points=64", "aidw:max_points=12:radius=300:min_points=3:nodata=-9",
		"aidw:radius=250:nodata=-1", "aidw:area=1e6:rmin=0.5:rmax=1.5:alphas=1,2,3,4,9", "aidw:max_points=40",
		"invdist", "invdist:power=3:smoothing=2:nodata=-5", "invdist:power=2:smoothing=1", "invdist:power=9"}
	for name, pts := range sets {
		ox, oy := tg.Centre()
		s := &sample.Samples{OriginX: ox, OriginY: oy}
		for i, p := range pts {
			s.Add(p[0], p[1], float64(i))
		}
		minX, minY, maxX, maxY := s.Bounds()
		box := [4]float64{minX - ox, minY - oy, maxX - ox, maxY - oy}
		for _, spec := range specs {
			a, _, err := interp.ParseAlgorithm(spec)
			if err != nil {
				t.Fatal(err)
			}
			p := &interp.Problem{Samples: s, Target: tg, Alg: a}
			want, werr := legacyWeightingOf(p, box)
			got, gerr := weightingOf(p, box)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%s %s: error %v, legacy %v", name, spec, gerr, werr)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\n got    %+v\n legacy %+v", name, spec, got, want)
			}
		}
	}
}
