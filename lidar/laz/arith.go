package laz

import (
	"sync/atomic"
	"unsafe"
)

// The adaptive binary arithmetic decoder LASzip uses (after Amir Said's
// FastAC), reading from an in-memory byte slice.
//
// Corrupt input must never crash the decoder, so it never indexes past its
// input: bytes beyond the end read as zero and pos keeps counting, so that the
// caller can tell an overrun (pos > len(buf)) and a short read (pos < len(buf))
// apart from a stream that was consumed exactly. A valid LASzip stream is
// always consumed exactly: the encoder pads its last bytes to what the decoder
// reads. bad records states that no valid stream can reach.

const (
	acMinLength   = 1 << 24
	dmLengthShift = 15
	dmMaxCount    = 1 << dmLengthShift
	bmLengthShift = 13
	bmMaxCount    = 1 << bmLengthShift
)

type decoder struct {
	buf    []byte
	pos    int
	value  uint32
	length uint32
	bad    bool
}

func (d *decoder) init(buf []byte) {
	d.buf = buf
	d.pos = 0
	d.bad = false
	d.length = 0xFFFFFFFF
	d.value = 0
	for i := 0; i < 4; i++ {
		d.value = d.value<<8 | uint32(d.next())
	}
	if d.value == 0xFFFFFFFF {
		d.bad = true
	}
}

func (d *decoder) next() byte {
	p := d.pos
	d.pos++
	if uint(p) < uint(len(d.buf)) {
		return d.buf[p]
	}
	return 0
}

// check reports how the stream ended: nil when it was consumed exactly.
func (d *decoder) check(exact bool) error {
	switch {
	case d.pos > len(d.buf):
		return errOverrun
	case d.bad || d.value >= d.length:
		return errCorrupt
	case exact && d.pos < len(d.buf):
		return errShort
	}
	return nil
}

// shift1 is the common case of renormalisation after a symbol: none or one
// byte to shift in, without a branch (conditional moves: whether a byte is
// due is a coin toss for the branch predictor). More than one byte, after an
// improbable symbol, is left to fill.
func (d *decoder) shift1(value, length uint32) (uint32, uint32) {
	p := d.pos
	var b uint32
	if uint(p) < uint(len(d.buf)) {
		b = uint32(d.buf[p])
	}
	short := length < acMinLength
	v1, l1 := value<<8|b, length<<8
	if short {
		value = v1
	}
	if short {
		length = l1
	}
	d.pos = p + int(b2u(short))
	return value, length
}

// fill shifts bytes into value until length is at least acMinLength: the
// state is passed in registers, not through d.
func (d *decoder) fill(value, length uint32) (uint32, uint32) {
	p := d.pos
	buf := d.buf
	for {
		var b byte
		if uint(p) < uint(len(buf)) {
			b = buf[p]
		}
		p++
		value = value<<8 | uint32(b)
		length <<= 8
		if length >= acMinLength {
			break
		}
	}
	d.pos = p
	return value, length
}

// symModel is an adaptive model of symbols 0..n-1.
//
// Unlike LASzip, every model has a decoding table (LASzip has one only for
// more than 16 symbols, and a coarser one), and a finer one: table[t] is the
// first symbol whose interval reaches t<<shift, so decoding a symbol is one
// division, one table look-up and, usually, no search at all. The table
// changes nothing in what is decoded: a symbol is decoded as the last one
// whose distribution value is at most value/length, as LASzip does.
type symModel struct {
	dist    []uint32
	count   []uint32
	table   []uint16
	shift   uint32
	tsize   uint32
	last    uint32
	until   uint32
	symbols uint32
	total   uint32
	cycle   uint32
	gen     uint32 // the generation (chunk) this model was last initialised for
}

// tableBits is how many bits of value/length (out of dmLengthShift) index
// the decoding table of a model of n symbols: 2 to 4 entries per symbol.
func tableBits(n uint32) uint32 {
	bits := uint32(0)
	for 1<<bits < n {
		bits++
	}
	bits += tableExtraBits
	if bits > tableMaxBits {
		bits = tableMaxBits
	}
	return bits
}

const (
	tableExtraBits = 1
	tableMaxBits   = 11
)

