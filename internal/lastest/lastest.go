// Package lastest writes LAS files from the ASPRS specification on its own, field by field, so
// that the readers are tested against an independent encoder. Tests only.
package lastest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The test side writes LAS files from the ASPRS specification on its own, field by field, so
// that the reader is checked against an independent encoder.

// Point is one point with every attribute a point format may hold.
type Point struct {
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

type Record struct {
	User string
	ID   uint16
	Data []byte
}

// File describes a LAS file to encode.
type File struct {
	Minor, Format int
	Extra         int // bytes after each record's format fields
	HeaderPad     int // bytes after the header the version defines (header size grows)
	Gap           int // bytes between the VLRs and the points
	Scale, Offset [3]float64
	Points        []Point
	VLRs, EVLRs   []Record
	LegacyZero    bool // LAS 1.4, formats 0-5: leave the legacy count 0, as writers may
}

// Record sizes of point formats 0-10 (LAS 1.4 R15, tables 7-17).
var RecordSize = []int{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67}

func HeaderSize(minor int) int {
	return map[int]int{0: 227, 1: 227, 2: 227, 3: 235, 4: 375}[minor]
}

func (f *File) Extended() bool { return f.Format >= 6 }

func (f *File) Encode() []byte {
	hs := HeaderSize(f.Minor) + f.HeaderPad
	vlrBytes := 0
	for _, v := range f.VLRs {
		vlrBytes += 54 + len(v.Data)
	}
	off := hs + vlrBytes + f.Gap
	if f.Minor == 0 {
		off += 2 // LAS 1.0's point data start signature
	}
	rl := RecordSize[f.Format] + f.Extra
	n := len(f.Points)
	b := make([]byte, off+n*rl)
	w := binary.LittleEndian
	copy(b, "LASF")
	b[24], b[25] = 1, byte(f.Minor)
	copy(b[26:], "aidw test")
	copy(b[58:], "las_test.go")
	w.PutUint16(b[90:], 100)
	w.PutUint16(b[92:], 2026)
	w.PutUint16(b[94:], uint16(hs))
	w.PutUint32(b[96:], uint32(off))
	w.PutUint32(b[100:], uint32(len(f.VLRs)))
	b[104] = byte(f.Format)
	w.PutUint16(b[105:], uint16(rl))
	if f.Minor < 4 || (f.Format < 6 && !f.LegacyZero) {
		w.PutUint32(b[107:], uint32(n))
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range f.Points {
		for i, v := range [3]int32{p.X, p.Y, p.Z} {
			c := float64(v)*f.Scale[i] + f.Offset[i]
			lo[i], hi[i] = math.Min(lo[i], c), math.Max(hi[i], c)
		}
	}
	for i := range 3 {
		w.PutUint64(b[131+8*i:], math.Float64bits(f.Scale[i]))
		w.PutUint64(b[155+8*i:], math.Float64bits(f.Offset[i]))
		w.PutUint64(b[179+16*i:], math.Float64bits(hi[i]))
		w.PutUint64(b[187+16*i:], math.Float64bits(lo[i]))
	}
	if f.Minor == 4 {
		w.PutUint64(b[247:], uint64(n))
	}
	pos := hs
	for _, v := range f.VLRs {
		if f.Minor == 0 {
			w.PutUint16(b[pos:], 0xAABB)
		}
		copy(b[pos+2:pos+18], v.User)
		w.PutUint16(b[pos+18:], v.ID)
		w.PutUint16(b[pos+20:], uint16(len(v.Data)))
		copy(b[pos+22:pos+54], "test record")
		copy(b[pos+54:], v.Data)
		pos += 54 + len(v.Data)
	}
	if f.Minor == 0 {
		w.PutUint16(b[off-2:], 0xCCDD)
	}
	for i, p := range f.Points {
		r := b[off+i*rl : off+(i+1)*rl]
		for j := range r {
			r[j] = 0xEE // what the reader must not read: wave packets, extra bytes
		}
		f.putPoint(r, p)
	}
	if len(f.EVLRs) > 0 {
		w.PutUint64(b[235:], uint64(len(b)))
		w.PutUint32(b[243:], uint32(len(f.EVLRs)))
		for _, v := range f.EVLRs {
			h := make([]byte, 60)
			copy(h[2:18], v.User)
			w.PutUint16(h[18:], v.ID)
			w.PutUint64(h[20:], uint64(len(v.Data)))
			b = append(append(b, h...), v.Data...)
		}
	}
	return b
}

func (f *File) putPoint(r []byte, p Point) {
	w := binary.LittleEndian
	w.PutUint32(r[0:], uint32(p.X))
	w.PutUint32(r[4:], uint32(p.Y))
	w.PutUint32(r[8:], uint32(p.Z))
	w.PutUint16(r[12:], p.Intensity)
	if !f.Extended() {
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
		if f.Format == 1 || f.Format >= 3 {
			w.PutUint64(r[20:], math.Float64bits(p.GPS))
		}
		rgb := 28
		if f.Format == 2 {
			rgb = 20
		}
		if f.Format == 2 || f.Format == 3 || f.Format == 5 {
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
	if f.Format == 7 || f.Format == 8 || f.Format == 10 {
		for c := range 3 {
			w.PutUint16(r[30+2*c:], p.RGB[c])
		}
	}
	if f.Format == 8 || f.Format == 10 {
		w.PutUint16(r[36:], p.NIR)
	}
}

// RandomPoints draws points covering every field's range, with the classes, returns and flags
// the filters look at.
func RandomPoints(rng *rand.Rand, n int, extended bool) []Point {
	classes := []uint8{0, 1, 2, 2, 2, 3, 5, 7, 12, 18, 31}
	maxReturns := 5
	if extended {
		classes = append(classes, 64, 255)
		maxReturns = 15
	}
	pts := make([]Point, n)
	for i := range pts {
		p := Point{X: int32(rng.Uint32()), Y: int32(rng.Uint32()), Z: int32(rng.Uint32()),
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

func NewFile(minor, format, n int, seed uint64) *File {
	rng := rand.New(rand.NewPCG(seed, uint64(format)))
	f := &File{Minor: minor, Format: format,
		Scale: [3]float64{0.01, 0.001, 0.0025}, Offset: [3]float64{500000, 4e6, -100}}
	f.Points = RandomPoints(rng, n, f.Extended())
	return f
}

// Abs returns a point's coordinates as the specification defines them.
func (f *File) Abs(p Point) (x, y, z float64) {
	return float64(p.X)*f.Scale[0] + f.Offset[0], float64(p.Y)*f.Scale[1] + f.Offset[1],
		float64(p.Z)*f.Scale[2] + f.Offset[2]
}

// Attr is the value -zfield name gives a point, from the point's own fields.
func (f *File) Attr(p Point, name string) float64 {
	switch name {
	case "", "z":
		_, _, z := f.Abs(p)
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
		if f.Extended() {
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

// Has says which optional fields a format has (LAS 1.4 R15, tables 7-17).
func Has(format int, name string) bool {
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

func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// GeoKeys encodes a GeoKeyDirectoryTag with keys given as id, value pairs stored in place.
func GeoKeys(kv ...uint16) []byte {
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

// Survey writes n clustered points as four LAS files, the quadrants of a 200 x 150 m area near
// (450000, 5400000): clusters with wide gaps between them (so that nearest-neighbour searches
// reach far), a thin background, every 50th point repeated with another value, on the 0.01 m
// lattice, or on the 1 m one where ties in distance abound. It returns the files' paths.
func Survey(t testing.TB, dir string, n int, seed uint64, lattice bool) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	files := make([]*File, 4)
	for q := range files {
		files[q] = &File{Minor: 2, Format: 1, Scale: [3]float64{0.01, 0.01, 0.01}, Offset: [3]float64{450000, 5400000, 0}}
	}
	type cluster struct{ x, y, r float64 }
	var cs []cluster
	for range 9 {
		cs = append(cs, cluster{rng.Float64() * 200, rng.Float64() * 150, 3 + rng.Float64()*12})
	}
	for i := range n {
		c := cs[rng.IntN(len(cs))]
		x, y := c.x+rng.NormFloat64()*c.r, c.y+rng.NormFloat64()*c.r
		if i%10 == 0 {
			x, y = rng.Float64()*200, rng.Float64()*150
		}
		x, y = math.Max(0, math.Min(200, x)), math.Max(0, math.Min(150, y))
		if lattice {
			x, y = math.Round(x), math.Round(y)
		}
		z := 100 + 10*math.Sin(x/20) + 5*math.Cos(y/15) + rng.Float64()
		p := Point{X: int32(math.Round(x * 100)), Y: int32(math.Round(y * 100)), Z: int32(math.Round(z * 100)), Class: 2, Return: 1, Returns: 1}
		q := 0
		if x >= 100 {
			q |= 1
		}
		if y >= 75 {
			q |= 2
		}
		files[q].Points = append(files[q].Points, p)
		if i%50 == 0 {
			p.Z += 37
			files[q].Points = append(files[q].Points, p)
		}
	}
	var paths []string
	for q, f := range files {
		paths = append(paths, WriteFile(t, dir, fmt.Sprintf("q%d.las", q), f.Encode()))
	}
	return paths
}
