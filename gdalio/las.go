package gdalio

// ASPRS LAS point clouds, read by a decoder of our own: Debian's GDAL 3.6 has no LAS driver.
// The points of a file are read in large chunks, decoded on every core straight into the
// samples; LAZ is decompressed by an external tool (laszip or pdal) streaming LAS into the same
// decoder.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/sample"
	"github.com/airbusgeo/godal"
)

// LASFilter selects the points of a LAS file that become samples, and the attribute that
// becomes their value. The zero value keeps every point and grids Z.
type LASFilter struct {
	// Classes keeps only points of these classification codes (ground is 2); empty keeps all.
	Classes []int
	// Returns is "", "all", "first" or "last". A point counts as first when its return number
	// is 1 (or 0, as files that never fill the field have it) and as last when its return
	// number is at least its number of returns, so a single return is both.
	Returns string
	// DropWithheld drops points flagged withheld; DropOverlap drops overlap points (the
	// overlap flag of formats 6-10, classification 12 in formats 0-5).
	DropWithheld, DropOverlap bool
	// ZRange, when set, keeps points with ZRange[0] <= Z <= ZRange[1] (Z, whatever Field is).
	ZRange *[2]float64
	// Field is the attribute gridded instead of Z: one of LASFields; "" means Z.
	Field string
}

// LASFields are the attributes LASFilter.Field can name. gps_time needs point format 1, 3-10;
// red, green and blue formats 2, 3, 5, 7, 8, 10; nir formats 8 and 10. scan_angle is in
// degrees in every format.
var LASFields = []string{"z", "intensity", "classification", "return_number",
	"number_of_returns", "scan_angle", "user_data", "point_source_id", "gps_time",
	"red", "green", "blue", "nir"}

// Validate checks the filter on its own, before any file is opened.
func (f LASFilter) Validate() error {
	for _, c := range f.Classes {
		if c < 0 || c > 255 {
			return fmt.Errorf("LAS classification %d: codes are 0 to 255", c)
		}
	}
	switch f.Returns {
	case "", "all", "first", "last":
	default:
		return fmt.Errorf("LAS returns %q: use first, last or all", f.Returns)
	}
	if r := f.ZRange; r != nil && !(r[0] <= r[1]) {
		return fmt.Errorf("LAS Z range %g %g: min must not exceed max", r[0], r[1])
	}
	if f.Field != "" && !slices.Contains(LASFields, strings.ToLower(f.Field)) {
		return fmt.Errorf("LAS attribute %q: use one of %s", f.Field, strings.Join(LASFields, ", "))
	}
	return nil
}

// LASHeader is what a LAS file's header and (extended) variable length records say.
type LASHeader struct {
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
	// Compressed is set when the point format carries the LAZ compression bit.
	Compressed bool
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
)

var le = binary.LittleEndian

// ReadLAS appends to dst the points of a LAS file (or, through laszip or pdal, a LAZ file)
// that pass the filter, relative to dst's origin, and returns the file's header. A file that
// is truncated or inconsistent is an error, and dst is then left as it was.
func ReadLAS(path string, f LASFilter, dst *sample.Samples) (LASHeader, error) {
	h, err := readLASPoints(path, f, dst)
	if err != nil {
		return h, fmt.Errorf("reading %s: %w", path, err)
	}
	return h, nil
}

// ReadLASHeader reads the header and CRS of a LAS file without its points. For a LAZ file it
// reads the header that LAZ keeps uncompressed, less the CRS of LAS 1.4 EVLRs.
func ReadLASHeader(path string) (LASHeader, error) {
	file, err := os.Open(path)
	if err != nil {
		return LASHeader{}, err
	}
	defer file.Close()
	h, err := readLASFileHeader(file)
	if err != nil {
		return h, fmt.Errorf("reading %s: %w", path, err)
	}
	return h, nil
}

