package laz

import (
	"bytes"
	"sort"
	"testing"
)

func TestCOPC(t *testing.T) {
	f, r := openLAZ(t, "simple.copc.laz")
	v := f.find("copc", 1)
	if v == nil {
		t.Fatal("no copc info vlr")
	}
	info, err := ParseCopcInfo(v.data)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := ReadHierarchy(bytes.NewReader(f.data), int64(len(f.data)), info)
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	var recs [][]byte
	for _, n := range nodes {
		sum += uint64(n.Points)
		if n.Points <= 0 {
			continue
		}
		dst := make([]byte, int(n.Points)*f.recLen)
		if err := r.DecodeAt(n.Offset, int64(n.Bytes), int(n.Points), dst, AllFields); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(n.Points); i++ {
			recs = append(recs, dst[i*f.recLen:(i+1)*f.recLen])
		}
	}
	if sum != f.count {
		t.Fatalf("node point counts add up to %d, header says %d", sum, f.count)
	}
	t.Logf("%d nodes, %d points", len(nodes), sum)
	// Same multiset of records as decoding the file as plain LAZ.
	all := decodeAllBytes(t, r, f, AllFields, 2)
	var plain [][]byte
	for i := 0; i < int(f.count); i++ {
		plain = append(plain, all[i*f.recLen:(i+1)*f.recLen])
	}
	sortRecs := func(a [][]byte) {
		sort.Slice(a, func(i, j int) bool { return bytes.Compare(a[i], a[j]) < 0 })
	}
	sortRecs(recs)
	sortRecs(plain)
	for i := range plain {
		if !bytes.Equal(plain[i], recs[i]) {
			t.Fatalf("record %d of the sorted multisets differs", i)
		}
	}
	// Points lie inside their nodes' cubes.
	sx, sy := f.scale()
	ox, oy := f.offset()
	for _, n := range nodes {
		if n.Points <= 0 {
			continue
		}
		dst := make([]byte, int(n.Points)*f.recLen)
		if err := r.DecodeAt(n.Offset, int64(n.Bytes), int(n.Points), dst, XYZ); err != nil {
			t.Fatal(err)
		}
		b := info.Bounds(n.Key)
		for i := 0; i < int(n.Points); i++ {
			x := float64(int32(le.Uint32(dst[i*f.recLen:])))*sx + ox
			y := float64(int32(le.Uint32(dst[i*f.recLen+4:])))*sy + oy
			if x < b.MinX-sx || x > b.MaxX+sx || y < b.MinY-sy || y > b.MaxY+sy {
				t.Fatalf("node %v: point (%v, %v) outside %+v", n.Key, x, y, b)
			}
		}
	}
	// A quarter of the extent: a proper, non-empty subset of the nodes with points.
	root := info.Bounds(Key{})
	var withPoints int
	for _, n := range nodes {
		if n.Points > 0 {
			withPoints++
		}
	}
	q := NodesIntersecting(nodes, info, root.MinX, root.MinY, (root.MinX+root.MaxX)/2-1e-6, (root.MinY+root.MaxY)/2-1e-6)
	if len(q) == 0 || len(q) >= withPoints {
		t.Fatalf("quarter query: %d of %d nodes", len(q), withPoints)
	}
	t.Logf("quarter query: %d of %d nodes", len(q), withPoints)
}
