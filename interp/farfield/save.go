package farfield

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// A Field of streamed samples is the same for every tile of a job, so that a plan for many
// machines builds it once and saves it (Save), and each tile's worker loads it (LoadField)
// instead of building it again. A target's sums (AtNear) need the tree's square and depth,
// the leaves' counts, the far fields, direct's points and charges and the boxes' single
// powers: those are saved, in this order, little-endian. The charges of the boxes and the far
// operators, which only the build needs, are not: a loaded Field holds a fraction of a built
// one's memory.

// fieldMagic opens a saved Field; its last byte is the layout's version.
const fieldMagic = "AIDWFAR\x01"

// saveBlock is how many values go between looks at the context, saved or loaded: about a
// millisecond's work.
const saveBlock = 1 << 17

// Save writes the field (one of streamed samples, Builder.Field) to w for LoadField.
func (f *Field) Save(ctx context.Context, w io.Writer) error {
	pl, t := f.pl, f.t
	if pl.streamed == nil {
		return errors.New("farfield: only a field of streamed samples is saved")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{ctx: ctx, w: bw}
	e.bytes([]byte(fieldMagic))
	for _, v := range fieldHeader(pl, t, len(t.single)) {
		e.u64(v)
	}
	e.int32s(t.start)
	for l := 2; l <= t.fields && t.d >= 2; l++ {
		e.floats(t.loc[l])
	}
	if t.direct() {
		for _, v := range [][]float64{t.px, t.py, t.pz, t.p1} {
			e.floats(v)
		}
	}
	e.floats(t.single)
	if t.power != nil {
		for l := 2; l <= t.fields; l++ {
			e.int8s(t.power[l])
		}
	}
	if e.err == nil {
		e.err = bw.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("farfield: saving the field: %w", e.err)
	}
	return nil
}

// fieldHeader is what identifies a saved field's layout: the plan's orders, the tree's depth,
// fields and square, the number of samples and of single powers.
func fieldHeader(pl *Plan, t *tree, singles int) []uint64 {
	return []uint64{uint64(pl.p), uint64(pl.q), uint64(pl.pd), uint64(t.d), uint64(t.fields),
		math.Float64bits(t.ox), math.Float64bits(t.oy), math.Float64bits(t.sd), uint64(pl.streamed.n), uint64(singles)}
}

// LoadField reads the Field that Save wrote for this plan's Field over box for about nt
// targets (as NewBuilder(box, nt) starts it): a field saved for another job, another plan
// or other targets (another square, depth or orders), or damaged in its layout, is refused.
func (pl *Plan) LoadField(ctx context.Context, r io.Reader, box [4]float64, nt int) (*Field, error) {
	if pl.streamed == nil {
		return nil, errors.New("farfield: a saved field needs a plan of streamed samples (NewStreamPlan)")
	}
	t := pl.geometry(box, nt)
	d := &decoder{ctx: ctx, r: bufio.NewReaderSize(r, 1<<20)}
	magic := d.bytes(len(fieldMagic))
	if d.err == nil && string(magic) != fieldMagic {
		return nil, errors.New("farfield: not a saved field of this version")
	}
	want := fieldHeader(pl, t, 0)
	got := make([]uint64, len(want))
	for i := range got {
		got[i] = d.u64()
	}
	if d.err != nil {
		return nil, fmt.Errorf("farfield: loading the field: %w", d.err)
	}
	singles := got[len(got)-1]
	if got[len(got)-1] = 0; !slices.Equal(got, want) || singles > maxSingles {
		return nil, errors.New("farfield: the saved field is of another job (its orders, tree or samples differ)")
	}
	p2, q := pl.p*pl.p, pl.q
	t.start = d.int32s(1<<(2*t.d) + 1)
	if t.d >= 2 {
		t.loc = make([][]float64, t.d+1)
		for l := 2; l <= t.fields; l++ {
			t.loc[l] = d.floats((1 << (2 * l)) * 2 * q * p2)
		}
	}
	pl.setFast(t)
	if t.direct() {
		t.pp = (pl.pd*pl.pd + 7) &^ 7
		n := (1 << (2 * t.d)) * t.pp
		t.px, t.py, t.pz, t.p1 = d.floats(n), d.floats(n), d.floats(n), d.floats(n)
	}
	if singles > 0 {
		t.single = d.floats(int(singles))
		t.power = make([][]int8, t.fields+1)
		for l := 2; l <= t.fields; l++ {
			t.power[l] = d.int8s(1 << (2 * l))
		}
	}
	if d.err == nil {
		if _, err := d.r.ReadByte(); err != io.EOF {
			d.err = errors.New("bytes beyond its end")
		}
	}
	if d.err == nil {
		d.err = t.checkLoaded(pl)
	}
	if d.err != nil {
		return nil, fmt.Errorf("farfield: loading the field: %w", d.err)
	}
	t.boxCounts()
	return &Field{pl, t}, nil
}

// checkLoaded checks what a loaded tree's sums index by: the leaves' starts, which must count
// the plan's samples, and the boxes' single powers.
func (t *tree) checkLoaded(pl *Plan) error {
	if t.start[0] != 0 || int(t.start[len(t.start)-1]) != pl.streamed.n {
		return errors.New("its leaves do not hold the job's samples")
	}
	for k := 1; k < len(t.start); k++ {
		if t.start[k] < t.start[k-1] {
			return errors.New("its leaves' counts are damaged")
		}
	}
	for _, a := range t.single {
		if !(a >= pl.o.AlphaMin && a <= pl.o.AlphaMax) {
			return fmt.Errorf("a single power %g outside the plan's [%g, %g]", a, pl.o.AlphaMin, pl.o.AlphaMax)
		}
	}
	for l := 2; l < len(t.power); l++ {
		for _, k := range t.power[l] {
			if k < -1 || int(k) >= len(t.single) {
				return errors.New("its boxes' powers are damaged")
			}
		}
	}
	return nil
}

// encoder writes values little-endian, a block at a time between looks at its context; the
// first error stays.
type encoder struct {
	ctx context.Context
	w   io.Writer
	buf []byte
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(e.buf[:0], v)) }