func readLASPoints(path string, f LASFilter, dst *sample.Samples) (LASHeader, error) {
	if err := f.Validate(); err != nil {
		return LASHeader{}, err
	}
	if strings.EqualFold(filepath.Ext(path), ".laz") {
		return readLAZ(path, f, dst)
	}
	file, err := os.Open(path)
	if err != nil {
		return LASHeader{}, err
	}
	defer file.Close()
	h, err := readLASFileHeader(file)
	if err != nil {
		return h, err
	}
	if h.Compressed {
		return readLAZ(path, f, dst)
	}
	d, err := newPointDecoder(h, f, dst)
	if err != nil {
		return h, err
	}
	return h, readPointsAt(file, h, d, dst, lasChunkPoints(h.RecordLength))
}

// readLASFileHeader reads and checks the header, VLRs and EVLRs of a file whose size is known,
// so that every offset the header states is checked against it.
func readLASFileHeader(file *os.File) (LASHeader, error) {
	st, err := file.Stat()
	if err != nil {
		return LASHeader{}, err
	}
	size := st.Size()
	h, crs, err := readLASHeader(file, size, false)
	if err != nil {
		return h, err
	}
	// LAZ's EVLRs follow its compressed points, at offsets only the decompressor knows.
	if !h.Compressed {
		if err := crs.readEVLRs(file, h.pointsEnd(), size); err != nil {
			return h, err
		}
	}
	h.SRS, err = crs.resolve()
	return h, err
}

// pointsEnd is the offset just past the point records.
func (h LASHeader) pointsEnd() int64 {
	return h.PointOffset + int64(h.PointCount)*int64(h.RecordLength)
}

// lasCRS gathers the CRS records of the VLRs and EVLRs, and where the EVLRs are.
type lasCRS struct {
	wkt, geoKeys []byte
	evlrStart    int64
	evlrCount    int
}

// readLASHeader parses the header and VLRs from src. size is the file's size, or -1 for a
// stream whose length is unknown. With openCount, a header that declares no points gets
// PointCount -1: the count is the stream's (pdal writes LAS to a pipe before it knows it).
func readLASHeader(src io.ReaderAt, size int64, openCount bool) (LASHeader, *lasCRS, error) {
	var h LASHeader
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
	crs := &lasCRS{}
	count := uint64(le.Uint32(b[107:]))
	if h.VersionMinor >= 4 {
		crs.evlrStart = int64(le.Uint64(b[235:]))
		crs.evlrCount = int(le.Uint32(b[243:]))
		ext := le.Uint64(b[247:])
		switch {
		case count == 0:
			count = ext
		case ext != 0 && ext != count:
			return h, nil, fmt.Errorf("the legacy point count %d and the LAS 1.4 point count %d disagree", count, ext)
		}
	}
	if err := checkLASHeader(&h, count, size); err != nil {
		return h, nil, err
	}
	switch {
	case count > 0:
		h.PointCount = int(count)
	case openCount:
		h.PointCount = -1
	default:
		return h, nil, errors.New("the header declares no points")
	}
	err := crs.readVLRs(src, h, vlrs)
	return h, crs, err
}

