package cog

// lzwCompressor encodes TIFF's LZW (compression 5) exactly as libtiff 4.5 does (tif_lzw.c,
// LZWPreEncode, LZWEncode and LZWPostEncode over a whole tile): codes of 9 to 12 bits, MSB
// first, a Clear code first, the table cleared when it fills or when the compression ratio stops
// improving at a checkpoint every 10000 bytes, then the last string and End Of Information.
// libtiff's open-addressing table is ported as it is: any table that finds the same strings
// gives the same codes, this one is small and fast.
type lzwCompressor struct {
	hash [lzwHashSize]int32
	code [lzwHashSize]uint16
}

const (
	lzwBitsMin   = 9
	lzwBitsMax   = 12
	lzwClear     = 256
	lzwEOI       = 257
	lzwFirst     = 258
	lzwCodeMax   = 1<<lzwBitsMax - 1
	lzwHashSize  = 9001 // 91% occupancy
	lzwHashShift = 13 - 8
	lzwCheckGap  = 10000
)

// lzwBound is the most bytes LZW makes of n: 12 bits a byte, and a few codes more.
func lzwBound(n int) int { return n*3/2 + 16 }

func (z *lzwCompressor) clearTable() {
	for i := range z.hash {
		z.hash[i] = -1
	}
}

// compress writes the LZW codes of in into out (at least lzwBound(len(in)) bytes) and returns
// their length.
func (z *lzwCompressor) compress(out, in []byte) int {
	var nextdata uint64
	var nextbits, incount, outcount int
	nbits, maxcode, free := lzwBitsMin, 1<<lzwBitsMin-1, lzwFirst
	checkpoint, ratio := lzwCheckGap, 0
	op := 0
	put := func(c int) {
		nextdata = nextdata<<nbits | uint64(c)
		nextbits += nbits
		out[op] = byte(nextdata >> (nextbits - 8))
		op++
		nextbits -= 8
		if nextbits >= 8 {
			out[op] = byte(nextdata >> (nextbits - 8))
			op++
			nextbits -= 8
		}
		outcount += nbits
	}
	reset := func() {
		z.clearTable()
		ratio, incount, outcount, free = 0, 0, 0, lzwFirst
		put(lzwClear)
		nbits, maxcode = lzwBitsMin, 1<<lzwBitsMin-1
	}
	z.clearTable()
	if len(in) == 0 {
		put(lzwEOI)
		if nextbits > 0 {
			out[op] = byte(nextdata << (8 - nextbits))
			op++
		}
		return op
	}
	put(lzwClear)
	ent := int(in[0])
	incount++
	for _, b := range in[1:] {
		c := int(b)
		incount++
		fcode := int32(c<<lzwBitsMax + ent)
		h := c<<lzwHashShift ^ ent
		if z.hash[h] == fcode {
			ent = int(z.code[h])
			continue
		}
		if z.hash[h] >= 0 {
			disp := lzwHashSize - h
			if h == 0 {
				disp = 1
			}
			found := false
			for {
				if h -= disp; h < 0 {
					h += lzwHashSize
				}
				if z.hash[h] == fcode {
					ent, found = int(z.code[h]), true
					break
				}
				if z.hash[h] < 0 {
					break
				}
			}
			if found {
				continue
			}
		}
		put(ent)
		ent = c
		z.code[h], z.hash[h] = uint16(free), fcode
		free++
		switch {
		case free == lzwCodeMax-1:
			reset()
		case free > maxcode:
			nbits++
			maxcode = 1<<nbits - 1
		case incount >= checkpoint:
			checkpoint = incount + lzwCheckGap
			var rat int
			if incount > 0x007fffff {
				if rat = outcount >> 8; rat == 0 {
					rat = 0x7fffffff
				} else {
					rat = incount / rat
				}
			} else {
				rat = (incount << 8) / outcount
			}
			if rat <= ratio {
				reset()
			} else {
				ratio = rat
			}
		}
	}
	put(ent)
	free++
	if free == lzwCodeMax-1 {
		put(lzwClear)
		nbits = lzwBitsMin
	} else if free > maxcode {
		nbits++
	}
	put(lzwEOI)
	if nextbits > 0 {
		out[op] = byte(nextdata << (8 - nextbits))
		op++
	}
	return op
}

func (z *lzwCompressor) close() {}