func (m *symModel) alloc(n uint32) {
	m.symbols = n
	m.last = n - 1
	bits := tableBits(n)
	m.tsize = 1 << bits
	m.shift = dmLengthShift - bits
	// dist[n] and dist[n+1] are sentinels above every value/length, for
	// decodeSymbol's look at the next two symbols.
	mem := make([]uint32, 2*n+2)
	m.dist = mem[:n:n]
	mem[n], mem[n+1] = 0xFFFFFFFF, 0xFFFFFFFF
	m.count = mem[n+2 : 2*n+2 : 2*n+2]
	m.table = make([]uint16, m.tsize+4) // a whole number of uint64s: see update
}

// reset puts the model back into its initial state (allocating it on first
// use) and stamps it with gen.
func (m *symModel) reset(n, gen uint32) {
	if m.dist == nil {
		m.alloc(n)
	}
	for i := range m.count {
		m.count[i] = 1
	}
	if t := initialModel(m.symbols); t != nil {
		copy(m.dist, t.dist)
		copy(m.table, t.table)
		m.total = t.total
	} else {
		m.total = 0
		m.cycle = m.symbols
		m.update()
	}
	m.cycle = (m.symbols + 6) >> 1
	m.until = m.cycle
	m.gen = gen
}

// symInit is the distribution and decoding table of a freshly reset model
// of some number of symbols: the same for every model of that size, so
// reset copies it rather than computing it (small chunks reset many models).
type symInit struct {
	dist  []uint32
	table []uint16
	total uint32
}

var symInits [1024]atomic.Pointer[symInit]

// initialModel returns the initial state of a model of n symbols (nil for
// an unusually large n), computing it on first use.
func initialModel(n uint32) *symInit {
	if n >= uint32(len(symInits)) {
		return nil
	}
	if t := symInits[n].Load(); t != nil {
		return t
	}
	var m symModel
	m.alloc(n)
	for i := range m.count {
		m.count[i] = 1
	}
	m.cycle = n
	m.update()
	t := &symInit{dist: m.dist, table: m.table, total: m.total}
	symInits[n].Store(t)
	return t
}

func (m *symModel) update() {
	m.total += m.cycle
	if m.total > dmMaxCount {
		m.total = 0
		for i, c := range m.count {
			c = (c + 1) >> 1
			m.count[i] = c
			m.total += c
		}
	}
	scale := 0x80000000 / m.total
	dist := m.dist
	count := m.count[:len(dist)]
	// table[s] is the number of symbols k >= 1 with dist[k]>>shift < s:
	// a histogram of dist[k]>>shift + 1 (built with dist), then its running
	// sum; no branch depends on the distribution.
	table := m.table[:m.tsize+4]
	clear(table)
	tp := unsafe.Pointer(unsafe.SliceData(table))
	shift := m.shift & 31
	sum := count[0]
	dist[0] = 0
	for k := 1; k < len(dist); k++ {
		v := (scale * sum) >> (31 - dmLengthShift)
		dist[k] = v
		sum += count[k]
		*(*uint16)(unsafe.Add(tp, uintptr(v>>shift+1)*2))++ // v>>shift < tsize
	}
	if littleEndian {
		// Four entries at a time: the running sum within a word, plus
		// the sum of the words before it in every lane (no entry exceeds
		// the number of symbols, so no lane carries into the next).
		w := unsafe.Slice((*uint64)(tp), len(table)/4)
		acc := uint64(0)
		for i, x := range w {
			x += x << 16
			x += x << 32
			w[i] = x + acc*0x0001_0001_0001_0001
			acc += x >> 48
		}
	} else {
		acc := uint16(0)
		for s, h := range table {
			acc += h
			table[s] = acc
		}
	}
	m.cycle = (5 * m.cycle) >> 2
	if max := (m.symbols + 6) << 3; m.cycle > max {
		m.cycle = max
	}
	m.until = m.cycle
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// at reads p[i] without a bounds check. Every caller's index is in range by
// construction: symbols are below the model's size (or at most two past it,
// the sentinels alloc puts after dist), table indexes are clamped to the
// table.
func at(p []uint32, i uint32) uint32 {
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(p)), uintptr(i)*4))
}

func at16(p []uint16, i uint32) uint32 {
	return uint32(*(*uint16)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(p)), uintptr(i)*2)))
}

// decodeSymbol decodes a symbol of m, the coder state kept in d.
func (d *decoder) decodeSymbol(m *symModel) uint32 {
	sym, value, length := d.sym(m, d.value, d.length)
	d.value, d.length = value, length
	return sym
}