// put writes n values, a block at a time, put appending value i's bytes.
func (e *encoder) put(n int, put func(b []byte, i int) []byte) {
	for lo := 0; lo < n && e.err == nil; lo += saveBlock {
		if e.err = e.ctx.Err(); e.err != nil {
			return
		}
		b := e.buf[:0]
		for i := lo; i < min(lo+saveBlock, n); i++ {
			b = put(b, i)
		}
		e.buf = b
		e.bytes(b)
	}
}

func (e *encoder) floats(v []float64) {
	e.put(len(v), func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(v[i])) })
}

func (e *encoder) int32s(v []int32) {
	e.put(len(v), func(b []byte, i int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v[i])) })
}

func (e *encoder) int8s(v []int8) {
	e.put(len(v), func(b []byte, i int) []byte { return append(b, byte(v[i])) })
}

// decoder reads what an encoder wrote; the first error stays, and a short read is
// io.ErrUnexpectedEOF.
type decoder struct {
	ctx context.Context
	r   *bufio.Reader
	buf []byte
	err error
}

// bytes reads the next n bytes (valid until the next read).
func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		d.err = err
		return nil
	}
	return b
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// get reads n values of size bytes each, a block at a time, set taking value i from b.
func (d *decoder) get(n, size int, set func(b []byte, i int)) {
	for lo := 0; lo < n && d.err == nil; lo += saveBlock {
		if d.err = d.ctx.Err(); d.err != nil {
			return
		}
		hi := min(lo+saveBlock, n)
		b := d.bytes((hi - lo) * size)
		for i := lo; b != nil && i < hi; i++ {
			set(b[(i-lo)*size:], i)
		}
	}
}

func (d *decoder) floats(n int) []float64 {
	v := make([]float64, n)
	d.get(n, 8, func(b []byte, i int) { v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b)) })
	return v
}

func (d *decoder) int32s(n int) []int32 {
	v := make([]int32, n)
	d.get(n, 4, func(b []byte, i int) { v[i] = int32(binary.LittleEndian.Uint32(b)) })
	return v
}

func (d *decoder) int8s(n int) []int8 {
	v := make([]int8, n)
	d.get(n, 1, func(b []byte, i int) { v[i] = int8(b[0]) })
	return v
}
