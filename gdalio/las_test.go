package gdalio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/sample"
)

// The test side writes LAS files from the ASPRS specification on its own, field by field, so
// that the reader is checked against an independent encoder.

// tPoint is one point with every attribute a point format may hold.
type tPoint struct {
	X, Y, Z         int32
	Intensity       uint16
	Return, Returns uint8
	Class           uint8
	Withheld        bool
	Overlap         bool  // formats 6-10 only: formats 0-5 say overlap with class 12
	ScanAngle       int16 // whole degrees in formats 0-5, 0.006 degree steps in 6-10
	UserData        uint8
	SourceID        uint16
	GPS             float64
	RGB             [3]uint16
	NIR             uint16
}

type tRecord struct {
	user string
	id   uint16
	data []byte
}

// tFile describes a LAS file to encode.
type tFile struct {
	minor, format int
	extra         int // bytes after each record's format fields
	headerPad     int // bytes after the header the version defines (header size grows)
	gap           int // bytes between the VLRs and the points
	scale, offset [3]float64
	points        []tPoint
	vlrs, evlrs   []tRecord
	legacyZero    bool // LAS 1.4, formats 0-5: leave the legacy count 0, as writers may
}

// Record sizes of point formats 0-10 (LAS 1.4 R15, tables 7-17).
var tRecordSize = []int{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67}

func tHeaderSize(minor int) int {
	return map[int]int{0: 227, 1: 227, 2: 227, 3: 235, 4: 375}[minor]
}

func (f *tFile) extended() bool { return f.format >= 6 }

