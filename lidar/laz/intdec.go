package laz

// intDec decodes integers as a prediction plus a corrector: first the number
// k of significant bits of the corrector (one adaptive model per context),
// then the corrector itself (an adaptive model per k for the high bits, raw
// bits below). This is LASzip's IntegerCompressor, decompression side.
type intDec struct {
	k        uint32
	bitsHigh uint32
	corrBits uint32
	corrRng  uint32
	corrMin  int32
	gen      uint32
	mBits    []symModel
	corr0    bitModel
	corr     []symModel
}

func newIntDec(bits, contexts uint32) *intDec {
	ic := &intDec{bitsHigh: 8}
	ic.setup(bits, contexts)
	return ic
}

func (ic *intDec) setup(bits, contexts uint32) {
	ic.bitsHigh = 8
	if bits != 0 && bits < 32 {
		ic.corrBits = bits
		ic.corrRng = 1 << bits
		ic.corrMin = -int32(ic.corrRng / 2)
	} else {
		ic.corrBits = 32
		ic.corrRng = 0
		ic.corrMin = -1 << 31
	}
	ic.mBits = make([]symModel, contexts)
	ic.corr = make([]symModel, ic.corrBits)
}

// reset starts a new chunk: models are re-initialised lazily on first use.
func (ic *intDec) reset() {
	ic.gen++
	ic.corr0.reset()
}

func (ic *intDec) decompress(d *decoder, pred int32, ctx uint32) int32 {
	v, value, length := ic.dec(d, pred, ctx, d.value, d.length)
	d.value, d.length = value, length
	return v
}

// dec is decompress with the coder state in registers (see decoder.sym).
func (ic *intDec) dec(d *decoder, pred int32, ctx, value, length uint32) (int32, uint32, uint32) {
	mb := &ic.mBits[ctx]
	if mb.gen != ic.gen {
		mb.reset(ic.corrBits+1, ic.gen)
	}
	k, value, length := d.sym(mb, value, length)
	ic.k = k
	var c int32
	if k != 0 {
		if k < 32 {
			m := &ic.corr[k-1]
			if m.gen != ic.gen {
				n := uint32(1) << ic.bitsHigh
				if k <= ic.bitsHigh {
					n = 1 << k
				}
				m.reset(n, ic.gen)
			}
			var s uint32
			s, value, length = d.sym(m, value, length)
			c = int32(s)
			if k > ic.bitsHigh {
				k1 := k - ic.bitsHigh
				var c1 uint32
				c1, value, length = d.raw(k1, value, length)
				c = c<<k1 | int32(c1)
			}
			// c >= 2^(k-1): c+1; otherwise c-(2^k-1). Without a branch:
			// the sign of a corrector is a coin toss for the predictor.
			c = c + 1 - int32(b2u(c < int32(1)<<(k-1))<<k)
		} else {
			c = ic.corrMin
		}
	} else {
		var b uint32
		b, value, length = d.bit(&ic.corr0, value, length)
		c = int32(b)
	}
	real := pred + c
	if ic.corrRng == 0 {
		return real, value, length // 32 bits: wraps by itself
	}
	if real < 0 {
		real += int32(ic.corrRng)
	} else if uint32(real) >= ic.corrRng {
		real -= int32(ic.corrRng)
	}
	return real, value, length
}
