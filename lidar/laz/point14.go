package laz

import (
	"fmt"
	"io"
)

// The point14 family (point formats 6-10), compressor 3: every chunk starts
// with the first point raw, then the point count and the byte size of each
// layer, then the layers. Each layer is its own arithmetic stream, so a layer
// that is not wanted is never read. The models are kept per scanner channel
// ("context"); a new context starts from the previous point.

var numberReturnMap6 = [16][16]uint8{
	{0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5},
	{1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
	{2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3},
	{3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5},
}

// numberReturnLevel8[n][r] is min(|n-r|, 7).
var numberReturnLevel8 [16][16]uint8

func init() {
	for n := 0; n < 16; n++ {
		for r := 0; r < 16; r++ {
			d := n - r
			if d < 0 {
				d = -d
			}
			if d > 7 {
				d = 7
			}
			numberReturnLevel8[n][r] = uint8(d)
		}
	}
}

// Layers of a point14 chunk, in stream order.
const (
	layXY = iota
	layZ
	layClass
	layFlags
	layIntensity
	layScan
	layUser
	layPSID
	layGPS
	layRGB
	layNIR
	layWave
	layByte // one layer per extra byte
)

var layerNames = [...]string{"channel/returns/XY", "Z", "classification", "flags", "intensity", "scan angle", "user data", "point source", "GPS time", "RGB", "NIR", "wave packet", "extra byte"}

type p14Point struct {
	x, y, z    int32
	intensity  uint16
	ret, nret  uint32 // 4 bits each
	classFlags uint8
	channel    uint32
	scanDir    uint8
	edge       uint8
	class      uint8
	user       uint8
	scan       uint16
	psid       uint16
	gps        uint64
	gpsChange  bool
}

func (p *p14Point) parse(rec []byte) {
	rec = rec[:30]
	p.x = int32(le.Uint32(rec[0:]))
	p.y = int32(le.Uint32(rec[4:]))
	p.z = int32(le.Uint32(rec[8:]))
	p.intensity = le.Uint16(rec[12:])
	p.ret = uint32(rec[14] & 15)
	p.nret = uint32(rec[14] >> 4)
	p.classFlags = rec[15] & 15
	p.channel = uint32(rec[15]>>4) & 3
	p.scanDir = (rec[15] >> 6) & 1
	p.edge = rec[15] >> 7
	p.class = rec[16]
	p.user = rec[17]
	p.scan = le.Uint16(rec[18:])
	p.psid = le.Uint16(rec[20:])
	p.gps = le.Uint64(rec[22:])
	p.gpsChange = false
}

func (p *p14Point) put(rec []byte, sel Fields) {
	rec = rec[:30]
	le.PutUint32(rec[0:], uint32(p.x))
	le.PutUint32(rec[4:], uint32(p.y))
	le.PutUint32(rec[8:], uint32(p.z))
	var intensity uint16
	if sel&Intensity != 0 {
		intensity = p.intensity
	}
	le.PutUint16(rec[12:], intensity)
	rec[14] = uint8(p.ret&15 | p.nret<<4)
	b15 := uint8(p.channel&3) << 4
	var class uint8
	if sel&Classification != 0 {
		b15 |= p.classFlags | p.scanDir<<6 | p.edge<<7
		class = p.class
	}
	rec[15] = b15
	rec[16] = class
	var user uint8
	if sel&UserData != 0 {
		user = p.user
	}
	rec[17] = user
	var scan, psid uint16
	if sel&ScanAngle != 0 {
		scan = p.scan
	}
	if sel&PointSource != 0 {
		psid = p.psid
	}
	le.PutUint16(rec[18:], scan)
	le.PutUint16(rec[20:], psid)
	var gps uint64
	if sel&GPSTime != 0 {
		gps = p.gps
	}
	le.PutUint64(rec[22:], gps)
}

// p14Ctx is the state of one scanner channel.
type p14Ctx struct {
	unused        bool
	gen           uint32
	last          p14Point
	lastIntensity [8]uint16
	xmed, ymed    [12]median5
	lastZ         [8]int32

	changed   [8]symModel
	channel   symModel
	nret      [16]symModel
	rnum      [16]symModel
	rnGpsSame symModel
	classif   [64]symModel
	flags     [64]symModel
	user      [64]symModel

	icDX, icDY, icZ             intDec
	icIntensity, icScan, icPSID intDec
	gps                         gpsTime
}

func newP14Ctx() *p14Ctx {
	c := &p14Ctx{unused: true}
	c.icDX.setup(32, 2)
	c.icDY.setup(32, 22)
	c.icZ.setup(32, 20)
	c.icIntensity.setup(16, 4)
	c.icScan.setup(16, 2)
	c.icPSID.setup(16, 1)
	c.gps.setup()
	return c
}

func (c *p14Ctx) start(from *p14Point) {
	c.gen++
	g := c.gen
	c.channel.reset(3, g)
	c.rnGpsSame.reset(13, g)
	c.icDX.reset()
	c.icDY.reset()
	c.icZ.reset()
	c.icIntensity.reset()
	c.icScan.reset()
	c.icPSID.reset()
	for i := range c.xmed {
		c.xmed[i].init()
		c.ymed[i].init()
	}
	for i := range c.lastZ {
		c.lastZ[i] = from.z
		c.lastIntensity[i] = from.intensity
	}
	c.gps.first(from.gps, 5, g)
	c.last = *from
	c.last.gpsChange = false
	c.unused = false
}

type nirModels struct {
	used symModel
	diff [2]symModel
}

type rgbCtx struct {
	unused bool
	gen    uint32
	rgb    rgbModels
	nir    nirModels
	last   [4]uint16 // R, G, B, NIR
}

type waveCtx struct {
	unused bool
	m      waveModels
	last   wavePacket
}

type bytesCtx struct {
	unused bool
	m      []symModel
	last   []byte
}

type p14Decoder struct {
	lay    *layout
	layers []int // layer kind of each layer, in stream order
	ctx    [4]*p14Ctx
	cur    uint32

	dec  [layByte]decoder // one per layer kind (extra bytes: bdec)
	bdec []decoder
	on   [layByte]bool // layer decoded in this chunk
	bon  []bool

	rgbc   [4]rgbCtx
	rgbCur uint32
	wavec  [4]waveCtx
	waveCu uint32
	bytec  [4]bytesCtx
	byteCu uint32

	starts []int64
	sizes  []int64
}

func newP14Decoder(lay *layout) *p14Decoder {
	pd := &p14Decoder{lay: lay}
	for i := 0; i < 9; i++ {
		pd.layers = append(pd.layers, i)
	}
	for _, t := range lay.order {
		switch t {
		case ItemRGB14:
			pd.layers = append(pd.layers, layRGB)
		case ItemRGBNIR14:
			pd.layers = append(pd.layers, layRGB, layNIR)
		case ItemWavePacket14:
			pd.layers = append(pd.layers, layWave)
		case ItemByte14:
			for i := 0; i < lay.nbytes; i++ {
				pd.layers = append(pd.layers, layByte)
			}
		}
	}
	for i := range pd.ctx {
		pd.ctx[i] = newP14Ctx()
		pd.wavec[i].m.setup()
		pd.bytec[i].m = make([]symModel, lay.nbytes)
		pd.bytec[i].last = make([]byte, lay.nbytes)
	}
	pd.bdec = make([]decoder, lay.nbytes)
	pd.bon = make([]bool, lay.nbytes)
	pd.starts = make([]int64, len(pd.layers))
	pd.sizes = make([]int64, len(pd.layers))
	return pd
}

// wanted reports whether a layer kind is needed for sel.
func wanted(kind int, sel Fields) bool {
	switch kind {
	case layXY, layZ:
		return true
	case layClass, layFlags:
		return sel&Classification != 0
	case layIntensity:
		return sel&Intensity != 0
	case layScan:
		return sel&ScanAngle != 0
	case layUser:
		return sel&UserData != 0
	case layPSID:
		return sel&PointSource != 0
	case layGPS:
		return sel&GPSTime != 0
	case layRGB:
		return sel&RGB != 0
	case layNIR:
		return sel&NIR != 0
	case layWave:
		return sel&WavePacket != 0
	case layByte:
		return sel&ExtraBytes != 0
	}
	return false
}

type chunkHeader struct {
	count uint32
	hdr   int64 // bytes before the first layer
	total int64 // bytes of the whole chunk
}

// parseHeader reads the layer sizes from a chunk's header bytes.
func (pd *p14Decoder) parseHeader(h []byte) chunkHeader {
	rl := pd.lay.recLen
	ch := chunkHeader{count: le.Uint32(h[rl:]), hdr: int64(rl + 4 + 4*len(pd.layers))}
	pos := ch.hdr
	for i := range pd.layers {
		s := int64(le.Uint32(h[rl+4+4*i:]))
		pd.starts[i] = pos
		pd.sizes[i] = s
		pos += s
	}
	ch.total = pos
	return ch
}

func (r *Reader) layeredHeader(w *worker, off, end int64) (chunkHeader, error) {
	pd := w.p14
	n := int64(pd.lay.recLen + 4 + 4*len(pd.layers))
	if off+n > end {
		return chunkHeader{}, errOverrun
	}
	h := w.grow(int(n))
	if err := readFull(r.src, h, off); err != nil {
		return chunkHeader{}, err
	}
	return pd.parseHeader(h), nil
}

func (pd *p14Decoder) decode(src io.ReaderAt, offset, bytes int64, points int, dst []byte, sel Fields, stop func() bool, w *worker) error {
	lay := pd.lay
	rl := lay.recLen
	nl := len(pd.layers)
	hdrLen := int64(rl + 4 + 4*nl)
	if points == 1 && bytes == int64(rl) {
		// A lone point may be stored raw, without layers.
		buf := w.grow(rl)
		if err := readFull(src, buf, offset); err != nil {
			return err
		}
		var p p14Point
		p.parse(buf)
		pd.emitFirst(&p, buf, dst[:rl], sel)
		return nil
	}
	if bytes < hdrLen {
		return fmt.Errorf("%d bytes cannot hold the chunk header (%d bytes): %w", bytes, hdrLen, errOverrun)
	}
	buf := w.grow(int(bytes))
	if err := readFull(src, buf[:hdrLen], offset); err != nil {
		return err
	}
	ch := pd.parseHeader(buf)
	if int64(ch.count) != int64(points) {
		return fmt.Errorf("chunk says it holds %d points, expected %d", ch.count, points)
	}
	if ch.total != bytes {
		return fmt.Errorf("layer sizes add up to %d bytes, the chunk has %d", ch.total, bytes)
	}
	// Read the wanted layers, a run of adjacent ones at a time.
	for i := 0; i < nl; {
		if !wanted(pd.layers[i], sel) || pd.sizes[i] == 0 {
			i++
			continue
		}
		j := i
		for j+1 < nl && wanted(pd.layers[j+1], sel) {
			j++
		}
		a, b := pd.starts[i], pd.starts[j]+pd.sizes[j]
		if err := readFull(src, buf[a:b], offset+a); err != nil {
			return err
		}
		i = j + 1
	}
	// Set up one decoder per wanted, non-empty layer.
	pd.on = [layByte]bool{}
	bi := 0
	for i, kind := range pd.layers {
		on := wanted(kind, sel) && pd.sizes[i] > 0
		data := buf[pd.starts[i] : pd.starts[i]+pd.sizes[i]]
		if kind == layByte {
			pd.bon[bi] = on
			if on {
				pd.bdec[bi].init(data)
			}
			bi++
			continue
		}
		pd.on[kind] = on
		if on {
			pd.dec[kind].init(data)
		}
	}
	first := buf[:rl]
	var fp p14Point
	fp.parse(first)
	for i := range pd.ctx {
		pd.ctx[i].unused = true
		pd.rgbc[i].unused = true
		pd.wavec[i].unused = true
		pd.bytec[i].unused = true
	}
	pd.cur = fp.channel
	pd.ctx[pd.cur].start(&fp)
	if lay.rgb >= 0 {
		pd.rgbCur = pd.cur
		o := first[lay.rgb:]
		var last [4]uint16
		last[0], last[1], last[2] = le.Uint16(o), le.Uint16(o[2:]), le.Uint16(o[4:])
		if lay.nir {
			last[3] = le.Uint16(o[6:])
		}
		pd.startRGB(pd.cur, &last)
	}
	if lay.wave >= 0 {
		pd.waveCu = pd.cur
		var wp wavePacket
		wp.parse(first[lay.wave:])
		pd.startWave(pd.cur, &wp)
	}
	if lay.nbytes > 0 {
		pd.byteCu = pd.cur
		pd.startBytes(pd.cur, first[lay.bytes:lay.bytes+lay.nbytes])
	}
	pd.emitFirst(&fp, first, dst[:rl], sel)

	for i := 1; i < points; i++ {
		rec := dst[i*rl : (i+1)*rl]
		if !pd.readPoint(rec, sel) {
			return fmt.Errorf("layer %s: %w", layerNames[layGPS], errCorrupt)
		}
		if lay.rgb >= 0 {
			pd.readRGB(rec[lay.rgb:], sel)
		}
		if lay.wave >= 0 {
			pd.readWave(rec[lay.wave:lay.wave+29], sel)
		}
		if lay.nbytes > 0 {
			pd.readBytes(rec[lay.bytes:lay.bytes+lay.nbytes], sel)
		}
		if i&63 == 0 {
			if pd.overrun() {
				break
			}
			if i&4095 == 0 && stop != nil && stop() {
				return errStopped
			}
		}
	}
	for k := 0; k < layByte; k++ {
		if pd.on[k] {
			if err := pd.dec[k].check(true); err != nil {
				return fmt.Errorf("layer %s: %w", layerNames[k], err)
			}
		}
	}
	for k := range pd.bdec {
		if pd.bon[k] {
			if err := pd.bdec[k].check(true); err != nil {
				return fmt.Errorf("layer extra byte %d: %w", k, err)
			}
		}
	}
	return nil
}

// overrun reports whether a layer's decoder has read well past its bytes:
// the data is corrupt and decoding further is wasted.
func (pd *p14Decoder) overrun() bool {
	for k := range pd.dec {
		if pd.on[k] && (pd.dec[k].pos > len(pd.dec[k].buf)+8 || pd.dec[k].bad) {
			return true
		}
	}
	for k := range pd.bdec {
		if pd.bon[k] && pd.bdec[k].pos > len(pd.bdec[k].buf)+8 {
			return true
		}
	}
	return false
}

// emitFirst writes the chunk's first point, which is stored raw.
func (pd *p14Decoder) emitFirst(p *p14Point, raw, rec []byte, sel Fields) {
	lay := pd.lay
	p.put(rec, sel)
	if o := lay.rgb; o >= 0 {
		n := 6
		if lay.nir {
			n = 8
		}
		clear(rec[o : o+n])
		if sel&RGB != 0 {
			copy(rec[o:o+6], raw[o:o+6])
		}
		if lay.nir && sel&NIR != 0 {
			copy(rec[o+6:o+8], raw[o+6:o+8])
		}
	}
	if o := lay.wave; o >= 0 {
		if sel&WavePacket != 0 {
			copy(rec[o:o+29], raw[o:o+29])
		} else {
			clear(rec[o : o+29])
		}
	}
	if o := lay.bytes; o >= 0 {
		if sel&ExtraBytes != 0 {
			copy(rec[o:o+lay.nbytes], raw[o:o+lay.nbytes])
		} else {
			clear(rec[o : o+lay.nbytes])
		}
	}
}

func (pd *p14Decoder) readPoint(rec []byte, sel Fields) bool {
	c := pd.ctx[pd.cur&3]
	lp := &c.last
	dxy := &pd.dec[layXY]
	lpr := b2u(lp.ret == 1) | b2u(lp.ret >= lp.nret)<<1 | b2u(lp.gpsChange)<<2
	cv := dxy.decodeSymbol(lazy(&c.changed[lpr&7], 128, c.gen))
	if cv&(1<<6) != 0 {
		diff := dxy.decodeSymbol(&c.channel)
		sc := (pd.cur + diff + 1) & 3
		if pd.ctx[sc].unused {
			pd.ctx[sc].start(lp)
		}
		pd.cur = sc
		c = pd.ctx[sc]
		lp = &c.last
		lp.channel = sc
	}
	gpsChange := cv&(1<<4) != 0
	gi := b2u(gpsChange)
	lastN, lastR := lp.nret&15, lp.ret&15
	n := lastN
	if cv&(1<<2) != 0 {
		n = dxy.decodeSymbol(lazy(&c.nret[lastN], 16, c.gen)) & 15
		lp.nret = n
	}
	r := lastR
	switch cv & 3 {
	case 1:
		r = (lastR + 1) & 15
	case 2:
		r = (lastR + 15) & 15
	case 3:
		if gpsChange {
			r = dxy.decodeSymbol(lazy(&c.rnum[lastR], 16, c.gen)) & 15
		} else {
			sym := dxy.decodeSymbol(&c.rnGpsSame)
			r = (lastR + sym + 2) & 15
		}
	}
	lp.ret = r
	m := uint32(numberReturnMap6[n][r])
	l := uint32(numberReturnLevel8[n][r])
	cpr := b2u(r == 1)<<1 | b2u(r >= n)
	one := b2u(n == 1)
	idx := (m<<1 | gi) % 12
	diff := c.icDX.decompress(dxy, c.xmed[idx].v[2], one)
	lp.x += diff
	c.xmed[idx].add(diff)
	kb := c.icDX.k
	ctx := uint32(20)
	if kb < 20 {
		ctx = kb &^ 1
	}
	diff = c.icDY.decompress(dxy, c.ymed[idx].v[2], one+ctx)
	lp.y += diff
	c.ymed[idx].add(diff)
	if pd.on[layZ] {
		kb = (c.icDX.k + c.icDY.k) / 2
		ctx = 18
		if kb < 18 {
			ctx = kb &^ 1
		}
		lp.z = c.icZ.decompress(&pd.dec[layZ], c.lastZ[l&7], one+ctx)
		c.lastZ[l&7] = lp.z
	}
	if pd.on[layClass] {
		ccc := (uint32(lp.class&0x1F) << 1) + b2u(cpr == 3)
		lp.class = uint8(pd.dec[layClass].decodeSymbol(lazy(&c.classif[ccc&63], 256, c.gen)))
	}
	if pd.on[layFlags] {
		lf := uint32(lp.edge&1)<<5 | uint32(lp.scanDir&1)<<4 | uint32(lp.classFlags&15)
		f := pd.dec[layFlags].decodeSymbol(lazy(&c.flags[lf], 64, c.gen))
		lp.edge = uint8(f>>5) & 1
		lp.scanDir = uint8(f>>4) & 1
		lp.classFlags = uint8(f) & 15
	}
	if pd.on[layIntensity] {
		ii := (cpr<<1 | gi) & 7
		v := uint16(c.icIntensity.decompress(&pd.dec[layIntensity], int32(c.lastIntensity[ii]), cpr))
		c.lastIntensity[ii] = v
		lp.intensity = v
	}
	if pd.on[layScan] && cv&(1<<3) != 0 {
		lp.scan = uint16(c.icScan.decompress(&pd.dec[layScan], int32(int16(lp.scan)), gi))
	}
	if pd.on[layUser] {
		lp.user = uint8(pd.dec[layUser].decodeSymbol(lazy(&c.user[lp.user/4], 256, c.gen)))
	}
	if pd.on[layPSID] && cv&(1<<5) != 0 {
		lp.psid = uint16(c.icPSID.decompress(&pd.dec[layPSID], int32(lp.psid), 0))
	}
	ok := true
	if pd.on[layGPS] && gpsChange {
		ok = c.gps.read(&pd.dec[layGPS], true)
		lp.gps = uint64(c.gps.t[c.gps.last&3])
	}
	lp.put(rec, sel)
	lp.gpsChange = gpsChange
	return ok
}

func (pd *p14Decoder) startRGB(ci uint32, from *[4]uint16) {
	rc := &pd.rgbc[ci]
	rc.gen++
	if pd.on[layRGB] {
		rc.rgb.reset(rc.gen)
	}
	if pd.on[layNIR] {
		rc.nir.used.reset(4, rc.gen)
		rc.nir.diff[0].reset(256, rc.gen)
		rc.nir.diff[1].reset(256, rc.gen)
	}
	rc.last = *from
	rc.unused = false
}

func (pd *p14Decoder) readRGB(rec []byte, sel Fields) {
	cur := pd.cur & 3
	li := pd.rgbCur
	if pd.rgbCur != cur {
		pd.rgbCur = cur
		if pd.rgbc[cur].unused {
			pd.startRGB(cur, &pd.rgbc[li].last)
			li = cur
		} else if pd.lay.v4 {
			li = cur
		}
	}
	rc := &pd.rgbc[cur]
	last := &pd.rgbc[li].last
	if pd.on[layRGB] {
		l3 := (*[3]uint16)(last[:3])
		decodeRGB(&pd.dec[layRGB], &rc.rgb, l3)
	}
	if pd.on[layNIR] {
		d := &pd.dec[layNIR]
		sym := d.decodeSymbol(&rc.nir.used)
		l := uint32(last[3])
		var v uint32
		if sym&1 != 0 {
			v = uint32(uint8(d.decodeSymbol(&rc.nir.diff[0]) + l&0xFF))
		} else {
			v = l & 0xFF
		}
		if sym&2 != 0 {
			v |= uint32(uint8(d.decodeSymbol(&rc.nir.diff[1])+l>>8)) << 8
		} else {
			v |= l & 0xFF00
		}
		last[3] = uint16(v)
	}
	rec = rec[:6]
	if sel&RGB != 0 {
		le.PutUint16(rec[0:], last[0])
		le.PutUint16(rec[2:], last[1])
		le.PutUint16(rec[4:], last[2])
	} else {
		clear(rec)
	}
	if pd.lay.nir {
		rec = rec[:8]
		var v uint16
		if sel&NIR != 0 {
			v = last[3]
		}
		le.PutUint16(rec[6:], v)
	}
}

func (pd *p14Decoder) startWave(ci uint32, from *wavePacket) {
	wc := &pd.wavec[ci]
	if pd.on[layWave] {
		wc.m.reset(pd.ctx[pd.cur&3].gen)
	}
	wc.m.lastDiff32 = 0
	wc.m.symLast = 0
	wc.last = *from
	wc.unused = false
}

func (pd *p14Decoder) readWave(rec []byte, sel Fields) {
	cur := pd.cur & 3
	li := pd.waveCu
	if pd.waveCu != cur {
		pd.waveCu = cur
		if pd.wavec[cur].unused {
			pd.startWave(cur, &pd.wavec[li].last)
			li = cur
		} else if pd.lay.v4 {
			li = cur
		}
	}
	last := &pd.wavec[li].last
	if pd.on[layWave] {
		decodeWave(&pd.dec[layWave], &pd.wavec[cur].m, last)
	}
	if sel&WavePacket != 0 {
		last.put(rec)
	} else {
		clear(rec[:29])
	}
}

func (pd *p14Decoder) startBytes(ci uint32, from []byte) {
	bc := &pd.bytec[ci]
	g := pd.ctx[pd.cur&3].gen
	for i := range bc.m {
		if pd.bon[i] {
			bc.m[i].reset(256, g)
		}
	}
	copy(bc.last, from)
	bc.unused = false
}

func (pd *p14Decoder) readBytes(rec []byte, sel Fields) {
	cur := pd.cur & 3
	li := pd.byteCu
	if pd.byteCu != cur {
		pd.byteCu = cur
		if pd.bytec[cur].unused {
			pd.startBytes(cur, pd.bytec[li].last)
			li = cur
		} else if pd.lay.v4 {
			li = cur
		}
	}
	last := pd.bytec[li].last
	m := pd.bytec[cur].m
	for i := range last {
		if pd.bon[i] {
			last[i] += uint8(pd.bdec[i].decodeSymbol(&m[i]))
		}
	}
	if sel&ExtraBytes != 0 {
		copy(rec, last)
	} else {
		clear(rec[:len(last)])
	}
}
