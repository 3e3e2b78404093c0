package lidar

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aidw/aidw/sample"
)

// Filter selects the points of a LAS file that become samples, and the attribute that
// becomes their value. The zero value keeps every point and grids Z.
type Filter struct {
	// Classes keeps only points of these classification codes (ground is 2); empty keeps all.
	Classes []int
	// Returns is "", "all", "first" or "last". A point counts as first when its return number
	// is 1 (or 0, as files that never fill the field have it) and as last when its return
	// number is at least its number of returns, so a single return is both.
	Returns string
	// DropWithheld drops points flagged withheld; DropOverlap drops overlap points (the
	// overlap flag of formats 6-10, classification 12 in formats 0-5).
	DropWithheld, DropOverlap bool
	// ZRange, when set, keeps points with ZRange[0] <= Z <= ZRange[1] (Z, whatever Field is).
	ZRange *[2]float64
	// Field is the attribute gridded instead of Z: one of Fields; "" means Z.
	Field string
	// Samples is the filter every reader applies (-spat, -clipsrc, the z transform), applied
	// while decoding too; nil for none.
	Samples *sample.Filter
}

// Fields are the attributes Filter.Field can name. gps_time needs point format 1, 3-10;
// red, green and blue formats 2, 3, 5, 7, 8, 10; nir formats 8 and 10. scan_angle is in
// degrees in every format.
var Fields = []string{"z", "intensity", "classification", "return_number",
	"number_of_returns", "scan_angle", "user_data", "point_source_id", "gps_time",
	"red", "green", "blue", "nir"}

// Validate checks the filter on its own, before any file is opened.
func (f Filter) Validate() error {
	for _, c := range f.Classes {
		if c < 0 || c > 255 {
			return fmt.Errorf("LAS classification %d: codes are 0 to 255", c)
		}
	}
	switch f.Returns {
	case "", "all", "first", "last":
	default:
		return fmt.Errorf("LAS returns %q: use first, last or all", f.Returns)
	}
	if r := f.ZRange; r != nil && !(r[0] <= r[1]) {
		return fmt.Errorf("LAS Z range %g %g: min must not exceed max", r[0], r[1])
	}
	if f.Field != "" && !slices.Contains(Fields, strings.ToLower(f.Field)) {
		return fmt.Errorf("LAS attribute %q: use one of %s", f.Field, strings.Join(Fields, ", "))
	}
	return nil
}

// lasAttr says how to read the attribute gridded instead of Z from a record.
type lasAttr struct {
	kind  int // one of the attr* constants
	off   int
	shift uint8
	mask  uint8
	scale float64
}

const (
	attrZ = iota
	attrU8
	attrU16
	attrI8
	attrI16
	attrF64
)

// lasAttribute finds a field in a point format.
func lasAttribute(name string, format int) (lasAttr, error) {
	l := lasLayouts[format]
	optional := func(off, kind int, what string) (lasAttr, error) {
		if off < 0 {
			return lasAttr{}, fmt.Errorf("point format %d has no %s", format, what)
		}
		return lasAttr{kind: kind, off: off}, nil
	}
	u8 := func(off int, shift, mask uint8) lasAttr {
		return lasAttr{kind: attrU8, off: off, shift: shift, mask: mask}
	}
	switch name {
	case "", "z":
		return lasAttr{kind: attrZ}, nil
	case "intensity":
		return lasAttr{kind: attrU16, off: 12}, nil
	case "user_data":
		return u8(17, 0, 0xff), nil
	case "classification":
		if l.extended {
			return u8(16, 0, 0xff), nil
		}
		return u8(15, 0, 0x1f), nil
	case "return_number":
		if l.extended {
			return u8(14, 0, 0x0f), nil
		}
		return u8(14, 0, 0x07), nil
	case "number_of_returns":
		if l.extended {
			return u8(14, 4, 0x0f), nil
		}
		return u8(14, 3, 0x07), nil
	case "point_source_id":
		if l.extended {
			return lasAttr{kind: attrU16, off: 20}, nil
		}
		return lasAttr{kind: attrU16, off: 18}, nil
	case "scan_angle":
		// Formats 6-10 store it in steps of 0.006 degree, 0-5 in whole degrees.
		if l.extended {
			return lasAttr{kind: attrI16, off: 18, scale: 0.006}, nil
		}
		return lasAttr{kind: attrI8, off: 16}, nil
	case "gps_time":
		return optional(l.gps, attrF64, "GPS time")
	case "red", "green", "blue":
		a, err := optional(l.rgb, attrU16, "RGB colour")
		a.off += 2 * slices.Index([]string{"red", "green", "blue"}, name)
		return a, err
	case "nir":
		return optional(l.nir, attrU16, "NIR")
	}
	return lasAttr{}, fmt.Errorf("LAS attribute %q: use one of %s", name, strings.Join(Fields, ", "))
}

// value reads the attribute from a record at least as long as its format's.
func (a *lasAttr) value(r []byte) float64 {
	switch a.kind {
	case attrU8:
		return float64(r[a.off] >> a.shift & a.mask)
	case attrU16:
		return float64(le.Uint16(r[a.off:]))
	case attrI8:
		return float64(int8(r[a.off]))
	case attrI16:
		return float64(int16(le.Uint16(r[a.off:]))) * a.scale
	}
	return math.Float64frombits(le.Uint64(r[a.off:]))
}
