package interp

import (
	"regexp"
	"strconv"
	"testing"
)

// The tests that cover every algorithm take them from the registry (Registry), each with its
// defaults and then the options below, so that a newly registered algorithm is in them by its
// defaults with nothing to add here.

// algorithmOptions lists, by registered name, the options worth testing beyond the defaults:
// those that change the search or the sums. Distances are written {f} for f times a data
// set's typical search distance r (see everyAlgorithm).
var algorithmOptions = map[string][]string{
	"aidw": {"max_points=12", "max_points=10:radius={3}", "radius={2}", "diagnostics=yes"},
	"invdist": {"smoothing=2", "power=1", "power=3:smoothing=0.5", "radius={2.4}:max_points=4",
		"radius1={2.4}:radius2={1.4}:angle=30", "radius={2.4}:min_points_per_quadrant=1:max_points=8"},
	"invdistnn": {"radius={4}:max_points=9",
		"radius={4}:max_points_per_quadrant=2:min_points_per_quadrant=1:nodata=-1"},
	"nearest": {"radius1={1.8}:radius2=0", "radius={1.4}:nodata=-1", "radius1={1.2}:radius2={1.2}"},
	"average": {"radius={2}", "radius1={2.6}:radius2={1.7}:angle=20",
		"radius={3}:max_points_per_quadrant=3:max_points=9", "radius={2}:min_points_per_quadrant=1"},
	"minimum":              {"radius={2}"},
	"maximum":              {"radius={2}"},
	"range":                {"radius={2}"},
	"count":                {"radius={1.6}"},
	"average_distance":     {"radius={2}"},
	"average_distance_pts": {"radius={1.8}", "radius1={1.8}:radius2=0"},
	"linear":               {"radius=0:nodata=-1", "radius={1}:nodata=-1"},
}

var distanceToken = regexp.MustCompile(`\{([0-9.]+)\}`)

// everyAlgorithm returns every registered algorithm, each by its defaults and then with the
// options of algorithmOptions, distances scaled by r.
func everyAlgorithm(r float64) []string {
	var specs []string
	for _, name := range Names() {
		specs = append(specs, name)
		for _, o := range algorithmOptions[name] {
			o = distanceToken.ReplaceAllStringFunc(o, func(tok string) string {
				f, err := strconv.ParseFloat(tok[1:len(tok)-1], 64)
				if err != nil {
					panic(err)
				}
				return strconv.FormatFloat(f*r, 'g', -1, 64)
			})
			specs = append(specs, name+":"+o)
		}
	}
	return specs
}

// TestEveryAlgorithmParses: the options above name registered algorithms and parse (gdal's
// warnings included: invdist reads radius, which its key list lacks).
func TestEveryAlgorithmParses(t *testing.T) {
	for name := range algorithmOptions {
		if Lookup(name) == nil {
			t.Errorf("options for %q, which is not registered", name)
		}
	}
	for _, spec := range everyAlgorithm(10) {
		if _, _, err := ParseAlgorithm(spec); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
