package laz

import "encoding/binary"

// Item decoders of the point10 family (point formats 0-5): POINT10 v2,
// GPSTIME11 v2, RGB12 v2, WAVEPACKET13 v1 and BYTE v2. All of them share one
// arithmetic decoder, so a point's items are decoded in item order.

var le = binary.LittleEndian

// numberReturnMap maps (number of returns, return number) to one of 16
// contexts; numberReturnLevel is |n - r|.
var numberReturnMap = [8][8]uint8{
	{15, 14, 13, 12, 11, 10, 9, 8},
	{14, 0, 1, 3, 6, 10, 10, 9},
	{13, 1, 2, 4, 7, 11, 11, 10},
	{12, 3, 4, 5, 8, 12, 12, 11},
	{11, 6, 7, 8, 9, 13, 13, 12},
	{10, 10, 11, 12, 13, 14, 14, 13},
	{9, 10, 11, 12, 13, 14, 15, 14},
	{8, 9, 10, 11, 12, 13, 14, 15},
}

var numberReturnLevel [8][8]uint8

func init() {
	for n := 0; n < 8; n++ {
		for r := 0; r < 8; r++ {
			d := n - r
			if d < 0 {
				d = -d
			}
			numberReturnLevel[n][r] = uint8(d)
		}
	}
}

// median5 is the streaming median of the last five values.
type median5 struct {
	v    [5]int32
	high bool
}

func (m *median5) init() { *m = median5{high: true} }

