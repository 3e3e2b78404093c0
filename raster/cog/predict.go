package cog

import "encoding/binary"

// predict applies TIFF's predictor to each row (rowBytes long) of a tile's pixels of
// sampleBytes each, as libtiff 4.5 does before it compresses (tif_predict.c): 2, the difference
// with the sample to the left, in the sample's unsigned word; 3, each row's bytes regrouped by
// significance (the most significant byte of every sample first), then the difference with the
// byte to the left.
func predict(pix []byte, rowBytes, sampleBytes int, predictor uint16) {
	transform(pix, rowBytes, sampleBytes, predictor, false)
}

// unpredict undoes predict.
func unpredict(pix []byte, rowBytes, sampleBytes int, predictor uint16) {
	transform(pix, rowBytes, sampleBytes, predictor, true)
}

func transform(pix []byte, rowBytes, sampleBytes int, predictor uint16, undo bool) {
	if predictor < 2 {
		return
	}
	var tmp []byte
	if predictor == 3 {
		tmp = make([]byte, rowBytes)
	}
	for row := 0; row < len(pix); row += rowBytes {
		p := pix[row : row+rowBytes]
		switch {
		case predictor == 2:
			delta(p, sampleBytes, undo)
		case undo:
			delta(p, 1, true)
			regroup(p, tmp, sampleBytes, true)
		default:
			regroup(p, tmp, sampleBytes, false)
			delta(p, 1, false)
		}
	}
}

// delta replaces each word of size bytes but the first by its difference with the one before
// (wrapping), or, to undo, by the sum.
func delta(p []byte, size int, undo bool) {
	n := len(p) / size
	get := func(i int) uint64 {
		switch size {
		case 1:
			return uint64(p[i])
		case 2:
			return uint64(binary.LittleEndian.Uint16(p[2*i:]))
		case 4:
			return uint64(binary.LittleEndian.Uint32(p[4*i:]))
		}
		return binary.LittleEndian.Uint64(p[8*i:])
	}
	put := func(i int, v uint64) {
		switch size {
		case 1:
			p[i] = byte(v)
		case 2:
			binary.LittleEndian.PutUint16(p[2*i:], uint16(v))
		case 4:
			binary.LittleEndian.PutUint32(p[4*i:], uint32(v))
		default:
			binary.LittleEndian.PutUint64(p[8*i:], v)
		}
	}
	if undo {
		for i := 1; i < n; i++ {
			put(i, get(i)+get(i-1))
		}
		return
	}
	for i := n - 1; i > 0; i-- {
		put(i, get(i)-get(i-1))
	}
}

// regroup puts byte b (from the most significant) of sample i at b*n+i, n samples of size bytes
// (little-endian) in p, tmp as scratch; or, to undo, back.
func regroup(p, tmp []byte, size int, undo bool) {
	n := len(p) / size
	copy(tmp, p)
	for i := range n {
		for b := range size {
			if undo {
				p[i*size+size-1-b] = tmp[b*n+i]
			} else {
				p[b*n+i] = tmp[i*size+size-1-b]
			}
		}
	}
}