// checkLASHeader rejects what would make the points unreadable or wrong: an unknown format,
// records too short for it, offsets outside the file, a file too short for its points.
func checkLASHeader(h *LASHeader, count uint64, size int64) error {
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
func (c *lasCRS) readVLRs(src io.ReaderAt, h LASHeader, count int) error {
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
			return fmt.Errorf("VLR %d of %d (%s %d, %d bytes) runs into the point data at byte %d", i+1, count, user, rec, n, h.PointOffset)
		}
		if err := c.collect(src, user, rec, pos, n); err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// readEVLRs walks the extended VLRs of LAS 1.4, which follow the points (end): size is the
// file's size, or -1 for a stream.
func (c *lasCRS) readEVLRs(src io.ReaderAt, end, size int64) error {
	if c.evlrCount == 0 {
		return nil
	}
	if c.evlrStart < end {
		return fmt.Errorf("the EVLRs start at byte %d, inside the point data that ends at byte %d", c.evlrStart, end)
	}
	pos := c.evlrStart
	rh := make([]byte, lasEVLRHeader)
	for i := range c.evlrCount {
		if size >= 0 && pos+lasEVLRHeader > size {
			return fmt.Errorf("EVLR %d of %d starts at byte %d, beyond the end of the file (%d bytes)", i+1, c.evlrCount, pos, size)
		}
		if err := readFull(src, rh, pos, "an EVLR header"); err != nil {
			return err
		}
		user, rec, n := cString(rh[2:18]), le.Uint16(rh[18:]), le.Uint64(rh[20:])
		pos += lasEVLRHeader
		if n > math.MaxInt64-uint64(pos) || size >= 0 && pos+int64(n) > size {
			return fmt.Errorf("EVLR %d of %d (%s %d, %d bytes) runs past the end of the file", i+1, c.evlrCount, user, rec, n)
		}
		if err := c.collect(src, user, rec, pos, int64(n)); err != nil {
			return err
		}
		pos += int64(n)
	}
	return nil
}

// collect reads the record's data when it is a CRS record.
func (c *lasCRS) collect(src io.ReaderAt, user string, rec uint16, pos, n int64) error {
	if user != lasUserProj || (rec != lasGeoKeysRec && rec != lasWKTRec) {
		return nil
	}
	if n > 1<<24 {
		return fmt.Errorf("CRS record %s %d has %d bytes, more than a CRS takes", user, rec, n)
	}
	data := make([]byte, n)
	if err := readFull(src, data, pos, "a CRS record"); err != nil {
		return err
	}
	if rec == lasWKTRec {
		c.wkt = data
	} else {
		c.geoKeys = data
	}
	return nil
}

// resolve names the CRS: the OGC WKT record when there is one (LAS 1.4 files must use it),
// else the EPSG codes of the GeoTIFF keys.
func (c *lasCRS) resolve() (string, error) {
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

// lasAttr says how to read the attribute gridded instead of Z from a record.
type lasAttr struct {
	kind  int // one of the attr* constants
	off   int
	shift uint8
	mask  uint8
	scale float64
}

const (
	attrZ = iota
	attrU8
	attrU16
	attrI8
	attrI16
	attrF64
)

// lasAttribute finds a field in a point format.
func lasAttribute(name string, format int) (lasAttr, error) {
	l := lasLayouts[format]
	optional := func(off, kind int, what string) (lasAttr, error) {
		if off < 0 {
			return lasAttr{}, fmt.Errorf("point format %d has no %s", format, what)
		}
		return lasAttr{kind: kind, off: off}, nil
	}
	u8 := func(off int, shift, mask uint8) lasAttr {
		return lasAttr{kind: attrU8, off: off, shift: shift, mask: mask}
	}
	switch name {
	case "", "z":
		return lasAttr{kind: attrZ}, nil
	case "intensity":
		return lasAttr{kind: attrU16, off: 12}, nil
	case "user_data":
		return u8(17, 0, 0xff), nil
	case "classification":
		if l.extended {
			return u8(16, 0, 0xff), nil
		}
		return u8(15, 0, 0x1f), nil
	case "return_number":
		if l.extended {
			return u8(14, 0, 0x0f), nil
		}
		return u8(14, 0, 0x07), nil
	case "number_of_returns":
		if l.extended {
			return u8(14, 4, 0x0f), nil
		}
		return u8(14, 3, 0x07), nil
	case "point_source_id":
		if l.extended {
			return lasAttr{kind: attrU16, off: 20}, nil
		}
		return lasAttr{kind: attrU16, off: 18}, nil
	case "scan_angle":
		// Formats 6-10 store it in steps of 0.006 degree, 0-5 in whole degrees.
		if l.extended {
			return lasAttr{kind: attrI16, off: 18, scale: 0.006}, nil
		}
		return lasAttr{kind: attrI8, off: 16}, nil
	case "gps_time":
		return optional(l.gps, attrF64, "GPS time")
	case "red", "green", "blue":
		a, err := optional(l.rgb, attrU16, "RGB colour")
		a.off += 2 * slices.Index([]string{"red", "green", "blue"}, name)
		return a, err
	case "nir":
		return optional(l.nir, attrU16, "NIR")
	}
	return lasAttr{}, fmt.Errorf("LAS attribute %q: use one of %s", name, strings.Join(LASFields, ", "))
}

// value reads the attribute from a record at least as long as its format's.
func (a *lasAttr) value(r []byte) float64 {
	switch a.kind {
	case attrU8:
		return float64(r[a.off] >> a.shift & a.mask)
	case attrU16:
		return float64(le.Uint16(r[a.off:]))
	case attrI8:
		return float64(int8(r[a.off]))
	case attrI16:
		return float64(int16(le.Uint16(r[a.off:]))) * a.scale
	}
	return math.Float64frombits(le.Uint64(r[a.off:]))
}

// pointDecoder turns point records into samples. It is read-only once built, so the workers
// share it. The class, return and flag tests are tables indexed by the bytes that hold them
// (14, 15 and 16 in every format), and a point is always written, the count advancing only
// when it passes: a point costs the same whatever the filter, with no branch to mispredict
// when classes come in random order.
type pointDecoder struct {
	recLen                 int
	scale, offset          [3]float64
	originX, originY       float64
	compact                bool
	shiftX, shiftY         int64      // compact: a point's quanta from the origin are its X + shiftX
	pass14, pass15, pass16 [256]uint8 // 1 where that byte's value passes the filter
	zRange                 bool
	zMin, zMax             float64
	attr                   lasAttr
}

func newPointDecoder(h LASHeader, f LASFilter, dst *sample.Samples) (*pointDecoder, error) {
	attr, err := lasAttribute(strings.ToLower(f.Field), h.PointFormat)
	if err != nil {
		return nil, err
	}
	d := &pointDecoder{recLen: h.RecordLength, scale: h.Scale, offset: h.Offset,
		originX: dst.OriginX, originY: dst.OriginY, attr: attr}
	if dst.IsCompact() {
		var okX, okY bool
		d.shiftX, okX = latticeShift(h.Scale[0], h.Offset[0], dst.QuantumX, dst.OriginX)
		d.shiftY, okY = latticeShift(h.Scale[1], h.Offset[1], dst.QuantumY, dst.OriginY)
		if !okX || !okY {
			return nil, errOffLattice
		}
		d.compact = true
	}
	classOK := func(c byte) bool { return len(f.Classes) == 0 || slices.Contains(f.Classes, int(c)) }
	extended := lasLayouts[h.PointFormat].extended
	for v := range 256 {
		b := byte(v)
		rn, nr := b&0x07, b>>3&0x07
		if extended {
			rn, nr = b&0x0f, b>>4
		}
		d.pass14[v] = b2u((f.Returns != "first" || rn <= 1) && (f.Returns != "last" || rn >= nr))
		if extended {
			// byte 15 holds the withheld (bit 2) and overlap (bit 3) flags, byte 16 the class
			d.pass15[v] = b2u(!(f.DropWithheld && b&0x04 != 0) && !(f.DropOverlap && b&0x08 != 0))
			d.pass16[v] = b2u(classOK(b))
			continue
		}
		// byte 15 holds the class (bits 0-4, overlap is class 12) and the withheld flag
		// (bit 7); byte 16 is the scan angle
		class := b & 0x1f
		d.pass15[v] = b2u(classOK(class) && !(f.DropWithheld && b&0x80 != 0) && !(f.DropOverlap && class == 12))
		d.pass16[v] = 1
	}
	if f.ZRange != nil {
		d.zRange, d.zMin, d.zMax = true, f.ZRange[0], f.ZRange[1]
	}
	return d, nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// errOffLattice says that a file's points do not fit the compact samples they are read into:
// another scale, an offset off the lattice, or points too far for int32 quanta. The reading
// starts again with plain samples.
var errOffLattice = errors.New("the points do not fit compact samples")

// latticeShift is how many quanta of the samples' lattice (quantum q, origin at a whole number
// of quanta) a file with this scale and offset adds to its stored integers: the offset must be
// a whole number of quanta (within a millionth of one), and the scale the quantum itself.
func latticeShift(scale, offset, q, origin float64) (int64, bool) {
	m := math.Round(offset / q)
	if scale != q || math.Abs(offset/q-m) > 1e-6 || math.Abs(m) > 1<<52 {
		return 0, false
	}
	k, _ := sample.LatticePoint(origin, q)
	return int64(m) - k, true
}

// decodeInto decodes whole records of buf into dst's samples from at on, in dst's form, and
// returns how many passed the filter; false when a point does not fit the compact form.
func (d *pointDecoder) decodeInto(buf []byte, dst *sample.Samples, at int) (int, bool) {
	if d.compact {
		return d.decodeCompact(buf, dst.QX[at:], dst.QY[at:], dst.Z[at:])
	}
	return d.decode(buf, dst.X[at:], dst.Y[at:], dst.Z[at:]), true
}

// decodeCompact is decode into compact samples: the stored integers shifted onto the samples'
// lattice, exactly. It returns false when a point's quanta do not fit in int32. It repeats
// decode's loop: a function for the shared part of a record is not inlined, and costs a fifth
// of the reading speed.
func (d *pointDecoder) decodeCompact(buf []byte, qx, qy []int32, z []float64) (int, bool) {
	rl := d.recLen
	n := len(buf) / rl
	sz, oz := d.scale[2], d.offset[2]
	qx, qy, z = qx[:n], qy[:n], z[:n]
	k := 0
	fits := true
	for p := range n {
		r := buf[p*rl : p*rl+rl]
		_ = r[19]
		keep := d.pass14[r[14]] & d.pass15[r[15]] & d.pass16[r[16]]
		xq := int64(int32(le.Uint32(r[0:]))) + d.shiftX
		yq := int64(int32(le.Uint32(r[4:]))) + d.shiftY
		zv := float64(int32(le.Uint32(r[8:])))*sz + oz
		if d.zRange {
			keep &= b2u(zv >= d.zMin) & b2u(zv <= d.zMax)
		}
		if d.attr.kind != attrZ {
			zv = d.attr.value(r)
		}
		fits = fits && xq == int64(int32(xq)) && yq == int64(int32(yq))
		qx[k], qy[k], z[k] = int32(xq), int32(yq), zv
		k += int(keep)
	}
	return k, fits
}

// decode turns whole records of buf into samples at x[0:], y[0:], z[0:] and returns how many
// passed the filter.
func (d *pointDecoder) decode(buf []byte, x, y, z []float64) int {
	rl := d.recLen
	n := len(buf) / rl
	sx, sy, sz := d.scale[0], d.scale[1], d.scale[2]
	ox, oy, oz := d.offset[0], d.offset[1], d.offset[2]
	x, y, z = x[:n], y[:n], z[:n]
	k := 0
	for p := range n {
		r := buf[p*rl : p*rl+rl]
		_ = r[19] // every format's record holds bytes 0-19: no bounds checks below
		keep := d.pass14[r[14]] & d.pass15[r[15]] & d.pass16[r[16]]
		xv := float64(int32(le.Uint32(r[0:])))*sx + ox
		yv := float64(int32(le.Uint32(r[4:])))*sy + oy
		zv := float64(int32(le.Uint32(r[8:])))*sz + oz
		if d.zRange {
			keep &= b2u(zv >= d.zMin) & b2u(zv <= d.zMax)
		}
		if d.attr.kind != attrZ {
			zv = d.attr.value(r)
		}
		// k <= p < n: the write is in bounds whether or not the point is kept
		x[k] = xv - d.originX
		y[k] = yv - d.originY
		z[k] = zv
		k += int(keep)
	}
	return k
}

// lasChunkPoints is how many points one read takes: about 1 MiB, large enough that a read costs
// little beside the decoding, small enough to stay in cache and balance the cores.
func lasChunkPoints(recLen int) int { return max(1, (1<<20)/recLen) }

// readPointsAt decodes the points of a file on every core, chunk by chunk, each chunk into its
// own span of dst; the spans are then closed up in file order, so the samples keep the
// file's order whatever the scheduling.
func readPointsAt(src io.ReaderAt, h LASHeader, d *pointDecoder, dst *sample.Samples, chunk int) error {
	base, total := dst.Len(), h.PointCount
	grow(dst, total)
	chunks := (total + chunk - 1) / chunk
	kept := make([]int, chunks)
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, chunks)
	)
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			buf := make([]byte, chunk*h.RecordLength)
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				first := c * chunk
				n := min(chunk, total-first)
				b := buf[:n*h.RecordLength]
				off := h.PointOffset + int64(first)*int64(h.RecordLength)
				if err := readFull(src, b, off, "the point records"); err != nil {
					errs[c] = err
					failed.Store(true)
					return
				}
				var fits bool
				if kept[c], fits = d.decodeInto(b, dst, base+first); !fits {
					errs[c] = errOffLattice
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		truncate(dst, base)
		return err
	}
	n := base
	for c, k := range kept {
		at := base + c*chunk
		if at != n {
			moveSamples(dst, n, at, k)
		}
		n += k
	}
	truncate(dst, n)
	return nil
}

// grow extends the samples by n slots.
func grow(s *sample.Samples, n int) {
	l := s.Len() + n
	if s.IsCompact() {
		s.QX, s.QY = growTo(s.QX, l), growTo(s.QY, l)
	} else {
		s.X, s.Y = growTo(s.X, l), growTo(s.Y, l)
	}
	s.Z = growTo(s.Z, l)
}

// moveSamples moves the k samples from at to n < at.
func moveSamples(s *sample.Samples, n, at, k int) {
	if s.IsCompact() {
		copy(s.QX[n:], s.QX[at:at+k])
		copy(s.QY[n:], s.QY[at:at+k])
	} else {
		copy(s.X[n:], s.X[at:at+k])
		copy(s.Y[n:], s.Y[at:at+k])
	}
	copy(s.Z[n:], s.Z[at:at+k])
}

// growTo extends v to length l, at least doubling its capacity when it must move. It uses
// make, not append: make skips clearing memory fresh from the OS, so the decoding workers
// are the first to touch those pages, in parallel, instead of one thread clearing them all.
func growTo[T int32 | float64](v []T, l int) []T {
	if l <= cap(v) {
		return v[:l]
	}
	w := make([]T, l, max(l, 2*cap(v)))
	copy(w, v)
	return w
}

func truncate(s *sample.Samples, n int) {
	if s.IsCompact() {
		s.QX, s.QY = s.QX[:n], s.QY[:n]
	} else {
		s.X, s.Y = s.X[:n], s.Y[:n]
	}
	s.Z = s.Z[:n]
}

// lazTool is an external LAZ decompressor that writes LAS to its standard output.
type lazTool struct {
	name string
	args func(path string) []string
	// openCount: the tool writes its LAS header before it knows the point count.
	openCount bool
}

func laszipArgs(path string) []string { return []string{"-i", path, "-olas", "-stdout"} }

// lazTools are tried in this order. pdal forwards the header (format, scale, offset, VLRs) so
// that the points arrive as stored; it cannot seek back on a pipe to write the count.
var lazTools = []lazTool{
	{"laszip", laszipArgs, false},
	{"laszip64", laszipArgs, false},
	{"pdal", func(path string) []string {
		return []string{"translate", "-i", path, "-o", "STDOUT", "-w", "writers.las", "--writers.las.forward=all"}
	}, true},
}

// errNoLAZTool says how to get LAZ support.
var errNoLAZTool = errors.New("the points are LAZ-compressed and neither laszip nor pdal is on PATH: " +
	"install LAStools' laszip or PDAL (Debian 12 packages neither; conda-forge has pdal), " +
	"or decompress the file to LAS first")

// readLAZ decompresses a LAZ file through the first tool on PATH, decoding its LAS output as
// it streams.
func readLAZ(path string, f LASFilter, dst *sample.Samples) (LASHeader, error) {
	if _, err := os.Stat(path); err != nil {
		return LASHeader{}, err
	}
	var tool lazTool
	var exe string
	for _, t := range lazTools {
		if p, err := exec.LookPath(t.name); err == nil {
			tool, exe = t, p
			break
		}
	}
	if exe == "" {
		return LASHeader{}, errNoLAZTool
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return LASHeader{}, err
	}
	cmd := exec.Command(exe, tool.args(abs)...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return LASHeader{}, err
	}
	if err := cmd.Start(); err != nil {
		return LASHeader{}, fmt.Errorf("starting %s: %w", tool.name, err)
	}
	base := dst.Len()
	h, err := readLASStream(out, f, dst, tool.openCount)
	if err == nil {
		// Let the tool write what follows the points; it would fail on a closed pipe.
		_, err = io.Copy(io.Discard, out)
	}
	// Closing our end stops a tool still writing after a decoding error.
	out.Close()
	werr := cmd.Wait()
	switch {
	case err != nil && werr != nil:
		err = fmt.Errorf("%s's output: %w (%s: %v%s)", tool.name, err, tool.name, werr, stderr.note())
	case err != nil:
		err = fmt.Errorf("%s's output: %w", tool.name, err)
	case werr != nil:
		err = fmt.Errorf("%s failed: %v%s", tool.name, werr, stderr.note())
	}
	if err != nil {
		truncate(dst, base)
	}
	return h, err
}

// tailBuffer keeps the last 4 KiB written to it: the end of a tool's messages.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	const keep = 4 << 10
	t.b = append(t.b, p...)
	if len(t.b) > keep {
		t.b = t.b[len(t.b)-keep:]
	}
	return len(p), nil
}