func (m *median5) add(v int32) {
	// LASzip drops the largest value (high) or the smallest (otherwise) and
	// inserts v in order; high becomes v < median (high) or v <= median.
	// The same, without branches: the differences are noise to a predictor.
	v0, v1, v2, v3, v4 := m.v[0], m.v[1], m.v[2], m.v[3], m.v[4]
	h := m.high
	a0, a1, a2, a3 := v1, v2, v3, v4
	if h {
		a0 = v0
	}
	if h {
		a1 = v1
	}
	if h {
		a2 = v2
	}
	if h {
		a3 = v3
	}
	nh := b2u(v < v2)|b2u(v == v2)&^b2u(h) != 0
	m.v[0] = min(v, a0)
	m.v[1] = min(max(a0, v), a1)
	m.v[2] = min(max(a1, v), a2)
	m.v[3] = min(max(a2, v), a3)
	m.v[4] = max(a3, v)
	m.high = nh
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// lazy returns m, (re)initialised with n symbols if it is stale for gen.
func lazy(m *symModel, n, gen uint32) *symModel {
	if m.gen != gen {
		m.reset(n, gen)
	}
	return m
}

// ---- POINT10 v2 ----

type point10 struct {
	x, y, z   int32
	intensity uint16
	bits      uint8 // return number, number of returns, scan direction, edge of flight line
	class     uint8
	scan      uint8
	user      uint8
	psid      uint16

	gen           uint32
	lastIntensity [16]uint16
	xmed, ymed    [16]median5
	lastHeight    [8]int32

	changed   symModel
	scanAngle [2]symModel
	bitByte   [256]symModel
	classif   [256]symModel
	userData  [256]symModel

	icIntensity, icPSID, icDX, icDY, icZ intDec
}

func newPoint10() *point10 {
	p := &point10{}
	p.icIntensity.setup(16, 4)
	p.icPSID.setup(16, 1)
	p.icDX.setup(32, 2)
	p.icDY.setup(32, 22)
	p.icZ.setup(32, 20)
	return p
}

func (p *point10) first(rec []byte) {
	p.gen++
	for i := range p.xmed {
		p.xmed[i].init()
		p.ymed[i].init()
		p.lastIntensity[i] = 0
	}
	p.lastHeight = [8]int32{}
	p.changed.reset(64, p.gen)
	p.scanAngle[0].reset(256, p.gen)
	p.scanAngle[1].reset(256, p.gen)
	p.icIntensity.reset()
	p.icPSID.reset()
	p.icDX.reset()
	p.icDY.reset()
	p.icZ.reset()
	p.x = int32(le.Uint32(rec[0:]))
	p.y = int32(le.Uint32(rec[4:]))
	p.z = int32(le.Uint32(rec[8:]))
	p.intensity = 0
	p.bits = rec[14]
	p.class = rec[15]
	p.scan = rec[16]
	p.user = rec[17]
	p.psid = le.Uint16(rec[18:])
}

// read decodes the next point into rec, the coder state in registers (see
// decoder.sym).
func (p *point10) read(d *decoder, rec []byte, value, length uint32) (uint32, uint32) {
	var cv uint32
	cv, value, length = d.sym(&p.changed, value, length)
	var m, l, n uint32
	if cv != 0 {
		var s uint32
		if cv&32 != 0 {
			s, value, length = d.sym(lazy(&p.bitByte[p.bits], 256, p.gen), value, length)
			p.bits = uint8(s)
		}
		r := uint32(p.bits & 7)
		n = uint32(p.bits>>3) & 7
		m = uint32(numberReturnMap[n][r])
		l = uint32(numberReturnLevel[n][r])
		if cv&16 != 0 {
			ctx := m
			if ctx > 3 {
				ctx = 3
			}
			var v int32
			v, value, length = p.icIntensity.dec(d, int32(p.lastIntensity[m]), ctx, value, length)
			p.intensity = uint16(v)
			p.lastIntensity[m] = p.intensity
		} else {
			p.intensity = p.lastIntensity[m]
		}
		if cv&8 != 0 {
			s, value, length = d.sym(lazy(&p.classif[p.class], 256, p.gen), value, length)
			p.class = uint8(s)
		}
		if cv&4 != 0 {
			s, value, length = d.sym(&p.scanAngle[(p.bits>>6)&1], value, length)
			p.scan = uint8(s + uint32(p.scan))
		}
		if cv&2 != 0 {
			s, value, length = d.sym(lazy(&p.userData[p.user], 256, p.gen), value, length)
			p.user = uint8(s)
		}
		if cv&1 != 0 {
			var v int32
			v, value, length = p.icPSID.dec(d, int32(p.psid), 0, value, length)
			p.psid = uint16(v)
		}
	} else {
		r := uint32(p.bits & 7)
		n = uint32(p.bits>>3) & 7
		m = uint32(numberReturnMap[n][r])
		l = uint32(numberReturnLevel[n][r])
	}
	m &= 15
	l &= 7
	one := b2u(n == 1)
	var diff int32
	diff, value, length = p.icDX.dec(d, p.xmed[m].v[2], one, value, length)
	p.x += diff
	p.xmed[m].add(diff)
	kb := p.icDX.k
	ctx := uint32(20)
	if kb < 20 {
		ctx = kb &^ 1
	}
	diff, value, length = p.icDY.dec(d, p.ymed[m].v[2], one+ctx, value, length)
	p.y += diff
	p.ymed[m].add(diff)
	kb = (p.icDX.k + p.icDY.k) / 2
	ctx = 18
	if kb < 18 {
		ctx = kb &^ 1
	}
	p.z, value, length = p.icZ.dec(d, p.lastHeight[l], one+ctx, value, length)
	p.lastHeight[l] = p.z

	rec = rec[:20]
	le.PutUint32(rec[0:], uint32(p.x))
	le.PutUint32(rec[4:], uint32(p.y))
	le.PutUint32(rec[8:], uint32(p.z))
	le.PutUint16(rec[12:], p.intensity)
	rec[14] = p.bits
	rec[15] = p.class
	rec[16] = p.scan
	rec[17] = p.user
	le.PutUint16(rec[18:], p.psid)
	return value, length
}

// ---- GPSTIME11 v2 (and the GPS time part of POINT14 v3) ----

const (
	gpsMulti          = 500
	gpsMultiMinus     = -10
	gpsMultiUnchanged = gpsMulti - gpsMultiMinus + 1
	gpsMultiCodeFull  = gpsMulti - gpsMultiMinus + 2
	gpsMultiTotal     = gpsMulti - gpsMultiMinus + 6
)

type gpsTime struct {
	last, next uint32
	t          [4]int64
	diff       [4]int32
	extreme    [4]int32
	multi      symModel
	zero       symModel
	ic         intDec
	// the models are reset lazily, on first use in a chunk
	gen, nmulti, nzero uint32
}

func (g *gpsTime) setup() { g.ic.setup(32, 9) }

// first starts a chunk; zeroSyms is 6 for GPSTIME11 v2 and 5 for POINT14 v3.
func (g *gpsTime) first(t uint64, zeroSyms, gen uint32) {
	total := uint32(gpsMultiTotal)
	if zeroSyms == 5 {
		total-- // POINT14 v3 has no "unchanged" code
	}
	g.last, g.next = 0, 0
	g.diff = [4]int32{}
	g.extreme = [4]int32{}
	g.t = [4]int64{int64(t), 0, 0, 0}
	g.gen, g.nmulti, g.nzero = gen, total, zeroSyms
	g.ic.reset()
}

func (g *gpsTime) extremeDiff(gd int32) {
	l := g.last
	g.extreme[l]++
	if g.extreme[l] > 3 {
		g.diff[l] = gd
		g.extreme[l] = 0
	}
}

func (g *gpsTime) full(d *decoder) {
	g.next = (g.next + 1) & 3
	hi := g.ic.decompress(d, int32(uint64(g.t[g.last])>>32), 8)
	g.t[g.next] = int64(uint64(uint32(hi))<<32 | uint64(d.readInt()))
	g.last = g.next
	g.diff[g.last] = 0
	g.extreme[g.last] = 0
}

// read decodes the next GPS time; v3 selects the POINT14 v3 variant. It
// reports false on an impossible sequence of codes (corrupt data).
func (g *gpsTime) read(d *decoder, v3 bool) bool {
	for iter := 0; iter < 4; iter++ {
		l := g.last & 3
		if g.diff[l] == 0 {
			multi := d.decodeSymbol(lazy(&g.zero, g.nzero, g.gen))
			if v3 {
				multi++ // v3 has no "unchanged" code here: its codes are v2's minus one
			}
			switch {
			case multi == 1:
				g.diff[l] = g.ic.decompress(d, 0, 0)
				g.t[l] += int64(g.diff[l])
				g.extreme[l] = 0
			case multi == 2:
				g.full(d)
			case multi > 2:
				g.last = (g.last + multi - 2) & 3
				continue
			}
			return true
		}
		multi := int32(d.decodeSymbol(lazy(&g.multi, g.nmulti, g.gen)))
		codeFull := int32(gpsMultiCodeFull)
		if v3 {
			codeFull-- // v3 has no "unchanged" code: full and switch codes are one lower
		}
		switch {
		case multi == 1:
			g.t[l] += int64(g.ic.decompress(d, g.diff[l], 1))
			g.extreme[l] = 0
		case multi < gpsMultiUnchanged:
			var gd int32
			switch {
			case multi == 0:
				gd = g.ic.decompress(d, 0, 7)
				g.extremeDiff(gd)
			case multi < gpsMulti:
				ctx := uint32(2)
				if multi >= 10 {
					ctx = 3
				}
				gd = g.ic.decompress(d, multi*g.diff[l], ctx)
			case multi == gpsMulti:
				gd = g.ic.decompress(d, gpsMulti*g.diff[l], 4)
				g.extremeDiff(gd)
			default:
				multi = gpsMulti - multi
				if multi > gpsMultiMinus {
					gd = g.ic.decompress(d, multi*g.diff[l], 5)
				} else {
					gd = g.ic.decompress(d, gpsMultiMinus*g.diff[l], 6)
					g.extremeDiff(gd)
				}
			}
			g.t[l] += int64(gd)
		case multi == codeFull:
			g.full(d)
		case multi > codeFull:
			g.last = (g.last + uint32(multi-codeFull)) & 3
			continue
		}
		return true
	}
	return false
}

// ---- RGB12 v2 (and RGB14 / RGBNIR14 v3) ----

type rgbModels struct {
	used symModel
	diff [6]symModel
}

func (m *rgbModels) reset(gen uint32) {
	m.used.reset(128, gen)
	for i := range m.diff {
		m.diff[i].reset(256, gen)
	}
}

func clampU8(v int32) int32 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return v
}

