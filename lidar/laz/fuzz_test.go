package laz

import (
	"bytes"
	"context"
	"testing"
)

// FuzzDecode feeds mutated files to the decoder under the header and VLRs of
// one of the fixtures (chosen by which), and asserts only that nothing
// panics or hangs: the chunk table, the chunks and the COPC hierarchy are
// all read from the mutated bytes.
func FuzzDecode(f *testing.F) {
	names := []string{"simple.laz", "1_4_w_evlr.laz", "simple.copc.laz", "extra.laz"}
	var heads []*lasFile
	for i, n := range names {
		h, err := parseLAS(fixture(n))
		if err != nil {
			f.Fatal(err)
		}
		heads = append(heads, h)
		f.Add(uint8(i), h.data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		h := heads[int(which)%len(heads)]
		if len(data) >= 34 {
			ParseVLR(data[:min(len(data), 34+int(data[0])%64)])
		}
		r, err := openBytes(h, data)
		if err != nil {
			return
		}
		dst := make([]byte, int(h.count)*h.recLen)
		r.DecodeAll(context.Background(), 2, AllFields, dst)
		r.DecodeAll(context.Background(), 1, XYZ, dst)
		for i := range r.Chunks() {
			r.DecodeChunk(i, dst, Classification|GPSTime)
		}
		if v := h.find("copc", 1); v != nil {
			info, err := ParseCopcInfo(v.data)
			if err != nil {
				return
			}
			nodes, err := ReadHierarchy(bytes.NewReader(data), int64(len(data)), info)
			if err != nil {
				return
			}
			budget := int64(2 * h.count)
			for _, n := range nodes {
				budget -= int64(n.Points)
				if budget < 0 {
					break
				}
				if n.Points <= 0 {
					continue
				}
				buf := make([]byte, int(n.Points)*h.recLen)
				r.DecodeAt(n.Offset, int64(n.Bytes), int(n.Points), buf, AllFields)
			}
		}
	})
}
