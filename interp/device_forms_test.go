package interp

import (
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// TestDeviceParamsGDALForms: gdal_grid's algorithms describe gdal's search to a device: the
// quadtree's square above 100 samples (unrotated, with a radius), a line's every cell below,
// and what a device cannot run (rotation, per-quadrant options, windows without radius,
// invdist over an ellipse with max_points).
func TestDeviceParamsGDALForms(t *testing.T) {
	tg := raster.NorthUp(0, 0, 100, 100, 10, 10)
	samples := func(n int) *sample.Samples {
		s := &sample.Samples{}
		for i := range n {
			s.Add(float64(i%10), float64(i/10), 1)
		}
		return s
	}
	for _, c := range []struct {
		spec   string
		n      int // samples; 0: no problem
		ok     bool
		form   DeviceForm
		square float64
		line   bool
	}{
		{"nearest", 0, true, DeviceNearestSample, 0, false},
		{"nearest:radius1=3:radius2=2", 200, true, DeviceNearestSample, 3, false},
		{"nearest:radius1=3:radius2=2", 50, true, DeviceNearestSample, 0, false},
		{"nearest:radius1=3:radius2=0", 50, true, DeviceNearestSample, 0, true},
		{"nearest:radius1=3:radius2=3:angle=10", 200, false, DeviceNearestSample, 0, false},
		{"average:radius1=3:radius2=0", 50, false, DeviceWindow, 0, true},
		{"average:radius1=3:radius2=0", 200, true, DeviceWindow, 3, false},
		{"average:radius1=3:radius2=3:min_points_per_quadrant=1", 200, false, DeviceWindow, 0, false},
		{"maximum", 200, false, DeviceWindow, 0, false},
		{"count:radius1=2:radius2=4", 200, true, DeviceWindow, 4, false},
		{"average_distance_pts:radius1=2:radius2=2", 200, true, DeviceWindow, 2, false},
		{"average_distance_pts:radius1=2:radius2=3", 50, true, DeviceWindow, 0, false},
		{"average_distance_pts:radius1=2:radius2=0", 50, false, DeviceWindow, 0, true},
		{"average_distance_pts:radius1=2:radius2=2:angle=30", 200, false, DeviceWindow, 0, false},
		{"average_distance_pts", 200, false, DeviceWindow, 0, false},
		{"invdistnn:radius=3:max_points=12", 200, true, DeviceInvDistNN, 0, false},
		{"invdistnn:radius=3:max_points_per_quadrant=3", 200, true, DeviceInvDistNN, 0, false},
		{"invdistnn:radius=3:max_points=0:min_points_per_quadrant=3", 200, false, DeviceInvDistNN, 0, false},
		{"invdist:radius1=3:radius2=2", 200, true, DeviceEllipse, 0, false},
		{"invdist:radius1=3:radius2=2:max_points=5", 200, false, DeviceEllipse, 0, false},
	} {
		a, _, err := ParseAlgorithm(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		da, isDevice := a.(DeviceAlgorithm)
		if !isDevice {
			if c.ok {
				t.Errorf("%s describes no device form", c.spec)
			}
			continue
		}
		var p *Problem
		if c.n > 0 {
			p = &Problem{Samples: samples(c.n), Target: tg, Alg: a}
		}
		d, ok, why := da.DeviceParams(p, Bounds{})
		if ok != c.ok || ok != (why == "") {
			t.Errorf("%s on %d samples: ok %v (%q), want %v", c.spec, c.n, ok, why, c.ok)
			continue
		}
		if ok && (d.Form != c.form || d.Search.Square != c.square || d.Search.Line() != c.line) {
			t.Errorf("%s on %d samples: form %v square %g line %v, want %v %g %v", c.spec, c.n, d.Form,
				d.Search.Square, d.Search.Line(), c.form, c.square, c.line)
		}
	}
}
