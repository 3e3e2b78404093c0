package delimited

import (
	"errors"
	"strconv"
	"unsafe"
)

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// errNotNumber marks a field that strconv does not read as a number either.
var errNotNumber = errors.New("not a number")

// parseFloat reads a decimal number exactly as strconv.ParseFloat(s, 64) does. Plain decimals
// whose digits fit in 2^53 with a power of ten up to 22 take Clinger's fast path: one
// correctly rounded multiply or divide of two exact float64 values, hence the correctly
// rounded result. Anything else (long mantissas, large exponents, inf, nan, hex) goes to
// strconv. Out-of-range values come back as ±Inf like strconv's.
func parseFloat(b []byte) (float64, error) {
	if v, ok := fastFloat(b); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errNotNumber
	}
	return v, nil
}

func fastFloat(b []byte) (float64, bool) {
	v, end, ok := fastFloatPrefix(b, 0)
	return v, ok && end == len(b)
}

// fastFloatPrefix reads the plain decimal starting at b[i] up to the first byte that cannot
// continue it, returning that byte's index; ok is false when there is no number there or it
// needs strconv.
func fastFloatPrefix(b []byte, i int) (v float64, end int, ok bool) {
	n := len(b)
	neg := false
	if i < n && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp10 := 0, 0
	sawDigit := false
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		sawDigit = true
		if mant == 0 && c == 0 {
			continue
		}
		if digits == 19 {
			return 0, i, false
		}
		mant = mant*10 + uint64(c)
		digits++
	}
	if i < n && b[i] == '.' {
		for i++; i < n; i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			sawDigit = true
			exp10--
			if mant == 0 && c == 0 {
				continue
			}
			if digits == 19 {
				return 0, i, false
			}
			mant = mant*10 + uint64(c)
			digits++
		}
	}
	if !sawDigit {
		return 0, i, false
	}
	if i < n && (b[i]|0x20) == 'e' {
		i++
		eneg := false
		if i < n && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		e, start := 0, i
		for ; i < n; i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if e > 10000 {
				return 0, i, false
			}
			e = e*10 + int(c)
		}
		if i == start {
			return 0, i, false
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	var f float64
	switch {
	case mant == 0:
		f = 0
	case mant > 1<<53:
		return 0, i, false
	case exp10 == 0:
		f = float64(mant)
	case exp10 > 0 && exp10 <= 22:
		f = float64(mant) * exactPow10[exp10]
	case exp10 < 0 && exp10 >= -22:
		f = float64(mant) / exactPow10[-exp10]
	default:
		return 0, i, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}