func (t *tailBuffer) note() string {
	if s := strings.TrimSpace(string(t.b)); s != "" {
		return ": " + s
	}
	return ""
}

// streamAt serves a stream as an io.ReaderAt whose offsets only move forward, so that files
// and pipes share the header code; the bytes it is asked to pass over are read and dropped.
type streamAt struct {
	r   io.Reader
	pos int64
}

func (s *streamAt) ReadAt(p []byte, off int64) (int, error) {
	if off < s.pos {
		return 0, fmt.Errorf("LAS stream: byte %d comes before byte %d already read: the header's offsets are out of order", off, s.pos)
	}
	if off > s.pos {
		n, err := io.CopyN(io.Discard, s.r, off-s.pos)
		s.pos += n
		if err != nil {
			return 0, err
		}
	}
	n, err := io.ReadFull(s.r, p)
	s.pos += int64(n)
	return n, err
}

// readLASStream decodes LAS arriving on a stream: header, VLRs, points, then EVLRs.
func readLASStream(r io.Reader, f LASFilter, dst *sample.Samples, openCount bool) (LASHeader, error) {
	src := &streamAt{r: r}
	h, crs, err := readLASHeader(src, -1, openCount)
	if err != nil {
		return h, err
	}
	if h.Compressed {
		return h, errors.New("the decompressed stream is still marked LAZ-compressed")
	}
	d, err := newPointDecoder(h, f, dst)
	if err != nil {
		return h, err
	}
	base := dst.Len()
	if err := readPointsStream(src, &h, d, dst); err != nil {
		return h, err
	}
	// A stream that did not know its count cannot know where its EVLRs are either.
	if h.PointCount >= 0 && crs.evlrStart > 0 {
		err = crs.readEVLRs(src, h.pointsEnd(), -1)
	}
	if err == nil {
		h.SRS, err = crs.resolve()
	}
	if err != nil {
		truncate(dst, base)
	}
	return h, err
}

