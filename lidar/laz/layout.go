package laz

import (
	"errors"
	"fmt"
)

// layout is what a chunk decoder needs to know about the point record: which
// items there are, where each sits in the record, and which versions.
type layout struct {
	recLen  int
	layered bool     // compressor 3, point14 family
	order   []uint16 // item types after the first (POINT10 or POINT14), in record order
	gps     int      // offsets in the record, -1 when absent
	rgb     int
	nir     bool // RGBNIR14 rather than RGB14
	wave    int
	bytes   int
	nbytes  int
	v4      bool // point14 family items of version 4 (LASzip's fix of a context switch quirk)
}

var (
	errDst     = errors.New("destination buffer too small")
	errStopped = errors.New("decoding cancelled")
)

func newLayout(info *Info, recordLength int) (*layout, error) {
	lay := &layout{gps: -1, rgb: -1, wave: -1, bytes: -1}
	if len(info.Items) == 0 {
		return nil, errors.New("laszip vlr lists no items")
	}
	if info.Coder != 0 {
		return nil, fmt.Errorf("unsupported laszip coder %d (only 0, arithmetic)", info.Coder)
	}
	switch info.Compressor {
	case CompressorPointwise, CompressorPointwiseChunked:
	case CompressorLayeredChunked:
		lay.layered = true
	case CompressorNone:
		return nil, errors.New("laszip vlr says the points are not compressed")
	default:
		return nil, fmt.Errorf("unsupported laszip compressor %d", info.Compressor)
	}
	off := 0
	for i, it := range info.Items {
		bad := func(why string) error {
			return fmt.Errorf("unsupported laszip item %d (type %d, size %d, version %d): %s", i, it.Type, it.Size, it.Version, why)
		}
		want := -1
		if !lay.layered {
			switch it.Type {
			case ItemPoint10:
				want = 20
			case ItemGPSTime11:
				want = 8
			case ItemRGB12:
				want = 6
			case ItemWavePacket13:
				want = 29
			case ItemByte:
				want = int(it.Size)
			default:
				return nil, bad("not an item of compressors 1 and 2")
			}
			if it.Type == ItemWavePacket13 {
				if it.Version != 1 {
					return nil, bad("only version 1 is supported")
				}
			} else if it.Version != 2 {
				return nil, bad("only version 2 is supported (LASzip writes version 2; version 1 predates LASzip 2.0)")
			}
		} else {
			switch it.Type {
			case ItemPoint14:
				want = 30
			case ItemRGB14:
				want = 6
			case ItemRGBNIR14:
				want = 8
			case ItemWavePacket14:
				want = 29
			case ItemByte14:
				want = int(it.Size)
			default:
				return nil, bad("not an item of the layered compressor")
			}
			if it.Version != 3 && it.Version != 4 {
				return nil, bad("only versions 3 and 4 are supported")
			}
			if it.Version == 4 {
				lay.v4 = true
			}
		}
		if int(it.Size) != want || it.Size == 0 {
			return nil, bad(fmt.Sprintf("size should be %d", want))
		}
		if i == 0 {
			if it.Type != ItemPoint10 && it.Type != ItemPoint14 {
				return nil, bad("the first item must be POINT10 or POINT14")
			}
		} else {
			dup := false
			switch it.Type {
			case ItemPoint10, ItemPoint14:
				dup = true
			case ItemGPSTime11:
				dup, lay.gps = lay.gps >= 0, off
			case ItemRGB12, ItemRGB14:
				dup, lay.rgb = lay.rgb >= 0, off
			case ItemRGBNIR14:
				dup, lay.rgb, lay.nir = lay.rgb >= 0, off, true
			case ItemWavePacket13, ItemWavePacket14:
				dup, lay.wave = lay.wave >= 0, off
			case ItemByte, ItemByte14:
				dup, lay.bytes, lay.nbytes = lay.bytes >= 0, off, int(it.Size)
			}
			if dup {
				return nil, bad("item repeated")
			}
			lay.order = append(lay.order, it.Type)
		}
		off += int(it.Size)
	}
	lay.recLen = off
	if recordLength != off {
		return nil, fmt.Errorf("laszip items add up to %d bytes per point, the header says %d", off, recordLength)
	}
	return lay, nil
}
