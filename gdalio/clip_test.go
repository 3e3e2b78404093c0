package gdalio

import "testing"

func TestRegionWithinAndTouches(t *testing.T) {
	polys, err := wktPolygons("POLYGON((0 0,10 0,10 10,0 10,0 0),(4 4,6 4,6 6,4 6,4 4))", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	r := region{polys: polys}
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
		if got := r.within(c.x, c.y); got != c.within {
			t.Errorf("within(%v, %v) = %v, want %v", c.x, c.y, got, c.within)
		}
		if got := r.touches(c.x, c.y); got != c.touches {
			t.Errorf("touches(%v, %v) = %v, want %v", c.x, c.y, got, c.touches)
		}
	}
	// a rectangle and a polygon together keep the points inside both
	r.rect = &[4]float64{0, 0, 2, 2}
	if !r.within(1, 1) || r.within(3, 1) || r.within(2, 1) {
		t.Error("the -spat rectangle must intersect the clip polygon")
	}
}