// readPointsStream decodes the points chunk by chunk as they arrive. With PointCount -1 it
// reads to the end of the stream and sets PointCount.
func readPointsStream(src *streamAt, h *LASHeader, d *pointDecoder, dst *sample.Samples) error {
	rl, open := h.RecordLength, h.PointCount < 0
	chunk := lasChunkPoints(rl)
	buf := make([]byte, chunk*rl)
	base := dst.Len()
	if !open {
		grow(dst, h.PointCount) // reserve
		truncate(dst, base)
	}
	read := 0
	for open || read < h.PointCount {
		want := chunk
		if !open {
			want = min(chunk, h.PointCount-read)
		}
		n, err := src.ReadAt(buf[:want*rl], h.PointOffset+int64(read)*int64(rl))
		whole := n / rl
		at := dst.Len()
		grow(dst, whole)
		kept, fits := d.decodeInto(buf[:whole*rl], dst, at)
		truncate(dst, at+kept)
		if !fits {
			truncate(dst, base)
			return errOffLattice
		}
		read += whole
		if err == nil {
			continue
		}
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if open && eof && n%rl == 0 && read > 0 {
			h.PointCount = read
			return nil
		}
		truncate(dst, base)
		switch {
		case !eof:
			return err
		case !open:
			return fmt.Errorf("LAS stream truncated: it ends after %d of the %d points the header declares", read, h.PointCount)
		case n%rl != 0:
			return fmt.Errorf("LAS stream ends inside point record %d", read+1)
		}
		return errors.New("the LAS stream holds no points")
	}
	return nil
}

