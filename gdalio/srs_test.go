package gdalio

import (
	"math"
	"strings"
	"testing"

	"github.com/aidw/aidw/sample"
)

func TestTransformSamples(t *testing.T) {
	s := &sample.Samples{OriginX: 3, OriginY: 0}
	// on UTM 31N's central meridian (3°E) the equator is at (500000, 0) by definition
	s.Add(3, 0, 42)
	s.Add(3.5, 45.25, 7)
	s.Add(3, 100, 1) // no latitude 100: dropped
	dropped, err := TransformSamples(s, "EPSG:4326", "EPSG:32631")
	if err != nil || dropped != 1 || s.Len() != 2 {
		t.Fatalf("dropped %d, %d left, err %v; want 1 dropped, 2 left", dropped, s.Len(), err)
	}
	x, y := s.X[0]+s.OriginX, s.Y[0]+s.OriginY
	if math.Abs(x-500000) > 1e-6 || math.Abs(y) > 1e-6 || s.Z[0] != 42 || s.Z[1] != 7 {
		t.Fatalf("equator point went to (%v, %v) z %v", x, y, s.Z)
	}
	// and back: the round trip returns the geographic coordinates
	if _, err := TransformSamples(s, "EPSG:32631", "EPSG:4326"); err != nil {
		t.Fatal(err)
	}
	lon, lat := s.X[1]+s.OriginX, s.Y[1]+s.OriginY
	if math.Abs(lon-3.5) > 1e-9 || math.Abs(lat-45.25) > 1e-9 {
		t.Fatalf("round trip gave (%v, %v), want (3.5, 45.25)", lon, lat)
	}
	before := append([]float64(nil), s.X...)
	if d, err := TransformSamples(s, "EPSG:4326", "EPSG:4326"); err != nil || d != 0 || s.X[0] != before[0] {
		t.Fatalf("same CRS: dropped %d err %v, samples changed", d, err)
	}
	if _, err := TransformSamples(s, "EPSG:4326", "nonsense"); err == nil || !strings.Contains(err.Error(), `CRS "nonsense"`) {
		t.Fatalf("bad CRS: error %v", err)
	}
	all := &sample.Samples{}
	all.Add(0, 100, 1)
	if _, err := TransformSamples(all, "EPSG:4326", "EPSG:32631"); err == nil {
		t.Fatal("no transformable sample: want an error")
	}
}

func TestSameSRS(t *testing.T) {
	wkt, err := srsWKT("EPSG:26711")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"EPSG:26711", wkt, true}, {"EPSG:26711", "EPSG:32631", false}, {"", "", true}, {"", "EPSG:4326", false}, {"nonsense", "nonsense", false}} {
		if got := SameSRS(c.a, c.b); got != c.want {
			t.Fatalf("SameSRS(%.20q, %.20q) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}

// Compact samples leave their lattice when transformed: they come out plain, where the same
// points given plain go.
func TestTransformCompactSamples(t *testing.T) {
	compact := &sample.Samples{QuantumX: 0.01, QuantumY: 0.01, OriginX: 500000, OriginY: 4000000,
		QX: []int32{0, 12345, -6789}, QY: []int32{0, -2222, 31415}, Z: []float64{1, 2, 3}}
	x, y := compact.Coords()
	plain := &sample.Samples{X: x, Y: y, Z: []float64{1, 2, 3}, OriginX: 500000, OriginY: 4000000}
	for _, s := range []*sample.Samples{compact, plain} {
		if _, err := TransformSamples(s, "EPSG:32631", "EPSG:4326"); err != nil {
			t.Fatal(err)
		}
	}
	if compact.IsCompact() || compact.Len() != 3 {
		t.Fatalf("transformed samples: compact %v, %d of them", compact.IsCompact(), compact.Len())
	}
	for i := range int32(3) {
		cx, cy := compact.XY(i)
		px, py := plain.XY(i)
		if cx+compact.OriginX != px+plain.OriginX || cy+compact.OriginY != py+plain.OriginY {
			t.Errorf("sample %d: compact went to %v,%v, plain to %v,%v", i, cx, cy, px, py)
		}
	}
}
