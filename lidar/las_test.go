package lidar

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/sample"
)

// passes is the filter's meaning, written from Filter's documentation.
func passes(f *lastest.File, p lastest.Point, flt Filter) bool {
	if len(flt.Classes) > 0 && !slices.Contains(flt.Classes, int(p.Class)) {
		return false
	}
	overlap := p.Overlap
	if !f.Extended() {
		overlap = p.Class == 12
	}
	if flt.DropWithheld && p.Withheld || flt.DropOverlap && overlap {
		return false
	}
	if flt.Returns == "first" && p.Return > 1 || flt.Returns == "last" && p.Return < p.Returns {
		return false
	}
	if r := flt.ZRange; r != nil {
		_, _, z := f.Abs(p)
		if z < r[0] || z > r[1] {
			return false
		}
	}
	return true
}

// expect is what reading f with flt must give, relative to origin (ox, oy).
func expect(f *lastest.File, flt Filter, ox, oy float64) (x, y, z []float64) {
	for _, p := range f.Points {
		if !passes(f, p, flt) {
			continue
		}
		ax, ay, _ := f.Abs(p)
		x, y, z = append(x, ax-ox), append(y, ay-oy), append(z, f.Attr(p, flt.Field))
	}
	return x, y, z
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
				f := lastest.NewFile(minor, format, 300, uint64(minor*100+extra))
				f.Extra = extra
				f.HeaderPad = extra // a header longer than its version's is allowed
				f.Gap = extra
				name := fmt.Sprintf("v1.%d-f%d-x%d.las", minor, format, extra)
				path := lastest.WriteFile(t, dir, name, f.Encode())
				for _, field := range Fields {
					if !lastest.Has(format, field) {
						continue
					}
					s := &sample.Samples{}
					h, err := readLocal(path, Filter{Field: field}, s)
					if err != nil {
						t.Fatalf("%s -zfield %s: %v", name, field, err)
					}
					if h.VersionMinor != minor || h.PointFormat != format || h.PointCount != 300 ||
						h.RecordLength != lastest.RecordSize[format]+extra {
						t.Fatalf("%s: header %+v", name, h)
					}
					x, y, z := expect(f, Filter{Field: field}, 0, 0)
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
		path := lastest.WriteFile(t, dir, "a.las", lastest.NewFile(4, c.format, 5, 1).Encode())
		_, err := readLocal(path, Filter{Field: c.field}, &sample.Samples{})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("point format %d has no", c.format)) {
			t.Errorf("format %d -zfield %s: error %v", c.format, c.field, err)
		}
	}
}

func TestLASFilterValidate(t *testing.T) {
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Classes: []int{2, 256}}, "classification 256"},
		{Filter{Classes: []int{-1}}, "classification -1"},
		{Filter{Returns: "second"}, "first, last or all"},
		{Filter{ZRange: &[2]float64{5, 1}}, "min must not exceed max"},
		{Filter{ZRange: &[2]float64{math.NaN(), 1}}, "min must not exceed max"},
		{Filter{Field: "height"}, "intensity"},
	} {
		if err := c.f.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.f, err, c.want)
		}
	}
	ok := Filter{Classes: []int{0, 2, 255}, Returns: "last", ZRange: &[2]float64{1, 1}, Field: "Intensity"}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
}

