package sample

import (
	"testing"
)

func TestRegionWithinAndTouches(t *testing.T) {
	// POLYGON((0 0,10 0,10 10,0 10,0 0),(4 4,6 4,6 6,4 6,4 4))
	r := Region{Polys: []Polygon{{{0, 0, 10, 0, 10, 10, 0, 10, 0, 0}, {4, 4, 6, 4, 6, 6, 4, 6, 4, 4}}}}
	for _, c := range []struct {
		x, y            float64
		within, touches bool
	}{
		{1, 1, true, true},    // inside
		{5, 5, false, false},  // in the hole
		{4, 5, false, true},   // on the hole's edge
		{0, 5, false, true},   // on the outer edge
		{10, 10, false, true}, // on a vertex
		{11, 5, false, false}, // outside
		{5, 0, false, true},   // on a horizontal edge
		{3.9, 5, true, true},  // just left of the hole
		{-1e-9, 5, false, false},
	} {
		if got := r.Within(c.x, c.y); got != c.within {
			t.Errorf("within(%v, %v) = %v, want %v", c.x, c.y, got, c.within)
		}
		if got := r.Touches(c.x, c.y); got != c.touches {
			t.Errorf("touches(%v, %v) = %v, want %v", c.x, c.y, got, c.touches)
		}
	}
	// a rectangle and a polygon together keep the points inside both
	r.Rect = &[4]float64{0, 0, 2, 2}
	if !r.Within(1, 1) || r.Within(3, 1) || r.Within(2, 1) {
		t.Error("the -spat rectangle must intersect the clip polygon")
	}
}