// decodeRGB decodes a colour predicted from last and stores it there.
func decodeRGB(d *decoder, m *rgbModels, last *[3]uint16) {
	sym := d.decodeSymbol(&m.used)
	l0, l1, l2 := int32(last[0]), int32(last[1]), int32(last[2])
	var r, g, b int32
	if sym&1 != 0 {
		r = int32(uint8(int32(d.decodeSymbol(&m.diff[0])) + l0&0xFF))
	} else {
		r = l0 & 0xFF
	}
	if sym&2 != 0 {
		r |= int32(uint8(int32(d.decodeSymbol(&m.diff[1]))+l0>>8)) << 8
	} else {
		r |= l0 & 0xFF00
	}
	if sym&64 != 0 {
		diff := r&0xFF - l0&0xFF
		if sym&4 != 0 {
			g = int32(uint8(int32(d.decodeSymbol(&m.diff[2])) + clampU8(diff+l1&0xFF)))
		} else {
			g = l1 & 0xFF
		}
		if sym&16 != 0 {
			corr := int32(d.decodeSymbol(&m.diff[4]))
			diff = (diff + (g&0xFF - l1&0xFF)) / 2
			b = int32(uint8(corr + clampU8(diff+l2&0xFF)))
		} else {
			b = l2 & 0xFF
		}
		diff = r>>8 - l0>>8
		if sym&8 != 0 {
			g |= int32(uint8(int32(d.decodeSymbol(&m.diff[3]))+clampU8(diff+l1>>8))) << 8
		} else {
			g |= l1 & 0xFF00
		}
		if sym&32 != 0 {
			corr := int32(d.decodeSymbol(&m.diff[5]))
			diff = (diff + (g>>8 - l1>>8)) / 2
			b |= int32(uint8(corr+clampU8(diff+l2>>8))) << 8
		} else {
			b |= l2 & 0xFF00
		}
	} else {
		g = r
		b = r
	}
	last[0], last[1], last[2] = uint16(r), uint16(g), uint16(b)
}