func (f *tFile) encode() []byte {
	hs := tHeaderSize(f.minor) + f.headerPad
	vlrBytes := 0
	for _, v := range f.vlrs {
		vlrBytes += 54 + len(v.data)
	}
	off := hs + vlrBytes + f.gap
	if f.minor == 0 {
		off += 2 // LAS 1.0's point data start signature
	}
	rl := tRecordSize[f.format] + f.extra
	n := len(f.points)
	b := make([]byte, off+n*rl)
	w := binary.LittleEndian
	copy(b, "LASF")
	b[24], b[25] = 1, byte(f.minor)
	copy(b[26:], "aidw test")
	copy(b[58:], "las_test.go")
	w.PutUint16(b[90:], 100)
	w.PutUint16(b[92:], 2026)
	w.PutUint16(b[94:], uint16(hs))
	w.PutUint32(b[96:], uint32(off))
	w.PutUint32(b[100:], uint32(len(f.vlrs)))
	b[104] = byte(f.format)
	w.PutUint16(b[105:], uint16(rl))
	if f.minor < 4 || (f.format < 6 && !f.legacyZero) {
		w.PutUint32(b[107:], uint32(n))
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range f.points {
		for i, v := range [3]int32{p.X, p.Y, p.Z} {
			c := float64(v)*f.scale[i] + f.offset[i]
			lo[i], hi[i] = math.Min(lo[i], c), math.Max(hi[i], c)
		}
	}
	for i := range 3 {
		w.PutUint64(b[131+8*i:], math.Float64bits(f.scale[i]))
		w.PutUint64(b[155+8*i:], math.Float64bits(f.offset[i]))
		w.PutUint64(b[179+16*i:], math.Float64bits(hi[i]))
		w.PutUint64(b[187+16*i:], math.Float64bits(lo[i]))
	}
	if f.minor == 4 {
		w.PutUint64(b[247:], uint64(n))
	}
	pos := hs
	for _, v := range f.vlrs {
		if f.minor == 0 {
			w.PutUint16(b[pos:], 0xAABB)
		}
		copy(b[pos+2:pos+18], v.user)
		w.PutUint16(b[pos+18:], v.id)
		w.PutUint16(b[pos+20:], uint16(len(v.data)))
		copy(b[pos+22:pos+54], "test record")
		copy(b[pos+54:], v.data)
		pos += 54 + len(v.data)
	}
	if f.minor == 0 {
		w.PutUint16(b[off-2:], 0xCCDD)
	}
	for i, p := range f.points {
		r := b[off+i*rl : off+(i+1)*rl]
		for j := range r {
			r[j] = 0xEE // what the reader must not read: wave packets, extra bytes
		}
		f.putPoint(r, p)
	}
	if len(f.evlrs) > 0 {
		w.PutUint64(b[235:], uint64(len(b)))
		w.PutUint32(b[243:], uint32(len(f.evlrs)))
		for _, v := range f.evlrs {
			h := make([]byte, 60)
			copy(h[2:18], v.user)
			w.PutUint16(h[18:], v.id)
			w.PutUint64(h[20:], uint64(len(v.data)))
			b = append(append(b, h...), v.data...)
		}
	}
	return b
}

func (f *tFile) putPoint(r []byte, p tPoint) {
	w := binary.LittleEndian
	w.PutUint32(r[0:], uint32(p.X))
	w.PutUint32(r[4:], uint32(p.Y))
	w.PutUint32(r[8:], uint32(p.Z))
	w.PutUint16(r[12:], p.Intensity)
	if !f.extended() {
		// scan direction and edge of flight line set, so that the reader must mask them off
		r[14] = p.Return&7 | (p.Returns&7)<<3 | 0xc0
		r[15] = p.Class & 31
		if p.Withheld {
			r[15] |= 0x80
		}
		r[15] |= 0x20 // synthetic
		r[16] = byte(int8(p.ScanAngle))
		r[17] = p.UserData
		w.PutUint16(r[18:], p.SourceID)
		if f.format == 1 || f.format >= 3 {
			w.PutUint64(r[20:], math.Float64bits(p.GPS))
		}
		rgb := 28
		if f.format == 2 {
			rgb = 20
		}
		if f.format == 2 || f.format == 3 || f.format == 5 {
			for c := range 3 {
				w.PutUint16(r[rgb+2*c:], p.RGB[c])
			}
		}
		return
	}
	r[14] = p.Return&15 | (p.Returns&15)<<4
	r[15] = 0x01 | 0x30 | 0xc0 // synthetic, scanner channel 3, scan direction, edge
	if p.Withheld {
		r[15] |= 0x04
	}
	if p.Overlap {
		r[15] |= 0x08
	}
	r[16] = p.Class
	r[17] = p.UserData
	w.PutUint16(r[18:], uint16(p.ScanAngle))
	w.PutUint16(r[20:], p.SourceID)
	w.PutUint64(r[22:], math.Float64bits(p.GPS))
	if f.format == 7 || f.format == 8 || f.format == 10 {
		for c := range 3 {
			w.PutUint16(r[30+2*c:], p.RGB[c])
		}
	}
	if f.format == 8 || f.format == 10 {
		w.PutUint16(r[36:], p.NIR)
	}
}

// randomPoints draws points covering every field's range, with the classes, returns and flags
// the filters look at.
func randomPoints(rng *rand.Rand, n int, extended bool) []tPoint {
	classes := []uint8{0, 1, 2, 2, 2, 3, 5, 7, 12, 18, 31}
	maxReturns := 5
	if extended {
		classes = append(classes, 64, 255)
		maxReturns = 15
	}
	pts := make([]tPoint, n)
	for i := range pts {
		p := tPoint{X: int32(rng.Uint32()), Y: int32(rng.Uint32()), Z: int32(rng.Uint32()),
			Intensity: uint16(rng.Uint32()), Class: classes[rng.IntN(len(classes))],
			Withheld: rng.IntN(8) == 0, UserData: uint8(rng.Uint32()), SourceID: uint16(rng.Uint32()),
			GPS: rng.Float64() * 1e6, NIR: uint16(rng.Uint32()),
			RGB: [3]uint16{uint16(rng.Uint32()), uint16(rng.Uint32()), uint16(rng.Uint32())}}
		p.Returns = uint8(1 + rng.IntN(maxReturns))
		p.Return = uint8(1 + rng.IntN(int(p.Returns)))
		if rng.IntN(20) == 0 {
			p.Return, p.Returns = 0, 0 // files that never fill the return fields
		}
		if extended {
			p.Overlap = rng.IntN(6) == 0
			p.ScanAngle = int16(rng.IntN(60001) - 30000)
		} else {
			p.ScanAngle = int16(rng.IntN(181) - 90)
		}
		pts[i] = p
	}
	return pts
}

func newTFile(minor, format, n int, seed uint64) *tFile {
	rng := rand.New(rand.NewPCG(seed, uint64(format)))
	f := &tFile{minor: minor, format: format,
		scale: [3]float64{0.01, 0.001, 0.0025}, offset: [3]float64{500000, 4e6, -100}}
	f.points = randomPoints(rng, n, f.extended())
	return f
}

// abs returns a point's coordinates as the specification defines them.
func (f *tFile) abs(p tPoint) (x, y, z float64) {
	return float64(p.X)*f.scale[0] + f.offset[0], float64(p.Y)*f.scale[1] + f.offset[1],
		float64(p.Z)*f.scale[2] + f.offset[2]
}

// attr is the value -zfield name gives a point, from the point's own fields.
func (f *tFile) attr(p tPoint, name string) float64 {
	switch name {
	case "", "z":
		_, _, z := f.abs(p)
		return z
	case "intensity":
		return float64(p.Intensity)
	case "classification":
		return float64(p.Class)
	case "return_number":
		return float64(p.Return)
	case "number_of_returns":
		return float64(p.Returns)
	case "scan_angle":
		if f.extended() {
			return float64(p.ScanAngle) * 0.006
		}
		return float64(p.ScanAngle)
	case "user_data":
		return float64(p.UserData)
	case "point_source_id":
		return float64(p.SourceID)
	case "gps_time":
		return p.GPS
	case "red", "green", "blue":
		return float64(p.RGB[map[string]int{"red": 0, "green": 1, "blue": 2}[name]])
	case "nir":
		return float64(p.NIR)
	}
	panic(name)
}

// tHas says which optional fields a format has (LAS 1.4 R15, tables 7-17).
func tHas(format int, name string) bool {
	switch name {
	case "gps_time":
		return format != 0 && format != 2
	case "red", "green", "blue":
		return slices.Contains([]int{2, 3, 5, 7, 8, 10}, format)
	case "nir":
		return format == 8 || format == 10
	}
	return true
}

// passes is the filter's meaning, written from LASFilter's documentation.
func (f *tFile) passes(p tPoint, flt LASFilter) bool {
	if len(flt.Classes) > 0 && !slices.Contains(flt.Classes, int(p.Class)) {
		return false
	}
	overlap := p.Overlap
	if !f.extended() {
		overlap = p.Class == 12
	}
	if flt.DropWithheld && p.Withheld || flt.DropOverlap && overlap {
		return false
	}
	if flt.Returns == "first" && p.Return > 1 || flt.Returns == "last" && p.Return < p.Returns {
		return false
	}
	if r := flt.ZRange; r != nil {
		_, _, z := f.abs(p)
		if z < r[0] || z > r[1] {
			return false
		}
	}
	return true
}

// expect is what reading f with flt must give, relative to origin (ox, oy).
func (f *tFile) expect(flt LASFilter, ox, oy float64) (x, y, z []float64) {
	for _, p := range f.points {
		if !f.passes(p, flt) {
			continue
		}
		ax, ay, _ := f.abs(p)
		x, y, z = append(x, ax-ox), append(y, ay-oy), append(z, f.attr(p, flt.Field))
	}
	return x, y, z
}

func writeTFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func closeTo(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func checkSamples(t *testing.T, what string, s *sample.Samples, from int, x, y, z []float64) {
	t.Helper()
	if got := s.Len() - from; got != len(x) {
		t.Fatalf("%s: %d samples, want %d", what, got, len(x))
	}
	for i := range x {
		j := from + i
		sx, sy := s.XY(int32(j))
		if !closeTo(sx, x[i]) || !closeTo(sy, y[i]) || !closeTo(s.Z[j], z[i]) {
			t.Fatalf("%s: sample %d = (%v, %v, %v), want (%v, %v, %v)", what, i, sx, sy, s.Z[j], x[i], y[i], z[i])
		}
	}
}

// Every version with every point format it allows, with and without extra bytes, every
// attribute: the values must be the specification's.
func TestLASFormatsAndVersions(t *testing.T) {
	dir := t.TempDir()
	formats := map[int][]int{0: {0, 1}, 1: {0, 1}, 2: {0, 1, 2, 3}, 3: {0, 1, 2, 3, 4, 5},
		4: {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	for minor := range 5 {
		for _, format := range formats[minor] {
			for _, extra := range []int{0, 5} {
				f := newTFile(minor, format, 300, uint64(minor*100+extra))
				f.extra = extra
				f.headerPad = extra // a header longer than its version's is allowed
				f.gap = extra
				name := fmt.Sprintf("v1.%d-f%d-x%d.las", minor, format, extra)
				path := writeTFile(t, dir, name, f.encode())
				for _, field := range LASFields {
					if !tHas(format, field) {
						continue
					}
					s := &sample.Samples{}
					h, err := ReadLAS(path, LASFilter{Field: field}, s)
					if err != nil {
						t.Fatalf("%s -zfield %s: %v", name, field, err)
					}
					if h.VersionMinor != minor || h.PointFormat != format || h.PointCount != 300 ||
						h.RecordLength != tRecordSize[format]+extra {
						t.Fatalf("%s: header %+v", name, h)
					}
					x, y, z := f.expect(LASFilter{Field: field}, 0, 0)
					checkSamples(t, name+" "+field, s, 0, x, y, z)
				}
			}
		}
	}
}

func TestLASMissingAttribute(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		format int
		field  string
	}{{0, "gps_time"}, {1, "red"}, {6, "blue"}, {7, "nir"}, {9, "green"}} {
		path := writeTFile(t, dir, "a.las", newTFile(4, c.format, 5, 1).encode())
		_, err := ReadLAS(path, LASFilter{Field: c.field}, &sample.Samples{})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("point format %d has no", c.format)) {
			t.Errorf("format %d -zfield %s: error %v", c.format, c.field, err)
		}
	}
}

func TestLASFilterValidate(t *testing.T) {
	for _, c := range []struct {
		f    LASFilter
		want string
	}{
		{LASFilter{Classes: []int{2, 256}}, "classification 256"},
		{LASFilter{Classes: []int{-1}}, "classification -1"},
		{LASFilter{Returns: "second"}, "first, last or all"},
		{LASFilter{ZRange: &[2]float64{5, 1}}, "min must not exceed max"},
		{LASFilter{ZRange: &[2]float64{math.NaN(), 1}}, "min must not exceed max"},
		{LASFilter{Field: "height"}, "intensity"},
	} {
		if err := c.f.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.f, err, c.want)
		}
	}
	ok := LASFilter{Classes: []int{0, 2, 255}, Returns: "last", ZRange: &[2]float64{1, 1}, Field: "Intensity"}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
}