// readLAS reads a LAS or LAZ file for ReadSources: one source (band) named after the file,
// with -zfield naming a LAS attribute and -spat/-clipsrc applied to the filtered points.
func readLAS(path string, opt SourceOptions, reg *region) ([]Source, error) {
	switch {
	case opt.Where != "" || len(opt.SQL) > 0:
		return nil, fmt.Errorf("%s: -where and -sql apply to vector sources; select LAS points with -class, -returns, -drop_withheld, -drop_overlap and -zrange", path)
	case len(opt.Layers) > 0:
		return nil, fmt.Errorf("%s: a LAS file has no layers: -l does not apply", path)
	case len(opt.OpenOptions) > 0:
		return nil, fmt.Errorf("%s: -oo applies to vector sources, not LAS", path)
	}
	s, headers, err := readLASFiles([]string{path}, lasFilter(opt))
	if err != nil {
		return nil, err
	}
	h := headers[0]
	if s.Len() == 0 {
		return nil, fmt.Errorf("%s: none of its %d points passes the point filters", path, h.PointCount)
	}
	src := Source{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Samples: s}
	src.Skipped, src.SkipReason = adjustLASSamples(s, opt, reg)
	if h.SRS != "" {
		wkt, err := lasSRSWKT(h.SRS)
		if err != nil {
			warner(opt.Warn)(fmt.Sprintf("%s: its CRS %q is not understood (%v): the samples have no CRS", path, h.SRS, err))
		}
		src.SRS = wkt
	}
	if opt.LayerExtent && s.Len() > 0 {
		xmin, ymin, xmax, ymax := s.Bounds()
		src.Extent = &[4]float64{xmin, ymin, xmax, ymax}
	}
	return []Source{src}, nil
}