// ---- WAVEPACKET13 v1 (and WAVEPACKET14 v3) ----

type wavePacket struct {
	index    uint8
	offset   uint64
	size     uint32
	returnPt int32
	x, y, z  int32
}

type waveModels struct {
	index      symModel
	offsetDiff [4]symModel
	icOffset   intDec
	icSize     intDec
	icReturn   intDec
	icXYZ      intDec
	lastDiff32 int32  // state of the offset prediction
	symLast    uint32 // (per scanner channel context for WAVEPACKET14)
}

func (m *waveModels) setup() {
	m.icOffset.setup(32, 1)
	m.icSize.setup(32, 1)
	m.icReturn.setup(32, 1)
	m.icXYZ.setup(32, 3)
}

func (m *waveModels) reset(gen uint32) {
	m.index.reset(256, gen)
	for i := range m.offsetDiff {
		m.offsetDiff[i].reset(4, gen)
	}
	m.icOffset.reset()
	m.icSize.reset()
	m.icReturn.reset()
	m.icXYZ.reset()
	m.lastDiff32 = 0
	m.symLast = 0
}

func (w *wavePacket) parse(rec []byte) {
	rec = rec[:29]
	w.index = rec[0]
	w.offset = le.Uint64(rec[1:])
	w.size = le.Uint32(rec[9:])
	w.returnPt = int32(le.Uint32(rec[13:]))
	w.x = int32(le.Uint32(rec[17:]))
	w.y = int32(le.Uint32(rec[21:]))
	w.z = int32(le.Uint32(rec[25:]))
}

func (w *wavePacket) put(rec []byte) {
	rec = rec[:29]
	rec[0] = w.index
	le.PutUint64(rec[1:], w.offset)
	le.PutUint32(rec[9:], w.size)
	le.PutUint32(rec[13:], uint32(w.returnPt))
	le.PutUint32(rec[17:], uint32(w.x))
	le.PutUint32(rec[21:], uint32(w.y))
	le.PutUint32(rec[25:], uint32(w.z))
}

