package laz

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Compressors (the LASzip VLR's compressor field).
const (
	CompressorNone             = 0
	CompressorPointwise        = 1
	CompressorPointwiseChunked = 2
	CompressorLayeredChunked   = 3
)

// Item types (the LASzip VLR's item list).
const (
	ItemByte         = 0
	ItemPoint10      = 6
	ItemGPSTime11    = 7
	ItemRGB12        = 8
	ItemWavePacket13 = 9
	ItemPoint14      = 10
	ItemRGB14        = 11
	ItemRGBNIR14     = 12
	ItemWavePacket14 = 13
	ItemByte14       = 14
)

// VariableChunkSize is Info.ChunkSize for files whose chunk table holds each chunk's point count.
const VariableChunkSize = 0xFFFFFFFF

// Item is one entry of the LASzip VLR's item list: a part of the point record.
type Item struct {
	Type    uint16
	Size    uint16
	Version uint16
}

// Info is the parsed LASzip VLR (user "laszip encoded", record 22204).
type Info struct {
	Compressor   uint16
	Coder        uint16
	VersionMajor uint8
	VersionMinor uint8
	Revision     uint16
	Options      uint32
	ChunkSize    uint32
	// NumberOfSpecialEVLRs and OffsetToSpecialEVLRs are unused by LASzip (-1).
	NumberOfSpecialEVLRs int64
	OffsetToSpecialEVLRs int64
	Items                []Item
}

// RecordLength is the sum of the item sizes: the LAS point record length.
func (in *Info) RecordLength() int {
	n := 0
	for _, it := range in.Items {
		n += int(it.Size)
	}
	return n
}

// ParseVLR parses the payload of the LASzip VLR.
func ParseVLR(payload []byte) (*Info, error) {
	if len(payload) < 34 {
		return nil, fmt.Errorf("laszip vlr: %d bytes, want at least 34", len(payload))
	}
	le := binary.LittleEndian
	in := &Info{
		Compressor:           le.Uint16(payload[0:]),
		Coder:                le.Uint16(payload[2:]),
		VersionMajor:         payload[4],
		VersionMinor:         payload[5],
		Revision:             le.Uint16(payload[6:]),
		Options:              le.Uint32(payload[8:]),
		ChunkSize:            le.Uint32(payload[12:]),
		NumberOfSpecialEVLRs: int64(le.Uint64(payload[16:])),
		OffsetToSpecialEVLRs: int64(le.Uint64(payload[24:])),
	}
	n := int(le.Uint16(payload[32:]))
	if len(payload) < 34+6*n {
		return nil, fmt.Errorf("laszip vlr: %d items need %d bytes, have %d", n, 34+6*n, len(payload))
	}
	for i := 0; i < n; i++ {
		p := payload[34+6*i:]
		in.Items = append(in.Items, Item{Type: le.Uint16(p), Size: le.Uint16(p[2:]), Version: le.Uint16(p[4:])})
	}
	return in, nil
}

// Fields selects what a decode must produce. X, Y, Z and the return number
// and number of returns (with the scanner channel for point formats 6-10)
// are always decoded; unselected fields of point formats 6-10 read as zero.
// Point formats 0-5 are not layered: every field is decoded whatever the
// selection.
type Fields uint32

const (
	// Classification, with the classification flags (synthetic, key-point,
	// withheld, overlap), the scan direction flag and the edge of flight line.
	Classification Fields = 1 << iota
	Intensity
	ScanAngle
	UserData
	PointSource
	GPSTime
	RGB
	NIR
	WavePacket
	ExtraBytes

	// XYZ is the empty selection: coordinates and returns only.
	XYZ       Fields = 0
	AllFields Fields = ExtraBytes<<1 - 1
)

var (
	errOverrun = errors.New("compressed stream ends early (read past the chunk's bytes)")
	errCorrupt = errors.New("compressed stream is corrupt")
	errShort   = errors.New("compressed stream has bytes left over after the last point (corrupt data or wrong chunk size)")
)
