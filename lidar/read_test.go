package lidar

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
)

// LAS files are read into compact samples when all their points lie on one lattice (one scale,
// offsets of whole quanta, offsets from the origin within int32), and into plain ones
// otherwise; either way every point is where the specification puts it.
func TestReadLASCompactOrPlain(t *testing.T) {
	dir := t.TempDir()
	small := func(seed uint64, edit func(f *lastest.File)) *lastest.File {
		f := lastest.NewFile(2, 1, 400, seed)
		for i := range f.Points {
			f.Points[i].X, f.Points[i].Y = f.Points[i].X%100000, f.Points[i].Y%100000
		}
		edit(f)
		return f
	}
	same := func(*lastest.File) {}
	for _, c := range []struct {
		name    string
		files   []*lastest.File
		compact bool
		lie     bool // headers state a bounding box of 0: the points' range shows when decoded
	}{
		{"one file", []*lastest.File{small(1, same)}, true, false},
		{"tiles of one lattice", []*lastest.File{small(1, same), small(2, func(f *lastest.File) { f.Offset[0] += 12.34 })}, true, false},
		{"another scale", []*lastest.File{small(1, same), small(2, func(f *lastest.File) { f.Scale[0] = 0.02 })}, false, false},
		{"offset off the lattice", []*lastest.File{small(1, func(f *lastest.File) { f.Offset[1] += 0.0005 })}, false, false},
		// 5e9 quanta apart: from any origin, one file or the other is beyond int32
		{"beyond int32", []*lastest.File{small(1, same), small(2, func(f *lastest.File) { f.Offset[0] += 5e7 })}, false, false},
		{"beyond int32, headers lie", []*lastest.File{small(1, same), small(2, func(f *lastest.File) { f.Offset[0] += 5e7 })}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var paths []string
			var want [][2]float64
			for i, f := range c.files {
				b := f.Encode()
				if c.lie {
					clear(b[179:227]) // max and min x, y, z
				}
				name := strings.NewReplacer(" ", "_", ",", "").Replace(c.name)
				paths = append(paths, lastest.WriteFile(t, dir, fmt.Sprintf("%s%d.las", name, i), b))
				for _, p := range f.Points {
					x, y, _ := f.Abs(p)
					want = append(want, [2]float64{x, y})
				}
			}
			cloud, err := ReadFiles(context.Background(), OpenLocal, paths, Filter{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := cloud.Samples
			if s.IsCompact() != c.compact || s.Len() != len(want) {
				t.Fatalf("compact %v with %d samples, want %v with %d", s.IsCompact(), s.Len(), c.compact, len(want))
			}
			for i, w := range want {
				x, y := s.XY(int32(i))
				if x, y = x+s.OriginX, y+s.OriginY; !closeTo(x, w[0]) || !closeTo(y, w[1]) {
					t.Fatalf("sample %d at %v,%v, want %v", i, x, y, w)
				}
			}
		})
	}
}
