package lidar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Header is what a LAS file's header and (extended) variable length records say.
type Header struct {
	VersionMajor, VersionMinor int
	PointFormat                int // point data record format, 0-10
	RecordLength               int // bytes per point record, extra bytes included
	PointCount                 int // the 1.4 extended count where the legacy one is 0
	HeaderSize                 int
	PointOffset                int64 // where the point records start
	SystemID, Software         string
	Scale, Offset              [3]float64
	Min, Max                   [3]float64 // the bounding box the header states
	// SRS is "EPSG:n", "EPSG:n+m" (with a vertical CRS) or WKT: what godal's SRS parsers take.
	// It is "" when the file names no CRS, or only a user-defined GeoTIFF one.
	SRS string
	// Compressed is set when the point format carries the LAZ compression bit; LAZ is then
	// LASzip's VLR, which says how the points are compressed.
	Compressed bool
	LAZ        []byte
	// COPC is the COPC info VLR of a cloud-optimised LAZ file, nil for others.
	COPC []byte
}

// lasLayout is where a point format keeps its fields.
type lasLayout struct {
	size     int  // bytes the format defines; records may carry extra bytes after them
	extended bool // formats 6-10: 4-bit return numbers, 8-bit classes, a flag byte
	gps      int  // byte offsets of GPS time, red and NIR; -1 where the format has none
	rgb      int
	nir      int
}

var lasLayouts = [...]lasLayout{
	{20, false, -1, -1, -1},
	{28, false, 20, -1, -1},
	{26, false, -1, 20, -1},
	{34, false, 20, 28, -1},
	{57, false, 20, -1, -1},
	{63, false, 20, 28, -1},
	{30, true, 22, -1, -1},
	{36, true, 22, 30, -1},
	{38, true, 22, 30, 36},
	{59, true, 22, -1, -1},
	{67, true, 22, 30, 36},
}

// The least header size of each minor version: 1.3 adds the waveform offset, 1.4 the EVLRs
// and 64-bit counts.
func lasMinHeaderSize(minor int) int {
	switch minor {
	case 3:
		return 235
	case 4:
		return 375
	}
	return 227
}

const (
	lasVLRHeader  = 54
	lasEVLRHeader = 60
	lasUserProj   = "LASF_Projection"
	lasGeoKeysRec = 34735
	lasWKTRec     = 2112
	lazUser       = "laszip encoded"
	lazRec        = 22204
	copcUser      = "copc"
	copcInfoRec   = 1
)

var le = binary.LittleEndian

// pointsEnd is the offset just past the point records.
func (h Header) pointsEnd() int64 {
	return h.PointOffset + int64(h.PointCount)*int64(h.RecordLength)
}

// records gathers what aidw reads of the VLRs and EVLRs (the CRS; LAZ's and COPC's own
// records, into the header), and where the EVLRs are.
type records struct {
	h            *Header
	wkt, geoKeys []byte
	evlrStart    int64
	evlrCount    int
}

// readHeader parses the header and VLRs from src, whose size is size.
func readHeader(src io.ReaderAt, size int64) (Header, *records, error) {
	var h Header
	b := make([]byte, lasMinHeaderSize(4))
	if err := readFull(src, b[:227], 0, "the LAS header"); err != nil {
		return h, nil, err
	}
	if string(b[:4]) != "LASF" {
		return h, nil, errors.New("not a LAS file: no LASF signature")
	}
	h.VersionMajor, h.VersionMinor = int(b[24]), int(b[25])
	if h.VersionMajor != 1 || h.VersionMinor > 4 {
		return h, nil, fmt.Errorf("LAS version %d.%d is not supported (1.0 to 1.4 are)",
			h.VersionMajor, h.VersionMinor)
	}
	h.HeaderSize = int(le.Uint16(b[94:]))
	minSize := lasMinHeaderSize(h.VersionMinor)
	if h.HeaderSize < minSize {
		return h, nil, fmt.Errorf("header size %d is less than the %d bytes of a LAS 1.%d header",
			h.HeaderSize, minSize, h.VersionMinor)
	}
	if minSize > 227 {
		if err := readFull(src, b[227:minSize], 227, "the LAS header"); err != nil {
			return h, nil, err
		}
	}
	h.SystemID = cString(b[26:58])
	h.Software = cString(b[58:90])
	h.PointOffset = int64(le.Uint32(b[96:]))
	vlrs := int(le.Uint32(b[100:]))
	h.Compressed = b[104]&0x80 != 0
	h.PointFormat = int(b[104] & 0x3f)
	h.RecordLength = int(le.Uint16(b[105:]))
	for i := range 3 {
		h.Scale[i] = math.Float64frombits(le.Uint64(b[131+8*i:]))
		h.Offset[i] = math.Float64frombits(le.Uint64(b[155+8*i:]))
		h.Max[i] = math.Float64frombits(le.Uint64(b[179+16*i:]))
		h.Min[i] = math.Float64frombits(le.Uint64(b[187+16*i:]))
	}
	rec := &records{h: &h}
	count := uint64(le.Uint32(b[107:]))
	if h.VersionMinor >= 4 {
		rec.evlrStart = int64(le.Uint64(b[235:]))
		rec.evlrCount = int(le.Uint32(b[243:]))
		ext := le.Uint64(b[247:])
		switch {
		case count == 0:
			count = ext
		case ext != 0 && ext != count:
			return h, nil, fmt.Errorf("the legacy point count %d and the LAS 1.4 point count %d disagree", count, ext)
		}
	}
	if err := checkHeader(&h, count, size); err != nil {
		return h, nil, err
	}
	if count == 0 {
		return h, nil, errors.New("the header declares no points")
	}
	h.PointCount = int(count)
	err := rec.readVLRs(src, h, vlrs)
	return h, rec, err
}

