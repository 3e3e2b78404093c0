package interp

import (
	"math"
	"testing"
)

// TestWithNoData sets the nodata value of every algorithm, which NoData then reports.
func TestWithNoData(t *testing.T) {
	for _, name := range []string{"aidw", "invdist", "invdist:radius1=1:radius2=1", "invdistnn", "nearest", "average",
		"minimum", "maximum", "range", "count", "average_distance", "average_distance_pts", "linear"} {
		a, _, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatal(err)
		}
		if !WithNoData(a, -9999) || a.NoData() != -9999 {
			t.Errorf("%s: nodata %v after WithNoData(-9999)", name, a.NoData())
		}
		if WithNoData(a, math.NaN()); !math.IsNaN(a.NoData()) {
			t.Errorf("%s: nodata %v after WithNoData(NaN)", name, a.NoData())
		}
	}
}