// sym decodes a symbol of m with the coder state passed in registers (value
// and length in, the symbol and the new value and length out): a caller that
// decodes several symbols in a row keeps the state out of memory, and so off
// a store-to-load round trip per symbol.
func (d *decoder) sym(m *symModel, value, length uint32) (uint32, uint32, uint32) {
	l := length >> dmLengthShift
	dist := m.dist
	dv := value / l
	t := dv >> (m.shift & 31)
	if t > m.tsize {
		// value/length may exceed 1<<dmLengthShift by a little (length is
		// truncated); then the symbol is the last one, as table[tsize] says.
		if value >= length {
			d.bad = true
		}
		t = m.tsize
	}
	// The symbol is one of table[t]..table[t+1]: almost always one or two
	// candidates, told apart without a branch (whether the second one is
	// it is a coin toss for the branch predictor); a search for more.
	sym := at16(m.table, t)
	hi := at16(m.table, t+1)
	lo, up := at(dist, sym), at(dist, sym+1)
	if hi > sym+1 {
		n := hi + 1
		for n > sym+1 {
			k := (sym + n) >> 1
			if at(dist, k) > dv {
				n = k
			} else {
				sym = k
			}
		}
		lo, up = at(dist, sym), at(dist, sym+1)
	} else {
		// With one candidate, dist[sym+1] > dv (a sentinel past the
		// last symbol), so the one test covers both cases.
		next := at(dist, sym+2)
		step := b2u(up <= dv)
		if step != 0 {
			lo = up
		}
		if step != 0 {
			up = next
		}
		sym += step
	}
	x := lo * l
	up *= l
	if sym == m.last {
		up = length
	}
	length = up
	value -= x
	length -= x
	value, length = d.shift1(value, length)
	if length < acMinLength {
		value, length = d.fill(value, length)
	}
	*(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.count)), uintptr(sym)*4))++
	m.until--
	if m.until == 0 {
		m.update()
	}
	return sym, value, length
}

// bitModel is an adaptive model of one binary decision.
type bitModel struct {
	c0, total, prob, until, cycle uint32
}

func (m *bitModel) reset() {
	*m = bitModel{c0: 1, total: 2, prob: 1 << (bmLengthShift - 1), until: 4, cycle: 4}
}

func (m *bitModel) update() {
	m.total += m.cycle
	if m.total > bmMaxCount {
		m.total = (m.total + 1) >> 1
		m.c0 = (m.c0 + 1) >> 1
		if m.c0 == m.total {
			m.total++
		}
	}
	scale := 0x80000000 / m.total
	m.prob = (m.c0 * scale) >> (31 - bmLengthShift)
	m.cycle = (5 * m.cycle) >> 2
	if m.cycle > 64 {
		m.cycle = 64
	}
	m.until = m.cycle
}

// bit decodes a binary decision with the coder state in registers, as sym.
func (d *decoder) bit(m *bitModel, value, length uint32) (uint32, uint32, uint32) {
	x := m.prob * (length >> bmLengthShift)
	var sym uint32
	if value >= x {
		sym = 1
		value -= x
		length -= x
	} else {
		length = x
		m.c0++
	}
	value, length = d.shift1(value, length)
	if length < acMinLength {
		value, length = d.fill(value, length)
	}
	m.until--
	if m.until == 0 {
		m.update()
	}
	return sym, value, length
}

// raw reads bits (1..32) raw bits with the coder state in registers, as sym.
func (d *decoder) raw(bits, value, length uint32) (uint32, uint32, uint32) {
	if bits > 19 {
		lo, value, length := d.raw(16, value, length)
		hi, value, length := d.raw(bits-16, value, length)
		return hi<<16 | lo&0xFFFF, value, length
	}
	length >>= bits & 31
	sym := value / length
	value -= length * sym
	if length < acMinLength {
		value, length = d.fill(value, length)
	}
	return sym, value, length
}

func (d *decoder) readShort() uint32 {
	length := d.length >> 16
	sym := d.value / length
	value := d.value - length*sym
	if length < acMinLength {
		value, length = d.fill(value, length)
	}
	d.value, d.length = value, length
	return sym & 0xFFFF
}

func (d *decoder) readInt() uint32 {
	lo := d.readShort()
	hi := d.readShort()
	return hi<<16 | lo
}

func (d *decoder) readInt64() uint64 {
	lo := uint64(d.readInt())
	hi := uint64(d.readInt())
	return hi<<32 | lo
}
