package laz

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// A minimal LAS header reader for the tests (the package itself leaves the
// LAS header to its caller).

type vlr struct {
	user   string
	record uint16
	offset int64 // of the payload
	data   []byte
}

type lasFile struct {
	path        string
	data        []byte
	minor       uint8
	pointOffset int64
	format      uint8
	recLen      int
	count       uint64
	vlrs        []vlr
	evlrs       []vlr
	evlrStart   int64
}

const fixtureDir = "../../testdata/laz"

func fixture(name string) string { return filepath.Join(fixtureDir, name) }

func parseLAS(path string) (*lasFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 227 || string(data[:4]) != "LASF" {
		return nil, fmt.Errorf("%s: not a LAS file", path)
	}
	lb := binary.LittleEndian
	f := &lasFile{path: path, data: data}
	f.minor = data[25]
	hs := int64(lb.Uint16(data[94:]))
	f.pointOffset = int64(lb.Uint32(data[96:]))
	nv := int(lb.Uint32(data[100:]))
	f.format = data[104]
	f.recLen = int(lb.Uint16(data[105:]))
	f.count = uint64(lb.Uint32(data[107:]))
	if f.minor >= 4 && len(data) >= 375 {
		if c := lb.Uint64(data[247:]); c != 0 {
			f.count = c
		}
	}
	p := hs
	for i := 0; i < nv; i++ {
		user := string(bytes.TrimRight(data[p+2:p+18], "\x00"))
		rec := lb.Uint16(data[p+18:])
		n := int64(lb.Uint16(data[p+20:]))
		f.vlrs = append(f.vlrs, vlr{user, rec, p + 54, data[p+54 : p+54+n]})
		p += 54 + n
	}
	if f.minor >= 4 {
		start := int64(lb.Uint64(data[235:]))
		n := int(lb.Uint32(data[243:]))
		f.evlrStart = start
		p = start
		for i := 0; i < n && p+60 <= int64(len(data)); i++ {
			user := string(bytes.TrimRight(data[p+2:p+18], "\x00"))
			rec := lb.Uint16(data[p+18:])
			ln := int64(lb.Uint64(data[p+20:]))
			f.evlrs = append(f.evlrs, vlr{user, rec, p + 60, data[p+60 : p+60+ln]})
			p += 60 + ln
		}
	}
	return f, nil
}

func (f *lasFile) find(user string, rec uint16) *vlr {
	for i := range f.vlrs {
		if f.vlrs[i].user == user && f.vlrs[i].record == rec {
			return &f.vlrs[i]
		}
	}
	for i := range f.evlrs {
		if f.evlrs[i].user == user && f.evlrs[i].record == rec {
			return &f.evlrs[i]
		}
	}
	return nil
}

// points returns the raw point records of an uncompressed LAS file.
func (f *lasFile) points() []byte {
	return f.data[f.pointOffset : f.pointOffset+int64(f.count)*int64(f.recLen)]
}

func openLAZ(t testing.TB, name string) (*lasFile, *Reader) {
	t.Helper()
	f, err := parseLAS(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := openBytes(f, f.data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f, r
}

func openBytes(f *lasFile, data []byte) (*Reader, error) {
	v := f.find("laszip encoded", 22204)
	if v == nil {
		return nil, fmt.Errorf("no laszip vlr")
	}
	info, err := ParseVLR(v.data)
	if err != nil {
		return nil, err
	}
	return Open(bytes.NewReader(data), int64(len(data)), info, f.pointOffset, f.count, f.recLen)
}

func (f *lasFile) scale() (float64, float64) {
	return math.Float64frombits(binary.LittleEndian.Uint64(f.data[131:])), math.Float64frombits(binary.LittleEndian.Uint64(f.data[139:]))
}

func (f *lasFile) offset() (float64, float64) {
	return math.Float64frombits(binary.LittleEndian.Uint64(f.data[155:])), math.Float64frombits(binary.LittleEndian.Uint64(f.data[163:]))
}