// decodeWave decodes a wave packet predicted from w (the last one) into w.
func decodeWave(d *decoder, m *waveModels, w *wavePacket) {
	w.index = uint8(d.decodeSymbol(&m.index))
	m.symLast = d.decodeSymbol(&m.offsetDiff[m.symLast&3])
	switch m.symLast {
	case 0:
	case 1:
		w.offset += uint64(w.size)
	case 2:
		m.lastDiff32 = m.icOffset.decompress(d, m.lastDiff32, 0)
		w.offset += uint64(int64(m.lastDiff32))
	default:
		w.offset = d.readInt64()
	}
	w.size = uint32(m.icSize.decompress(d, int32(w.size), 0))
	w.returnPt = m.icReturn.decompress(d, w.returnPt, 0)
	w.x = m.icXYZ.decompress(d, w.x, 0)
	w.y = m.icXYZ.decompress(d, w.y, 1)
	w.z = m.icXYZ.decompress(d, w.z, 2)
}

// ---- the pointwise chunk decoder ----

// p10Decoder decodes one chunk of a point10-family file; it is reused from
// chunk to chunk (models are re-initialised lazily).
type p10Decoder struct {
	lay   *layout
	d     decoder
	gen   uint32
	p     *point10
	gps   gpsTime
	rgb   rgbModels
	last  [3]uint16
	wmod  waveModels
	wave  wavePacket
	bmod  []symModel
	bytes []byte
}

func newP10Decoder(lay *layout) *p10Decoder {
	pd := &p10Decoder{lay: lay, p: newPoint10()}
	pd.gps.setup()
	pd.wmod.setup()
	pd.bmod = make([]symModel, lay.nbytes)
	pd.bytes = make([]byte, lay.nbytes)
	return pd
}

func (pd *p10Decoder) decode(data []byte, points int, dst []byte, exact bool, stop func() bool) error {
	lay := pd.lay
	rl := lay.recLen
	if points <= 0 {
		return nil
	}
	if len(data) < rl {
		return errOverrun
	}
	if len(dst) < points*rl {
		return errDst
	}
	copy(dst[:rl], data[:rl])
	pd.gen++
	gen := pd.gen
	first := data[:rl]
	pd.p.first(first)
	if lay.gps >= 0 {
		pd.gps.first(le.Uint64(first[lay.gps:]), 6, gen)
	}
	if lay.rgb >= 0 {
		pd.rgb.reset(gen)
		o := lay.rgb
		pd.last = [3]uint16{le.Uint16(first[o:]), le.Uint16(first[o+2:]), le.Uint16(first[o+4:])}
	}
	if lay.wave >= 0 {
		pd.wmod.reset(gen)
		pd.wave.parse(first[lay.wave:])
	}
	if lay.nbytes > 0 {
		for i := range pd.bmod {
			pd.bmod[i].reset(256, gen)
		}
		copy(pd.bytes, first[lay.bytes:lay.bytes+lay.nbytes])
	}
	d := &pd.d
	d.init(data[rl:])
	p := pd.p
	gpsOff, rgbOff, waveOff, bytesOff := lay.gps, lay.rgb, lay.wave, lay.bytes
	for i := 1; i < points; i++ {
		rec := dst[i*rl : (i+1)*rl]
		d.value, d.length = p.read(d, rec, d.value, d.length)
		for _, k := range lay.order {
			switch k {
			case ItemGPSTime11:
				if !pd.gps.read(d, false) {
					return errCorrupt
				}
				le.PutUint64(rec[gpsOff:], uint64(pd.gps.t[pd.gps.last&3]))
			case ItemRGB12:
				decodeRGB(d, &pd.rgb, &pd.last)
				o := rec[rgbOff : rgbOff+6]
				le.PutUint16(o[0:], pd.last[0])
				le.PutUint16(o[2:], pd.last[1])
				le.PutUint16(o[4:], pd.last[2])
			case ItemWavePacket13:
				decodeWave(d, &pd.wmod, &pd.wave)
				pd.wave.put(rec[waveOff:])
			case ItemByte:
				o := rec[bytesOff : bytesOff+len(pd.bytes)]
				for j := range pd.bytes {
					v := pd.bytes[j] + uint8(d.decodeSymbol(&pd.bmod[j]))
					pd.bytes[j] = v
					o[j] = v
				}
			}
		}
		if i&63 == 0 {
			if d.pos > len(d.buf)+8 || d.bad {
				break
			}
			if i&4095 == 0 && stop != nil && stop() {
				return errStopped
			}
		}
	}
	return d.check(exact)
}
