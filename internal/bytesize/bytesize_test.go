package bytesize

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"400MB", 400 << 20}, {"400 mib", 400 << 20}, {"8G", 8 << 30}, {"1.5KB", 1536}, {"1TB", 1 << 40},
		{"512B", 512}, {" 2 gb ", 2 << 30},
	} {
		if got, err := Parse(c.in); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	// one rule for every bad size (issue 27, defect 7: 400 was taken as bytes, 0 asked for a unit)
	for _, c := range []struct{ in, want string }{
		{"400", "give a unit, as 400MB"}, {"0", "1 byte or more"}, {"0MB", "1 byte or more"}, {"-5GB", "1 byte or more"},
		{"0.1B", "1 byte or more"}, {"", "not a size"}, {"MB", "not a size"}, {"lots", "not a size"}, {"NaNGB", "not a size"},
		{"1e30TB", "too large"},
	} {
		if _, err := Parse(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

// Text picks the unit: a budget of 300 MiB was "0.3 GiB", 40 MiB "0.0 GiB" (issue 27, defect 7).
func TestText(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{40 << 20, "40.0 MiB"}, {300 << 20, "300.0 MiB"}, {1536, "1.5 KiB"}, {12, "12 bytes"}, {0, "0 bytes"},
		{3 << 30, "3.0 GiB"}, {5 << 40, "5.0 TiB"}, {1023, "1023 bytes"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, s := range []string{"400MB", "8GB", "1.5KB"} {
		b, _ := Parse(s)
		if back, err := Parse(strings.ReplaceAll(Text(float64(b)), " ", "")); err != nil || back != b {
			t.Errorf("Parse(Text(Parse(%q))) = %d, %v; want %d", s, back, err, b)
		}
	}
}
