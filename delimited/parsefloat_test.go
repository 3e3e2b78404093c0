package delimited

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkSameAsStrconv asserts that parseFloat gives strconv.ParseFloat's float64 bit for bit
// (ranges become ±Inf as strconv returns them) and rejects what strconv rejects.
func checkSameAsStrconv(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := parseFloat([]byte(s))
	if werr != nil && !strings.Contains(werr.Error(), "range") {
		if gerr == nil {
			t.Fatalf("parseFloat(%q) = %v, strconv rejects it: %v", s, got, werr)
		}
		return
	}
	if gerr != nil {
		t.Fatalf("parseFloat(%q) failed: %v; strconv gives %v", s, gerr, want)
	}
	if math.IsNaN(want) && math.IsNaN(got) {
		return
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseFloat(%q) = %v (%x), strconv = %v (%x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestParseFloatEdgeCases(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "-0.0", "00012", "0.000123", ".5", "-.5", "5.", "+5.", "1e5",
		"1E5", "1e+5", "1e-5", "-1.5e-3", "1e22", "1e23", "1e-22", "1e-23", "123456789e-22",
		"9007199254740992", "9007199254740993", "9007199254740993e-5", "1234567890123456789",
		"12345678901234567890", "0.12345678901234567890123", "4.9e-324", "1e-400", "1e400",
		"-1e400", "1.7976931348623157e308", "2.2250738585072014e-308", "440750.000",
		"3751290.123456", "5.4e6", "inf", "-Inf", "NaN", "infinity", "0x1p-2", "1_000",
		"", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "1,5", "12a", " 1", "1 ", "--1",
		"0.1", "0.2", "0.3", "123.456e2", "1e0000000000000000000000000005",
		"100000000000000000000000", "1" + strings.Repeat("0", 30) + "e-30",
	} {
		checkSameAsStrconv(t, s)
	}
}

func TestParseFloatRandomMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	formats := []byte{'f', 'e', 'g', 'E'}
	for range 200000 {
		var v float64
		switch rng.IntN(4) {
		case 0: // UTM-like coordinates with a few decimals
			v = rng.Float64() * 6e6
		case 1: // any magnitude
			v = math.Float64frombits(rng.Uint64())
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
		case 2: // small values
			v = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
		default: // integers
			v = float64(rng.Int64N(1<<55) - 1<<54)
		}
		prec := rng.IntN(20) - 1
		checkSameAsStrconv(t, strconv.FormatFloat(v, formats[rng.IntN(len(formats))], prec, 64))
	}
	// random digit strings with random decimal points and exponents
	for range 200000 {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteByte('-')
		}
		nd := 1 + rng.IntN(22)
		dot := rng.IntN(nd + 1)
		for i := range nd {
			if i == dot {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			b.WriteString("e" + strconv.Itoa(rng.IntN(80)-40))
		}
		checkSameAsStrconv(t, b.String())
	}
}

func BenchmarkParseFloat(b *testing.B) {
	fields := [][]byte{[]byte("440750.123"), []byte("5401234.5678"), []byte("107.25"), []byte("-1.5e-3")}
	for b.Loop() {
		for _, f := range fields {
			if _, err := parseFloat(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fields)), "ns/number")
}
