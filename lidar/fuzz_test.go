package lidar

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/sample"
)

// bytesSource is a Source over a file's bytes.
type bytesSource struct{ *bytes.Reader }

func (b bytesSource) Size() int64  { return b.Reader.Size() }
func (b bytesSource) Close() error { return nil }

// FuzzReadFile feeds mutated LAS and LAZ files to the reader with several filters and checks
// that it never panics, and that what it accepts is sane: no more points than the header
// declares, every coordinate and value finite. The seeds are the fixtures and files of every
// point format from the test encoder.
func FuzzReadFile(f *testing.F) {
	for _, name := range []string{"simple.las", "simple.laz", "1_4_w_evlr.las", "1_4_w_evlr.laz", "simple.copc.laz"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "laz", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	for format := range 11 {
		f.Add(lastest.NewFile(4, format, 20, uint64(format)).Encode(), uint8(format))
	}
	filters := []Filter{{}, {Classes: []int{2}, Returns: "last"}, {DropWithheld: true, DropOverlap: true, Field: "intensity"},
		{Field: "gps_time", ZRange: &[2]float64{-1e9, 1e9}},
		{Samples: &sample.Filter{Region: &sample.Region{Rect: &[4]float64{-1e12, -1e12, 1e12, 1e12}}, ZMultiply: 2}}}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		file, err := Open(bytesSource{bytes.NewReader(data)})
		if err != nil {
			return
		}
		// The caller checks a header's count against memory before reading (gdalio does):
		// a mutated LAZ header may declare billions of points in a few bytes.
		if file.PointCount > 1<<20 {
			return
		}
		flt := filters[int(which)%len(filters)]
		for _, s := range []*sample.Samples{{}, {QuantumX: file.Scale[0], QuantumY: file.Scale[1]}} {
			if _, err := file.Read(context.Background(), flt, s); err != nil {
				continue
			}
			if s.Len() > file.PointCount {
				t.Fatalf("%d samples from a header of %d points", s.Len(), file.PointCount)
			}
			for i := range int32(s.Len()) {
				x, y := s.XY(i)
				if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
					t.Fatalf("sample %d at %v, %v", i, x, y)
				}
			}
		}
	})
}