var testFilters = []Filter{
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
		f := lastest.NewFile(4, format, 5000, 7)
		path := lastest.WriteFile(t, dir, "f.las", f.Encode())
		// a Z range whose ends are two points' Z: both ends are inside
		_, _, z0 := f.Abs(f.Points[0])
		_, _, z1 := f.Abs(f.Points[1])
		ends := Filter{ZRange: &[2]float64{min(z0, z1), max(z0, z1)}}
		for _, flt := range append(testFilters, ends) {
			for _, chunk := range []int{1, 7, 1000, 1 << 20} {
				what := fmt.Sprintf("format %d %+v %v chunk %d", format, flt, flt.ZRange, chunk)
				s := &sample.Samples{OriginX: 500000, OriginY: 4e6}
				s.Add(1, 2, 3) // samples already there stay, and new ones follow them
				readWithChunk(t, path, flt, s, chunk)
				x, y, z := expect(f, flt, s.OriginX, s.OriginY)
				checkSamples(t, what, s, 1, x, y, z)
				if s.X[0] != 1-500000 || s.Y[0] != 2-4e6 || s.Z[0] != 3 {
					t.Fatalf("%s: the sample already there changed", what)
				}
			}
		}
	}
}

func readWithChunk(t *testing.T, path string, flt Filter, s *sample.Samples, chunk int) {
	t.Helper()
	src, err := OpenLocal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	f.chunkPoints = chunk
	if _, err := f.Read(context.Background(), flt, s); err != nil {
		t.Fatal(err)
	}
}

// readLocal reads a local file's points into s, as the LAS reader does.
func readLocal(path string, flt Filter, s *sample.Samples) (Header, error) {
	h, _, err := ReadFile(context.Background(), OpenLocal, path, flt, s)
	if err != nil {
		return h, fmt.Errorf("reading %s: %w", path, err)
	}
	return h, nil
}

