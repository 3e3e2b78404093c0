package lidar

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/aidw/aidw/sample"
)

// pointDecoder turns point records into samples. It is read-only once built, so the workers
// share it. The class, return and flag tests are tables indexed by the bytes that hold them
// (14, 15 and 16 in every format), and a point is always written, the count advancing only
// when it passes: a point costs the same whatever the filter, with no branch to mispredict
// when classes come in random order.
type pointDecoder struct {
	recLen                 int
	scale, offset          [3]float64
	originX, originY       float64
	compact                bool
	shiftX, shiftY         int64      // compact: a point's quanta from the origin are its X + shiftX
	pass14, pass15, pass16 [256]uint8 // 1 where that byte's value passes the filter
	zRange                 bool
	zMin, zMax             float64
	attr                   lasAttr
	// samples is the readers' filter; set only when it can drop or change a point (a region,
	// a z transform, or an attribute that may be NaN), so the plain path pays nothing.
	samples *sample.Filter
	qx, qy  float64 // compact: the quanta, for the region's absolute coordinates
	// what a LAZ decoder must decode besides x, y, z and the returns
	classesOrFlags bool
	field          string
}

func newPointDecoder(h Header, f Filter, dst *sample.Samples) (*pointDecoder, error) {
	attr, err := lasAttribute(strings.ToLower(f.Field), h.PointFormat)
	if err != nil {
		return nil, err
	}
	d := &pointDecoder{recLen: h.RecordLength, scale: h.Scale, offset: h.Offset,
		originX: dst.OriginX, originY: dst.OriginY, attr: attr, qx: dst.QuantumX, qy: dst.QuantumY}
	if s := f.Samples; s != nil && (s.Region != nil || s.Transforms() || attr.kind == attrF64) {
		d.samples = s
	}
	d.classesOrFlags = len(f.Classes) > 0 || f.DropWithheld || f.DropOverlap
	d.field = strings.ToLower(f.Field)
	if dst.IsCompact() {
		var okX, okY bool
		d.shiftX, okX = latticeShift(h.Scale[0], h.Offset[0], dst.QuantumX, dst.OriginX)
		d.shiftY, okY = latticeShift(h.Scale[1], h.Offset[1], dst.QuantumY, dst.OriginY)
		if !okX || !okY {
			return nil, ErrOffLattice
		}
		d.compact = true
	}
	classOK := func(c byte) bool { return len(f.Classes) == 0 || slices.Contains(f.Classes, int(c)) }
	extended := lasLayouts[h.PointFormat].extended
	for v := range 256 {
		b := byte(v)
		rn, nr := b&0x07, b>>3&0x07
		if extended {
			rn, nr = b&0x0f, b>>4
		}
		d.pass14[v] = b2u((f.Returns != "first" || rn <= 1) && (f.Returns != "last" || rn >= nr))
		if extended {
			// byte 15 holds the withheld (bit 2) and overlap (bit 3) flags, byte 16 the class
			d.pass15[v] = b2u(!(f.DropWithheld && b&0x04 != 0) && !(f.DropOverlap && b&0x08 != 0))
			d.pass16[v] = b2u(classOK(b))
			continue
		}
		// byte 15 holds the class (bits 0-4, overlap is class 12) and the withheld flag
		// (bit 7); byte 16 is the scan angle
		class := b & 0x1f
		d.pass15[v] = b2u(classOK(class) && !(f.DropWithheld && b&0x80 != 0) && !(f.DropOverlap && class == 12))
		d.pass16[v] = 1
	}
	if f.ZRange != nil {
		d.zRange, d.zMin, d.zMax = true, f.ZRange[0], f.ZRange[1]
	}
	return d, nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// ErrOffLattice says that a file's points do not fit the compact samples they are read into:
// another scale, an offset off the lattice, or points too far for int32 quanta. The reading
// starts again with plain samples.
var ErrOffLattice = errors.New("the points do not fit compact samples")

// latticeShift is how many quanta of the samples' lattice (quantum q, origin at a whole number
// of quanta) a file with this scale and offset adds to its stored integers: the offset must be
// a whole number of quanta (within a millionth of one), and the scale the quantum itself.
func latticeShift(scale, offset, q, origin float64) (int64, bool) {
	m := math.Round(offset / q)
	if scale != q || math.Abs(offset/q-m) > 1e-6 || math.Abs(m) > 1<<52 {
		return 0, false
	}
	k, _ := sample.LatticePoint(origin, q)
	return int64(m) - k, true
}

// decodeInto decodes whole records of buf into dst's samples from at on, in dst's form, and
// returns how many passed the filter; false when a point does not fit the compact form.
func (d *pointDecoder) decodeInto(buf []byte, dst *sample.Samples, at int, nonFinite *int) (int, bool) {
	if d.compact {
		return d.decodeCompact(buf, dst.QX[at:], dst.QY[at:], dst.Z[at:], nonFinite)
	}
	return d.decode(buf, dst.X[at:], dst.Y[at:], dst.Z[at:], nonFinite), true
}

// place applies the readers' filter to a point at (x, y), absolute coordinates, that the LAS
// filters keep or not (keep): it returns the transformed value and whether the point stays.
// A kept point whose value is not finite (a GPS time may be NaN) is dropped and counted.
func (d *pointDecoder) place(x, y, z float64, keep uint8, nonFinite *int) (float64, bool) {
	if keep == 0 || !d.samples.Keeps(x, y) {
		return z, false
	}
	z = d.samples.Z(z)
	if math.IsNaN(z) || math.IsInf(z, 0) {
		*nonFinite++
		return z, false
	}
	return z, true
}

// decodeCompact is decode into compact samples: the stored integers shifted onto the samples'
// lattice, exactly. It returns false when a point's quanta do not fit in int32. It repeats
// decode's loop: a function for the shared part of a record is not inlined, and costs a fifth
// of the reading speed.
func (d *pointDecoder) decodeCompact(buf []byte, qx, qy []int32, z []float64, nonFinite *int) (int, bool) {
	rl := d.recLen
	n := len(buf) / rl
	sz, oz := d.scale[2], d.offset[2]
	qx, qy, z = qx[:n], qy[:n], z[:n]
	k := 0
	fits := true
	for p := range n {
		r := buf[p*rl : p*rl+rl]
		_ = r[19]
		keep := d.pass14[r[14]] & d.pass15[r[15]] & d.pass16[r[16]]
		xq := int64(int32(le.Uint32(r[0:]))) + d.shiftX
		yq := int64(int32(le.Uint32(r[4:]))) + d.shiftY
		zv := float64(int32(le.Uint32(r[8:])))*sz + oz
		if d.zRange {
			keep &= b2u(zv >= d.zMin) & b2u(zv <= d.zMax)
		}
		if d.attr.kind != attrZ {
			zv = d.attr.value(r)
		}
		if d.samples != nil {
			x := float64(int32(xq))*d.qx + d.originX
			y := float64(int32(yq))*d.qy + d.originY
			var ok bool
			zv, ok = d.place(x, y, zv, keep, nonFinite)
			keep &= b2u(ok)
		}
		fits = fits && xq == int64(int32(xq)) && yq == int64(int32(yq))
		qx[k], qy[k], z[k] = int32(xq), int32(yq), zv
		k += int(keep)
	}
	return k, fits
}

// decode turns whole records of buf into samples at x[0:], y[0:], z[0:] and returns how many
// passed the filter.
func (d *pointDecoder) decode(buf []byte, x, y, z []float64, nonFinite *int) int {
	rl := d.recLen
	n := len(buf) / rl
	sx, sy, sz := d.scale[0], d.scale[1], d.scale[2]
	ox, oy, oz := d.offset[0], d.offset[1], d.offset[2]
	x, y, z = x[:n], y[:n], z[:n]
	k := 0
	for p := range n {
		r := buf[p*rl : p*rl+rl]
		_ = r[19] // every format's record holds bytes 0-19: no bounds checks below
		keep := d.pass14[r[14]] & d.pass15[r[15]] & d.pass16[r[16]]
		xv := float64(int32(le.Uint32(r[0:])))*sx + ox
		yv := float64(int32(le.Uint32(r[4:])))*sy + oy
		zv := float64(int32(le.Uint32(r[8:])))*sz + oz
		if d.zRange {
			keep &= b2u(zv >= d.zMin) & b2u(zv <= d.zMax)
		}
		if d.attr.kind != attrZ {
			zv = d.attr.value(r)
		}
		if d.samples != nil {
			var ok bool
			zv, ok = d.place(xv, yv, zv, keep, nonFinite)
			keep &= b2u(ok)
		}
		// k <= p < n: the write is in bounds whether or not the point is kept
		x[k] = xv - d.originX
		y[k] = yv - d.originY
		z[k] = zv
		k += int(keep)
	}
	return k
}