var testFilters = []LASFilter{
	{},
	{Classes: []int{2}},
	{Classes: []int{2, 3, 12}, Returns: "last"},
	{Returns: "first"},
	{Returns: "last", DropWithheld: true},
	{DropOverlap: true},
	{DropWithheld: true, DropOverlap: true, Classes: []int{2, 12, 255}},
	{ZRange: &[2]float64{-100, 0}},
	{ZRange: &[2]float64{0, 0.5e6}, Returns: "first", Field: "intensity"},
	{Classes: []int{200}}, // no point has it
}

// The filters against the documented meaning, in legacy and extended formats, with chunks
// small enough that the chunks' kept points must be closed up in order.
func TestLASFilters(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []int{1, 3, 6, 8} {
		f := newTFile(4, format, 5000, 7)
		path := writeTFile(t, dir, "f.las", f.encode())
		// a Z range whose ends are two points' Z: both ends are inside
		_, _, z0 := f.abs(f.points[0])
		_, _, z1 := f.abs(f.points[1])
		ends := LASFilter{ZRange: &[2]float64{min(z0, z1), max(z0, z1)}}
		for _, flt := range append(testFilters, ends) {
			for _, chunk := range []int{1, 7, 1000, 1 << 20} {
				what := fmt.Sprintf("format %d %+v %v chunk %d", format, flt, flt.ZRange, chunk)
				s := &sample.Samples{OriginX: 500000, OriginY: 4e6}
				s.Add(1, 2, 3) // samples already there stay, and new ones follow them
				readWithChunk(t, path, flt, s, chunk)
				x, y, z := f.expect(flt, s.OriginX, s.OriginY)
				checkSamples(t, what, s, 1, x, y, z)
				if s.X[0] != 1-500000 || s.Y[0] != 2-4e6 || s.Z[0] != 3 {
					t.Fatalf("%s: the sample already there changed", what)
				}
			}
		}
	}
}