// checkHeader rejects what would make the points unreadable or wrong: an unknown format,
// records too short for it, offsets outside the file, a file too short for its points.
func checkHeader(h *Header, count uint64, size int64) error {
	if h.PointFormat >= len(lasLayouts) {
		return fmt.Errorf("point data record format %d is not supported (0 to 10 are)", h.PointFormat)
	}
	if need := lasLayouts[h.PointFormat].size; h.RecordLength < need {
		return fmt.Errorf("point record length %d is less than the %d bytes of point format %d",
			h.RecordLength, need, h.PointFormat)
	}
	for i, axis := range "XYZ" {
		s, o := h.Scale[i], h.Offset[i]
		if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) || math.IsNaN(o) || math.IsInf(o, 0) {
			return fmt.Errorf("%c scale %g and offset %g: the scale must be non-zero and both finite", axis, s, o)
		}
		if math.IsInf(math.Abs(s)*math.MaxInt32+math.Abs(o), 0) {
			return fmt.Errorf("%c scale %g and offset %g: the coordinates they give overflow", axis, s, o)
		}
	}
	if h.PointOffset < int64(h.HeaderSize) {
		return fmt.Errorf("offset to point data %d is inside the %d-byte header", h.PointOffset, h.HeaderSize)
	}
	if count > math.MaxInt64/uint64(h.RecordLength) {
		return fmt.Errorf("the header declares %d points, more than any file can hold", count)
	}
	if size < 0 || h.Compressed {
		return nil
	}
	if h.PointOffset > size {
		return fmt.Errorf("offset to point data %d is beyond the end of the file (%d bytes)", h.PointOffset, size)
	}
	if have := uint64(size-h.PointOffset) / uint64(h.RecordLength); count > have {
		return fmt.Errorf("file truncated: the header declares %d points of %d bytes from byte %d, the file (%d bytes) holds %d",
			count, h.RecordLength, h.PointOffset, size, have)
	}
	return nil
}

