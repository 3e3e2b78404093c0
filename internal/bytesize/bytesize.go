// Package bytesize reads and writes sizes in bytes as a user gives and reads them: with a
// binary unit (400MB is 400 MiB), one rule for every flag and every message.
package bytesize

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// units are the binary units, largest first; each has its long (KiB) and short (KB, K) names.
var units = []struct {
	text  string // as Text writes it
	names []string
	size  float64
}{
	{"TiB", []string{"TIB", "TB", "T"}, 1 << 40},
	{"GiB", []string{"GIB", "GB", "G"}, 1 << 30},
	{"MiB", []string{"MIB", "MB", "M"}, 1 << 20},
	{"KiB", []string{"KIB", "KB", "K"}, 1 << 10},
}

// Parse reads a size above zero: a number and a unit, B, KB, MB, GB or TB (powers of 1024;
// KiB, MiB, ... and K, M, G, T too), in any case. A number without a unit is refused rather
// than taken as bytes, which a budget of 400 would almost never mean.
func Parse(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult, unit := 0.0, ""
	for _, u := range units {
		for _, name := range u.names {
			if mult == 0 && strings.HasSuffix(t, name) {
				mult, unit = u.size, name
			}
		}
	}
	if mult == 0 && strings.HasSuffix(t, "B") {
		mult, unit = 1, "B"
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, unit)), 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, errors.New("not a size: give a number and a unit, as 400MB or 8GB")
	case f <= 0 || (unit != "" && f*mult < 1):
		return 0, errors.New("give a size of 1 byte or more, as 400MB or 8GB")
	case unit == "":
		return 0, fmt.Errorf("give a unit, as %sMB or %sGB", strings.TrimSpace(s), strings.TrimSpace(s))
	case f*mult >= math.MaxInt64:
		return 0, errors.New("too large a size")
	}
	return int64(f * mult), nil
}

// Text writes a number of bytes in the largest unit that leaves at least 1 of it, with one
// decimal ("512.0 MiB", never "0.5 GiB" or "0.0 GiB"), and bytes below 1 KiB.
func Text(b float64) string {
	for _, u := range units {
		if math.Abs(b) >= u.size {
			return fmt.Sprintf("%.1f %s", b/u.size, u.text)
		}
	}
	return fmt.Sprintf("%.0f bytes", b)
}