func readWithChunk(t *testing.T, path string, flt LASFilter, s *sample.Samples, chunk int) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	h, err := readLASFileHeader(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newPointDecoder(h, flt, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := readPointsAt(file, h, d, s, chunk); err != nil {
		t.Fatal(err)
	}
}

// LAS 1.4 writers may leave the legacy count 0 for formats 0-5 too: the 64-bit count rules.
func TestLASExtendedCount(t *testing.T) {
	f := newTFile(4, 1, 1234, 3)
	f.legacyZero = true
	path := writeTFile(t, t.TempDir(), "x.las", f.encode())
	s := &sample.Samples{}
	h, err := ReadLAS(path, LASFilter{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if h.PointCount != 1234 {
		t.Fatalf("point count %d", h.PointCount)
	}
	x, y, z := f.expect(LASFilter{}, 0, 0)
	checkSamples(t, "legacy count 0", s, 0, x, y, z)
}

// geoKeys encodes a GeoKeyDirectoryTag with keys given as id, value pairs stored in place.
func geoKeys(kv ...uint16) []byte {
	n := len(kv) / 2
	b := make([]byte, 8+8*n)
	w := binary.LittleEndian
	w.PutUint16(b[0:], 1)
	w.PutUint16(b[2:], 1)
	w.PutUint16(b[6:], uint16(n))
	for i := range n {
		k := b[8+8*i:]
		w.PutUint16(k[0:], kv[2*i])
		w.PutUint16(k[4:], 1)
		w.PutUint16(k[6:], kv[2*i+1])
	}
	return b
}

const testWKT = `PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]]`

func TestLASCRS(t *testing.T) {
	dir := t.TempDir()
	proj := func(id uint16, data []byte) tRecord { return tRecord{"LASF_Projection", id, data} }
	other := tRecord{"LASF_Spec", 4, make([]byte, 192)} // extra bytes description, ignored
	wkt := append([]byte(testWKT), 0, 0)
	for _, c := range []struct {
		name  string
		minor int
		vlrs  []tRecord
		want  string
	}{
		{"none", 2, nil, ""},
		{"projected", 2, []tRecord{other, proj(34735, geoKeys(1024, 1, 3072, 32633, 3076, 9001))}, "EPSG:32633"},
		{"compound", 2, []tRecord{proj(34735, geoKeys(1024, 1, 3072, 32633, 4096, 5703))}, "EPSG:32633+5703"},
		{"geographic", 1, []tRecord{proj(34735, geoKeys(1024, 2, 2048, 4326))}, "EPSG:4326"},
		{"geographic+vertical", 3, []tRecord{proj(34735, geoKeys(2048, 4269, 4096, 5703))}, "EPSG:4269+5703"},
		{"user-defined", 2, []tRecord{proj(34735, geoKeys(1024, 1, 3072, 32767))}, ""},
		{"user-defined on NAD83", 2, []tRecord{proj(34735, geoKeys(1024, 1, 2048, 4269, 3072, 32767))}, ""},
		{"projected model, no code", 2, []tRecord{proj(34735, geoKeys(1024, 1, 2048, 4269, 4096, 5703))}, ""},
		{"vertical only", 2, []tRecord{proj(34735, geoKeys(4096, 5703))}, ""},
		{"wkt", 4, []tRecord{proj(2112, wkt)}, testWKT},
		{"wkt before keys", 4, []tRecord{proj(34735, geoKeys(3072, 32610)), proj(2112, wkt)}, testWKT},
		{"wkt in evlr", 4, nil, testWKT},
	} {
		f := newTFile(c.minor, 1, 10, 5)
		f.vlrs = c.vlrs
		if c.name == "wkt in evlr" {
			f.evlrs = []tRecord{{"other", 1, make([]byte, 100)}, proj(2112, wkt)}
		}
		path := writeTFile(t, dir, c.name+".las", f.encode())
		h, err := ReadLASHeader(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.SRS != c.want {
			t.Errorf("%s: SRS %q, want %q", c.name, h.SRS, c.want)
		}
		s := &sample.Samples{}
		if h2, err := ReadLAS(path, LASFilter{}, s); err != nil || h2.SRS != c.want || s.Len() != 10 {
			t.Errorf("%s: ReadLAS gives SRS %q, %d points, %v", c.name, h2.SRS, s.Len(), err)
		}
	}
}

// put writes a little-endian value into a copy of b.
func put[T uint16 | uint32 | uint64 | uint8 | float64](b []byte, at int, v T) []byte {
	b = slices.Clone(b)
	_, err := binary.Encode(b[at:], binary.LittleEndian, v)
	if err != nil {
		panic(err)
	}
	return b
}

// Every kind of damage is an error that names it, and leaves the samples as they were.
func TestLASCorrupt(t *testing.T) {
	f12 := newTFile(2, 1, 50, 9)
	f12.vlrs = []tRecord{{"LASF_Projection", 34735, geoKeys(3072, 32633)}}
	v12 := f12.encode()
	off12 := int(binary.LittleEndian.Uint32(v12[96:]))
	f14 := newTFile(4, 6, 50, 9)
	f14.evlrs = []tRecord{{"LASF_Projection", 2112, []byte(testWKT)}}
	v14 := f14.encode()
	off14 := int(binary.LittleEndian.Uint32(v14[96:]))
	evlr14 := int(binary.LittleEndian.Uint64(v14[235:]))
	f14b := newTFile(4, 1, 50, 9)
	v14b := f14b.encode()
	badKeys := newTFile(2, 0, 5, 1)
	badKeys.vlrs = []tRecord{{"LASF_Projection", 34735, geoKeys(3072, 32633, 4096, 5703)[:20]}}

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "ends inside the LAS header"},
		{"short header", v12[:200], "ends inside the LAS header"},
		{"short 1.4 header", v14[:300], "ends inside the LAS header"},
		{"signature", put(v12, 0, uint8('X')), "no LASF signature"},
		{"version 2.0", put(v12, 24, uint8(2)), "LAS version 2.2 is not supported"},
		{"version 1.5", put(v12, 25, uint8(5)), "LAS version 1.5 is not supported"},
		{"header size", put(v12, 94, uint16(200)), "header size 200 is less than the 227"},
		{"1.4 header size", put(v14, 94, uint16(227)), "header size 227 is less than the 375"},
		{"offset in header", put(v12, 96, uint32(100)), "offset to point data 100 is inside the 227-byte header"},
		{"offset past eof", put(v12, 96, uint32(len(v12)+8)), "is beyond the end of the file"},
		{"format 11", put(v12, 104, uint8(11)), "point data record format 11 is not supported"},
		{"record too short", put(v14, 105, uint16(28)), "point record length 28 is less than the 30 bytes of point format 6"},
		{"record too short 1.2", put(v12, 105, uint16(20)), "point record length 20 is less than the 28 bytes of point format 1"},
		{"truncated", v12[:len(v12)-1], "file truncated: the header declares 50 points of 28 bytes"},
		{"truncated at points", v12[:off12], "(297 bytes) holds 0"},
		{"count too big", put(v12, 107, uint32(51)), "file truncated: the header declares 51 points"},
		{"count huge", put(v14, 247, uint64(1)<<40), "file truncated: the header declares 1099511627776 points"},
		{"count absurd", put(v14, 247, uint64(math.MaxUint64)), "more than any file can hold"},
		{"no points", put(v12, 107, uint32(0)), "declares no points"},
		{"no points 1.4", put(v14, 247, uint64(0)), "declares no points"},
		{"counts disagree", put(v14b, 247, uint64(49)), "legacy point count 50 and the LAS 1.4 point count 49 disagree"},
		{"scale 0", put(v12, 139, 0.0), "Y scale 0"},
		{"offset NaN", put(v12, 171, math.NaN()), "Z scale"},
		{"VLR into points", put(v12, 227+20, uint16(40)), "runs into the point data"},
		{"VLR count", put(v12, 100, uint32(2)), "VLR 2 of 2 starts at byte"},
		{"VLR header into points", put(v12, 96, uint32(off12-20)), "VLR 1 of 1"},
		{"EVLR past eof", put(v14, 235, uint64(len(v14)+1)), "EVLR 1 of 1 starts at byte"},
		{"EVLR in points", put(v14, 235, uint64(off14+30)), "inside the point data"},
		{"EVLR too long", put(v14, evlr14+20, uint64(1e6)), "runs past the end of the file"},
		{"EVLR count", put(v14, 243, uint32(2)), "EVLR 2 of 2"},
		{"geokeys short", badKeys.encode(), "too short for its 2 keys"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := writeTFile(t, dir, "bad.las", c.data)
		s := &sample.Samples{}
		s.Add(7, 8, 9)
		_, err := ReadLAS(path, LASFilter{}, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if s.Len() != 1 || s.X[0] != 7 {
			t.Errorf("%s: the samples changed: %d", c.name, s.Len())
		}
	}
}

// The stream decoder, as LAZ tools feed it: the same samples as from the file, truncation
// caught, and the open count pdal gives.
func TestLASStream(t *testing.T) {
	f := newTFile(4, 7, 3000, 11)
	f.evlrs = []tRecord{{"LASF_Projection", 2112, []byte(testWKT)}}
	data := f.encode()
	flt := LASFilter{Classes: []int{2, 3}, Field: "red"}
	x, y, z := f.expect(flt, 0, 0)

	s := &sample.Samples{}
	h, err := readLASStream(bytes.NewReader(data), flt, s, false)
	if err != nil {
		t.Fatal(err)
	}
	checkSamples(t, "stream", s, 0, x, y, z)
	if h.SRS != testWKT {
		t.Errorf("stream SRS %q", h.SRS)
	}

	off := int(binary.LittleEndian.Uint32(data[96:]))
	points := data[:off+3000*36]
	for _, c := range []struct {
		name      string
		data      []byte
		openCount bool
		want      string
	}{
		{"truncated", points[:len(points)-36], false, "ends after 2999 of the 3000 points"},
		{"truncated mid-record", points[:len(points)-10], false, "ends after 2999 of the 3000 points"},
		{"EVLRs missing", points, false, "ends inside an EVLR header"},
		{"open count, partial record", put(points, 247, uint64(0))[:len(points)-10], true, "ends inside point record 3000"},
		{"open count, no points", put(points, 247, uint64(0))[:off], true, "holds no points"},
		{"count 0 not allowed", put(points, 247, uint64(0)), false, "declares no points"},
	} {
		s := &sample.Samples{}
		_, err := readLASStream(bytes.NewReader(c.data), flt, s, c.openCount)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if s.Len() != 0 {
			t.Errorf("%s: %d samples left behind", c.name, s.Len())
		}
	}

	open := put(points, 247, uint64(0))
	open = put(open, 235, uint64(0)) // pdal's header cannot say where EVLRs are either
	open = put(open, 243, uint32(0))
	s = &sample.Samples{}
	h, err = readLASStream(bytes.NewReader(open), flt, s, true)
	if err != nil {
		t.Fatal(err)
	}
	if h.PointCount != 3000 {
		t.Errorf("open count: PointCount %d", h.PointCount)
	}
	checkSamples(t, "open count", s, 0, x, y, z)
}

// fakeTool puts an executable shell script named name in dir.
func fakeTool(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

const (
	fakeLaszip = `[ "$#" = 4 ] && [ "$1" = -i ] && [ "$3" = -olas ] && [ "$4" = -stdout ] || { echo "laszip: bad arguments: $*" >&2; exit 2; }
exec /bin/cat "$2"`
	fakePDAL = `[ "$1 $2 $4 $5 $6 $7 $8" = "translate -i -o STDOUT -w writers.las --writers.las.forward=all" ] || { echo "pdal: bad arguments: $*" >&2; exit 2; }
exec /bin/cat "$3"`
	fakeFailing = `/bin/head -c 5000 "$2"; echo "ERROR: chunk 3 of the LAZ file is corrupt" >&2; exit 1`
	fakeShort   = `/bin/head -c 5000 "$2"`
	refuse      = `echo "this tool must not run" >&2; exit 3`
)

// LAZ goes through laszip, or pdal when laszip is absent; stand-in tools that copy the LAS they
// are given (a LAZ sample cannot be had here) check the command lines and the stream.
func TestLAZTools(t *testing.T) {
	f := newTFile(4, 6, 4000, 13)
	f.vlrs = []tRecord{{"LASF_Projection", 2112, []byte(testWKT)}}
	data := f.encode()
	dir := t.TempDir()
	laz := writeTFile(t, dir, "tile.laz", data)
	flt := LASFilter{Returns: "last", DropOverlap: true}
	x, y, z := f.expect(flt, 0, 0)
	// pdal's LAS on a pipe has no point count
	pdalLAZ := writeTFile(t, dir, "pdal.laz", put(data, 247, uint64(0)))
	// a .las name whose header says LAZ goes to the tools too
	flagged := writeTFile(t, dir, "flagged.las", put(data, 104, uint8(0x86)))

	for _, c := range []struct {
		name  string
		tools map[string]string
		path  string
		want  string // the error, or "" for success
	}{
		{"laszip", map[string]string{"laszip": fakeLaszip, "pdal": refuse}, laz, ""},
		{"laszip64", map[string]string{"laszip64": fakeLaszip, "pdal": refuse}, laz, ""},
		{"pdal", map[string]string{"pdal": fakePDAL}, pdalLAZ, ""},
		{"compressed bit", map[string]string{"laszip": fakeLaszip}, flagged, "still marked LAZ-compressed"},
		{"no tool", nil, laz, "neither laszip nor pdal is on PATH: install LAStools' laszip or PDAL"},
		{"no file", map[string]string{"laszip": fakeLaszip}, filepath.Join(dir, "missing.laz"), "no such file"},
		{"no tool, compressed bit", nil, flagged, "neither laszip nor pdal is on PATH"},
		{"tool fails", map[string]string{"laszip": fakeFailing}, laz, "chunk 3 of the LAZ file is corrupt"},
		{"tool output short", map[string]string{"laszip": fakeShort}, laz, "LAS stream truncated"},
		{"tool usage", map[string]string{"pdal": fakeLaszip}, laz, "laszip: bad arguments: translate"},
	} {
		bin := t.TempDir()
		for name, script := range c.tools {
			fakeTool(t, bin, name, script)
		}
		t.Setenv("PATH", bin)
		s := &sample.Samples{}
		h, err := ReadLAS(c.path, flt, s)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
			}
			if s.Len() != 0 {
				t.Errorf("%s: %d samples left behind", c.name, s.Len())
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.PointCount != 4000 || h.SRS != testWKT {
			t.Errorf("%s: header %+v", c.name, h)
		}
		checkSamples(t, c.name, s, 0, x, y, z)
	}
}

// Haystack_Rock.las, a real LAS 1.2 file (see testdata/ATTRIBUTION.md). The expected header and
// class counts were read from the file with a separate Python script.
func TestLASHaystackRock(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	h, err := ReadLASHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.VersionMajor != 1 || h.VersionMinor != 2 || h.PointFormat != 0 || h.RecordLength != 20 ||
		h.PointCount != 21932 || h.HeaderSize != 227 || h.PointOffset != 331 ||
		h.SystemID != "LAStools (c) by rapidlasso GmbH" || h.SRS != "EPSG:3645+5703" {
		t.Fatalf("header %+v", h)
	}
	if h.Scale != [3]float64{0.01, 0.01, 0.001} || h.Min != [3]float64{2230738.84, 252070.78, -1.316} ||
		h.Max != [3]float64{2231104.52, 252410.1, 80.815} {
		t.Fatalf("scale %v, bbox %v - %v", h.Scale, h.Min, h.Max)
	}
	s := &sample.Samples{}
	if _, err := ReadLAS(path, LASFilter{}, s); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 21932 {
		t.Fatalf("%d points", s.Len())
	}
	minX, minY, maxX, maxY := s.Bounds()
	minZ, maxZ := slices.Min(s.Z), slices.Max(s.Z)
	got := [6]float64{minX, minY, minZ, maxX, maxY, maxZ}
	want := [6]float64{h.Min[0], h.Min[1], h.Min[2], h.Max[0], h.Max[1], h.Max[2]}
	for i := range got {
		if math.Abs(got[i]-want[i]) > h.Scale[i%3]/2 {
			t.Errorf("bbox %v, header's %v", got, want)
			break
		}
	}
	// Never classified: every point is class 0, and a single first (and last) return.
	classes := &sample.Samples{}
	if _, err := ReadLAS(path, LASFilter{Field: "classification", Returns: "first"}, classes); err != nil {
		t.Fatal(err)
	}
	counts := map[float64]int{}
	for _, c := range classes.Z {
		counts[c]++
	}
	if len(counts) != 1 || counts[0] != 21932 {
		t.Errorf("classification counts %v", counts)
	}
	ground := &sample.Samples{}
	if _, err := ReadLAS(path, LASFilter{Classes: []int{2}}, ground); err != nil || ground.Len() != 0 {
		t.Errorf("ground points: %d, %v", ground.Len(), err)
	}
}

// ReadSources reads LAS natively: one band named after the file, its CRS as WKT, gdal_grid's
// -spat, -z_increase and -z_multiply applied.
func TestReadSourcesLAS(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	all := &sample.Samples{}
	if _, err := ReadLAS(path, LASFilter{}, all); err != nil {
		t.Fatal(err)
	}
	src, err := ReadSources(path, SourceOptions{LayerExtent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 1 || src[0].Name != "Haystack_Rock" || src[0].Samples.Len() != 21932 ||
		!strings.Contains(src[0].SRS, "Oregon North") || !strings.Contains(src[0].SRS, "NAVD88") {
		t.Fatalf("sources %d, name %q, SRS %.80q", len(src), src[0].Name, src[0].SRS)
	}
	minX, minY, maxX, maxY := all.Bounds()
	if e := src[0].Extent; e == nil || *e != [4]float64{minX, minY, maxX, maxY} {
		t.Errorf("extent %v", src[0].Extent)
	}

	spat := [4]float64{2230800, 252100, 2231000, 252300}
	mul := 2.0
	src, err = ReadSources(path, SourceOptions{Spat: &spat, ZIncrease: 1, ZMultiply: &mul})
	if err != nil {
		t.Fatal(err)
	}
	var x, y, z []float64
	for i := range all.X {
		if all.X[i] > spat[0] && all.X[i] < spat[2] && all.Y[i] > spat[1] && all.Y[i] < spat[3] {
			x, y, z = append(x, all.X[i]), append(y, all.Y[i]), append(z, (all.Z[i]+1)*2)
		}
	}
	if len(x) == 0 || len(x) == all.Len() {
		t.Fatalf("the window keeps %d of %d points: a useless test", len(x), all.Len())
	}
	if !src[0].Samples.IsCompact() {
		t.Error("the samples of a LAS file are not compact")
	}
	src[0].Samples.MoveOrigin(0, 0)
	checkSamples(t, "-spat", src[0].Samples, 0, x, y, z)

	for _, c := range []struct {
		opt  SourceOptions
		want string
	}{
		{SourceOptions{Where: "class = 2"}, "-where and -sql apply to vector sources"},
		{SourceOptions{Layers: []string{"x"}}, "no layers"},
		{SourceOptions{ZField: "gps_time"}, "point format 0 has no GPS time"},
	} {
		if _, err := ReadSources(path, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.opt, err, c.want)
		}
	}
}