// LAS 1.4 writers may leave the legacy count 0 for formats 0-5 too: the 64-bit count rules.
func TestLASExtendedCount(t *testing.T) {
	f := lastest.NewFile(4, 1, 1234, 3)
	f.LegacyZero = true
	path := lastest.WriteFile(t, t.TempDir(), "x.las", f.Encode())
	s := &sample.Samples{}
	h, err := readLocal(path, Filter{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if h.PointCount != 1234 {
		t.Fatalf("point count %d", h.PointCount)
	}
	x, y, z := expect(f, Filter{}, 0, 0)
	checkSamples(t, "legacy count 0", s, 0, x, y, z)
}

const testWKT = `PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]]`

func TestLASCRS(t *testing.T) {
	dir := t.TempDir()
	proj := func(id uint16, data []byte) lastest.Record {
		return lastest.Record{User: "LASF_Projection", ID: id, Data: data}
	}
	other := lastest.Record{User: "LASF_Spec", ID: 4, Data: make([]byte, 192)} // extra bytes description, ignored
	wkt := append([]byte(testWKT), 0, 0)
	for _, c := range []struct {
		name  string
		minor int
		vlrs  []lastest.Record
		want  string
	}{
		{"none", 2, nil, ""},
		{"projected", 2, []lastest.Record{other, proj(34735, lastest.GeoKeys(1024, 1, 3072, 32633, 3076, 9001))}, "EPSG:32633"},
		{"compound", 2, []lastest.Record{proj(34735, lastest.GeoKeys(1024, 1, 3072, 32633, 4096, 5703))}, "EPSG:32633+5703"},
		{"geographic", 1, []lastest.Record{proj(34735, lastest.GeoKeys(1024, 2, 2048, 4326))}, "EPSG:4326"},
		{"geographic+vertical", 3, []lastest.Record{proj(34735, lastest.GeoKeys(2048, 4269, 4096, 5703))}, "EPSG:4269+5703"},
		{"user-defined", 2, []lastest.Record{proj(34735, lastest.GeoKeys(1024, 1, 3072, 32767))}, ""},
		{"user-defined on NAD83", 2, []lastest.Record{proj(34735, lastest.GeoKeys(1024, 1, 2048, 4269, 3072, 32767))}, ""},
		{"projected model, no code", 2, []lastest.Record{proj(34735, lastest.GeoKeys(1024, 1, 2048, 4269, 4096, 5703))}, ""},
		{"vertical only", 2, []lastest.Record{proj(34735, lastest.GeoKeys(4096, 5703))}, ""},
		{"wkt", 4, []lastest.Record{proj(2112, wkt)}, testWKT},
		{"wkt before keys", 4, []lastest.Record{proj(34735, lastest.GeoKeys(3072, 32610)), proj(2112, wkt)}, testWKT},
		{"wkt in evlr", 4, nil, testWKT},
	} {
		f := lastest.NewFile(c.minor, 1, 10, 5)
		f.VLRs = c.vlrs
		if c.name == "wkt in evlr" {
			f.EVLRs = []lastest.Record{{User: "other", ID: 1, Data: make([]byte, 100)}, proj(2112, wkt)}
		}
		path := lastest.WriteFile(t, dir, c.name+".las", f.Encode())
		h, err := ReadHeader(OpenLocal, path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.SRS != c.want {
			t.Errorf("%s: SRS %q, want %q", c.name, h.SRS, c.want)
		}
		s := &sample.Samples{}
		if h2, err := readLocal(path, Filter{}, s); err != nil || h2.SRS != c.want || s.Len() != 10 {
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
	f12 := lastest.NewFile(2, 1, 50, 9)
	f12.VLRs = []lastest.Record{{User: "LASF_Projection", ID: 34735, Data: lastest.GeoKeys(3072, 32633)}}
	v12 := f12.Encode()
	off12 := int(binary.LittleEndian.Uint32(v12[96:]))
	f14 := lastest.NewFile(4, 6, 50, 9)
	f14.EVLRs = []lastest.Record{{User: "LASF_Projection", ID: 2112, Data: []byte(testWKT)}}
	v14 := f14.Encode()
	off14 := int(binary.LittleEndian.Uint32(v14[96:]))
	evlr14 := int(binary.LittleEndian.Uint64(v14[235:]))
	f14b := lastest.NewFile(4, 1, 50, 9)
	v14b := f14b.Encode()
	badKeys := lastest.NewFile(2, 0, 5, 1)
	badKeys.VLRs = []lastest.Record{{User: "LASF_Projection", ID: 34735, Data: lastest.GeoKeys(3072, 32633, 4096, 5703)[:20]}}

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
		{"EVLR past eof", put(v14, 235, uint64(len(v14)+1)), "EVLR 1 of 1 starts at byte " + strconv.Itoa(len(v14)+1) + ", beyond the end"},
		// issue 27, defect 7: it starts inside the file, and its header runs past the end
		{"EVLR header cut", put(v14, 235, uint64(len(v14)-10)), "EVLR 1 of 1 starts at byte " + strconv.Itoa(len(v14)-10) + ", but its 60-byte header runs past the end of the file"},
		{"EVLR in points", put(v14, 235, uint64(off14+30)), "inside the point data"},
		{"EVLR too long", put(v14, evlr14+20, uint64(1e6)), "runs past the end of the file"},
		{"EVLR count", put(v14, 243, uint32(2)), "EVLR 2 of 2"},
		{"geokeys short", badKeys.Encode(), "too short for its 2 keys"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := lastest.WriteFile(t, dir, "bad.las", c.data)
		s := &sample.Samples{}
		s.Add(7, 8, 9)
		_, err := readLocal(path, Filter{}, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if s.Len() != 1 || s.X[0] != 7 {
			t.Errorf("%s: the samples changed: %d", c.name, s.Len())
		}
	}
}

// Haystack_Rock.las, a real LAS 1.2 file (see testdata/ATTRIBUTION.md). The expected header and
// class counts were read from the file with a separate Python script.
func TestLASHaystackRock(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	h, err := ReadHeader(OpenLocal, path)
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
	if _, err := readLocal(path, Filter{}, s); err != nil {
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
	if _, err := readLocal(path, Filter{Field: "classification", Returns: "first"}, classes); err != nil {
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
	if _, err := readLocal(path, Filter{Classes: []int{2}}, ground); err != nil || ground.Len() != 0 {
		t.Errorf("ground points: %d, %v", ground.Len(), err)
	}
}