// readVLRs walks the VLRs between the header and the points, keeping the CRS records.
func (c *records) readVLRs(src io.ReaderAt, h Header, count int) error {
	pos := int64(h.HeaderSize)
	rh := make([]byte, lasVLRHeader)
	for i := range count {
		if pos+lasVLRHeader > h.PointOffset {
			return fmt.Errorf("VLR %d of %d starts at byte %d, too close to the point data at byte %d", i+1, count, pos, h.PointOffset)
		}
		if err := readFull(src, rh, pos, "a VLR header"); err != nil {
			return err
		}
		user, rec, n := cString(rh[2:18]), le.Uint16(rh[18:]), int64(le.Uint16(rh[20:]))
		pos += lasVLRHeader
		if pos+n > h.PointOffset {
			return fmt.Errorf("VLR %d of %d (%q %d, %d bytes) runs into the point data at byte %d", i+1, count, user, rec, n, h.PointOffset)
		}
		if err := c.collect(src, user, rec, pos, n); err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// readEVLRs walks the extended VLRs of LAS 1.4, which follow the points (end).
func (c *records) readEVLRs(src io.ReaderAt, end, size int64) error {
	if c.evlrCount == 0 {
		return nil
	}
	if c.evlrStart < end {
		return fmt.Errorf("the EVLRs start at byte %d, inside the point data that ends at byte %d", c.evlrStart, end)
	}
	pos := c.evlrStart
	rh := make([]byte, lasEVLRHeader)
	for i := range c.evlrCount {
		if size >= 0 && pos >= size {
			return fmt.Errorf("EVLR %d of %d starts at byte %d, beyond the end of the file (%d bytes)", i+1, c.evlrCount, pos, size)
		}
		if size >= 0 && pos+lasEVLRHeader > size {
			return fmt.Errorf("EVLR %d of %d starts at byte %d, but its %d-byte header runs past the end of the file (%d bytes)",
				i+1, c.evlrCount, pos, lasEVLRHeader, size)
		}
		if err := readFull(src, rh, pos, "an EVLR header"); err != nil {
			return err
		}
		user, rec, n := cString(rh[2:18]), le.Uint16(rh[18:]), le.Uint64(rh[20:])
		pos += lasEVLRHeader
		if n > math.MaxInt64-uint64(pos) || size >= 0 && pos+int64(n) > size {
			return fmt.Errorf("EVLR %d of %d (%q %d, %d bytes) runs past the end of the file", i+1, c.evlrCount, user, rec, n)
		}
		if err := c.collect(src, user, rec, pos, int64(n)); err != nil {
			return err
		}
		pos += int64(n)
	}
	return nil
}

// collect reads the record's data when aidw uses it: a CRS record, LASzip's record or COPC's
// info. COPC's hierarchy pages stay where they are: only the nodes a run needs are read.
func (c *records) collect(src io.ReaderAt, user string, rec uint16, pos, n int64) error {
	var dst *[]byte
	switch {
	case user == lasUserProj && rec == lasWKTRec:
		dst = &c.wkt
	case user == lasUserProj && rec == lasGeoKeysRec:
		dst = &c.geoKeys
	case user == lazUser && rec == lazRec:
		dst = &c.h.LAZ
	case user == copcUser && rec == copcInfoRec:
		dst = &c.h.COPC
	default:
		return nil
	}
	if n > 1<<24 {
		return fmt.Errorf("record %q %d has %d bytes, more than it takes", user, rec, n)
	}
	data := make([]byte, n)
	if err := readFull(src, data, pos, fmt.Sprintf("record %q %d", user, rec)); err != nil {
		return err
	}
	*dst = data
	return nil
}

// resolve names the CRS: the OGC WKT record when there is one (LAS 1.4 files must use it),
// else the EPSG codes of the GeoTIFF keys.
func (c *records) resolve() (string, error) {
	if wkt := strings.TrimSpace(cString(c.wkt)); wkt != "" {
		return wkt, nil
	}
	if c.geoKeys == nil {
		return "", nil
	}
	return geoKeysSRS(c.geoKeys)
}

// GeoTIFF keys naming the model type (1 projected, 2 geographic) and EPSG codes; 32767 marks
// a user-defined CRS and 0 an undefined one.
const (
	geoKeyModelType   = 1024
	geoKeyGeographic  = 2048
	geoKeyProjected   = 3072
	geoKeyVertical    = 4096
	geoKeyUserDefined = 32767
)

// geoKeysSRS reads a GeoKeyDirectoryTag record: a version header of four shorts (the last
// the key count) then four shorts per key (id, location, count, value). Values stored in
// other records (location != 0) are never EPSG codes, so they are not read.
func geoKeysSRS(b []byte) (string, error) {
	if len(b) < 8 {
		return "", fmt.Errorf("GeoTIFF keys record of %d bytes has no key directory", len(b))
	}
	keys := int(le.Uint16(b[6:]))
	if len(b) < 8+8*keys {
		return "", fmt.Errorf("GeoTIFF keys record of %d bytes is too short for its %d keys", len(b), keys)
	}
	codes := map[uint16]int{}
	for i := range keys {
		k := b[8+8*i:]
		if id, loc := le.Uint16(k), le.Uint16(k[2:]); loc == 0 {
			codes[id] = int(le.Uint16(k[6:]))
		}
	}
	epsg := func(id uint16) int {
		if c := codes[id]; c > 0 && c < geoKeyUserDefined {
			return c
		}
		return 0
	}
	// A projected CRS that is not an EPSG one still has projected coordinates: its geographic
	// base would misname them.
	h := epsg(geoKeyProjected)
	if codes[geoKeyProjected] == 0 && codes[geoKeyModelType] != 1 {
		h = epsg(geoKeyGeographic)
	}
	switch v := epsg(geoKeyVertical); {
	case h == 0:
		return "", nil
	case v != 0:
		return fmt.Sprintf("EPSG:%d+%d", h, v), nil
	default:
		return fmt.Sprintf("EPSG:%d", h), nil
	}
}

// readFull reads len(b) bytes at off, naming what it reads when the file ends first.
func readFull(src io.ReaderAt, b []byte, off int64, what string) error {
	n, err := src.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("file truncated: it ends inside %s (byte %d, %d of %d bytes read)", what, off, n, len(b))
	}
	return err
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
