package lidar

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aidw/aidw/lidar/laz"
	"github.com/aidw/aidw/sample"
)

// copcEntry is the offset in b of the root hierarchy page's entry for key k.
func copcEntry(t *testing.T, b []byte, info *laz.CopcInfo, k laz.Key) int {
	t.Helper()
	le := binary.LittleEndian
	for e := int(info.RootHierOffset); e < int(info.RootHierOffset+info.RootHierSize); e += 32 {
		if (laz.Key{D: int32(le.Uint32(b[e:])), X: int32(le.Uint32(b[e+4:])), Y: int32(le.Uint32(b[e+8:])), Z: int32(le.Uint32(b[e+12:]))}) == k {
			return e
		}
	}
	t.Fatalf("no entry %v in the root page", k)
	return 0
}

// windowRead reads the file in b with the spatial filter box, as -spat does.
func windowRead(t *testing.T, b []byte, box [4]float64) ([]float64, error) {
	t.Helper()
	f, err := Open(bytesSource{bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	var s sample.Samples
	filter := Filter{Samples: &sample.Filter{ZMultiply: 1, Region: &sample.Region{Rect: &box, BBox: box}}}
	if _, err := f.Read(context.Background(), filter, &s); err != nil {
		return nil, err
	}
	var xyz []float64
	for i := range s.Len() {
		x, y := s.XY(int32(i))
		xyz = append(xyz, x, y, s.Z[i])
	}
	return sortedTriples(xyz), nil
}

// sortedTriples sorts x,y,z triples, so that reads in different orders compare.
func sortedTriples(v []float64) []float64 {
	tr := make([][3]float64, len(v)/3)
	for i := range tr {
		tr[i] = [3]float64{v[3*i], v[3*i+1], v[3*i+2]}
	}
	slices.SortFunc(tr, func(a, b [3]float64) int { return slices.Compare(a[:], b[:]) })
	out := make([]float64, 0, len(v))
	for _, p := range tr {
		out = append(out, p[:]...)
	}
	return out
}

// A COPC hierarchy that is not an octree of the file's points is not trusted: the file is read
// as plain LAZ, and a spatial filter gets every point inside it. A node key set to level 40 or
// to a cell whose parent is not listed made -spat silently drop that node's points (issue 27,
// defect 5); a node count beyond the header's sized the buffers to tens of gigabytes.
func TestCOPCInvalidHierarchy(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "testdata", "laz", "simple.copc.laz"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytesSource{bytes.NewReader(orig)})
	if err != nil {
		t.Fatal(err)
	}
	info, err := laz.ParseCopcInfo(f.COPC)
	if err != nil {
		t.Fatal(err)
	}
	// the expectation: every point of the file, read without the hierarchy, inside the box
	box := [4]float64{636200.5, 848000.5, 637300.5, 849900.5} // off the root's corner
	all, err := windowRead(t, orig, [4]float64{-1e12, -1e12, 1e12, 1e12})
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for i := 0; i < len(all); i += 3 {
		if all[i] > box[0] && all[i] < box[2] && all[i+1] > box[1] && all[i+1] < box[3] {
			want = append(want, all[i:i+3]...)
		}
	}
	if len(want) == 0 || len(want) == len(all) {
		t.Fatalf("the box holds %d of %d points: want some", len(want)/3, len(all)/3)
	}
	if got, err := windowRead(t, orig, box); err != nil || !slices.Equal(got, want) {
		t.Fatalf("intact file: %d points (%v), want %d", len(got)/3, err, len(want)/3)
	}
	le := binary.LittleEndian
	for _, c := range []struct {
		name   string
		mutate func(b []byte)
	}{
		{"level 40", func(b []byte) { le.PutUint32(b[copcEntry(t, b, info, laz.Key{D: 2})+0:], 40) }},
		{"no parent", func(b []byte) {
			e := copcEntry(t, b, info, laz.Key{D: 3, X: 1})
			le.PutUint32(b[e+4:], 7)
			le.PutUint32(b[e+8:], 7)
		}},
		{"outside its level", func(b []byte) { le.PutUint32(b[copcEntry(t, b, info, laz.Key{D: 3, X: 1})+4:], 8) }},
		{"listed twice", func(b []byte) { le.PutUint32(b[copcEntry(t, b, info, laz.Key{D: 3, X: 1})+4:], 0) }},
		{"more points than the header", func(b []byte) { le.PutUint32(b[int(info.RootHierOffset)+28:], 1<<31-1) }},
	} {
		b := slices.Clone(orig)
		c.mutate(b)
		got, err := windowRead(t, b, box)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %d points (%v), want the %d inside the box", c.name, len(got)/3, err, len(want)/3)
		}
	}
}
