package gdalbool

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		v         string
		value, ok bool
	}{
		{"YES", true, true}, {"true", true, true}, {"On", true, true}, {"1", true, true},
		{"no", false, true}, {"FALSE", false, true}, {"off", false, true}, {"0", false, true},
		{"", false, false}, {"y", false, false}, {"2", false, false}, {"FLOATING_POINT", false, false},
	} {
		if value, ok := Parse(c.v); value != c.value || ok != c.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", c.v, value, ok, c.value, c.ok)
		}
	}
}
