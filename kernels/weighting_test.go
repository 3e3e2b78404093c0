package kernels

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// legacyWeightingOf is the engine's mapping before algorithms described themselves
// (interp.DeviceParams): AIDW's and InvDist's meaning copied into the engine, reading their
// options by key (interp.Settings). The test below checks that the problem the kernels get is
// unchanged, field for field.
func legacyWeightingOf(p *interp.Problem, box [4]float64) (weighting, error) {
	const formGlobal, formNearest, formRadius = interp.DeviceGlobal, interp.DeviceNearest, interp.DeviceRadius
	n := p.Samples.Len()
	w := weighting{prob: problem{N: int64(n), R2: math.Inf(1), HitD2: 1e-13, K: 1, NQ: 1}}
	o := map[string][]float64{}
	for _, kv := range interp.Settings(p.Alg) {
		for _, v := range strings.Split(kv.Value, ",") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				f = map[string]float64{"yes": 1, "no": 0}[v]
			}
			o[kv.Key] = append(o[kv.Key], f)
		}
	}
	num := func(key string) float64 { return o[key][0] }
	switch p.Alg.Name() {
	case "aidw":
		if err := p.Alg.(interface{ Validate() error }).Validate(); err != nil {
			return w, fmt.Errorf("aidw: %w", err)
		}
		area := num("area")
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
		k, maxPoints, radius := int(num("k")), int(num("max_points")), num("radius")
		pr := &w.prob
		pr.Adaptive = 1
		pr.K = int64(min(k, n))
		pr.NQ = pr.K
		if maxPoints > 0 {
			pr.NQ = max(pr.K, int64(min(maxPoints, n)))
			pr.MaxPoints = int64(maxPoints)
		}
		if radius > 0 {
			pr.R2 = radius * radius
		}
		pr.MinPoints, pr.Nodata = int64(num("min_points")), num("nodata")
		pr.RExp, pr.RMin, pr.RMax = interp.ExpectedDistance(n, area), num("rmin"), num("rmax")
		copy(pr.Alphas[:], o["alphas"])
		for _, v := range o["alphas"] {
			w.maxPower = max(w.maxPower, v)
		}
		switch {
		case maxPoints > 0:
			w.form = formNearest
		case radius > 0:
			w.form = formRadius
		default:
			w.form = formGlobal
			pr.NQ = max(pr.K, int64(min(nearCorr, n)))
		}
	case "invdist":
		pr := &w.prob
		pr.NQ = int64(min(nearCorr, n))
		pr.Power, pr.Smooth2, pr.Nodata = num("power"), num("smoothing")*num("smoothing"), num("nodata")
		if pr.Power == 2 && pr.Smooth2 > 0 {
			pr.HitD2 = -1
		}
		w.maxPower = pr.Power
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