// lasFilter gathers the LAS point filters of the options: -zfield names the attribute.
func lasFilter(opt SourceOptions) LASFilter {
	f := opt.LAS
	f.Field = opt.ZField
	return f
}

// adjustLASSamples applies -spat/-clipsrc and -z_increase/-z_multiply in one pass, dropping
// the samples whose value is not finite (a GPS time may be NaN); it returns their count and why.
func adjustLASSamples(s *sample.Samples, opt SourceOptions, reg *region) (int, string) {
	zinc, zmul := opt.zTransform()
	if reg == nil && zinc == 0 && zmul == 1 && !strings.EqualFold(opt.ZField, "gps_time") {
		return 0, ""
	}
	n, bad := 0, 0
	for i := range s.Len() {
		x, y := s.XY(int32(i))
		z := (s.Z[i] + zinc) * zmul
		if reg != nil && !reg.within(x+s.OriginX, y+s.OriginY) {
			continue
		}
		if !finite(z) {
			bad++
			continue
		}
		// assigned, not moveSamples: a call per point costs a tenth of the read
		if s.IsCompact() {
			s.QX[n], s.QY[n] = s.QX[i], s.QY[i]
		} else {
			s.X[n], s.Y[n] = x, y
		}
		s.Z[n] = z
		n++
	}
	truncate(s, n)
	if bad > 0 {
		return bad, fmt.Sprintf("%d points with a NaN or infinite value", bad)
	}
	return 0, ""
}

// lasSRSWKT turns the CRS a LAS file names into WKT, as the other sources give theirs.
func lasSRSWKT(srs string) (string, error) {
	register()
	eh := godal.ErrLogger(godalErrors(func(string) {}))
	sr, err := godal.NewSpatialRef(srs, eh)
	if err != nil {
		return "", err
	}
	defer sr.Close()
	return sr.WKT(eh)
}
