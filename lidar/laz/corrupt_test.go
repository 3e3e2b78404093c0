package laz

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

var chunkNamed = regexp.MustCompile(`chunk \d+( of \d+)?`)

// decodeData opens data with the header of fixture f and decodes all points.
func decodeData(f *lasFile, data []byte, sel Fields) ([]byte, error) {
	r, err := openBytes(f, data)
	if err != nil {
		return nil, err
	}
	dst := make([]byte, int(f.count)*f.recLen)
	return dst, r.DecodeAll(context.Background(), 2, sel, dst)
}

func TestTruncated(t *testing.T) {
	for _, name := range []string{"simple.laz", "autzen_trim.laz", "1_4_w_evlr.laz", "fullwave.laz", "simple.copc.laz"} {
		f, r := openLAZ(t, name)
		ch := r.Chunks()
		last := ch[len(ch)-1]
		// Cut inside the last chunk: the chunk table goes too.
		for _, cut := range []int64{last.Offset + last.Bytes/2, last.Offset + 3, ch[0].Offset + ch[0].Bytes/3} {
			_, err := decodeData(f, f.data[:cut], AllFields)
			if err == nil {
				t.Errorf("%s cut at %d: no error", name, cut)
				continue
			}
			if !chunkNamed.MatchString(err.Error()) && !bytes.Contains([]byte(err.Error()), []byte("chunk table")) {
				t.Errorf("%s cut at %d: error names no chunk: %v", name, cut, err)
			}
			t.Logf("%s cut at %d: %v", name, cut, err)
		}
	}
}

// A file whose chunk table is gone (fixed-size chunks): the chunks are found
// by walking them, as LASzip does, and the points are all there.
func TestMissingChunkTable(t *testing.T) {
	for _, name := range []string{"autzen_trim.laz", "simple.laz", "1_4_w_evlr.laz", "fullwave.laz"} {
		f, r := openLAZ(t, name)
		want := decodeAllBytes(t, r, f, AllFields, 1)
		ch := r.Chunks()
		end := ch[len(ch)-1].Offset + ch[len(ch)-1].Bytes
		got, err := decodeData(f, f.data[:end], AllFields)
		if err != nil {
			t.Fatalf("%s without chunk table: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s without chunk table: %s", name, firstDiff(got, want, f.recLen))
		}
		// Offset -1 with the real offset in the last 8 bytes.
		data := append([]byte(nil), f.data...)
		ct := le.Uint64(data[f.pointOffset:])
		le.PutUint64(data[f.pointOffset:], ^uint64(0))
		data = le.AppendUint64(data, ct)
		if got, err = decodeData(f, data, AllFields); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s with chunk table offset -1: %v", name, err)
		}
	}
}

func TestFlippedBytes(t *testing.T) {
	for _, name := range []string{"autzen_trim.laz", "simple.laz", "1_4_w_evlr.laz", "fullwave.laz", "simple.copc.laz"} {
		f, r := openLAZ(t, name)
		want := decodeAllBytes(t, r, f, AllFields, 1)
		ch := r.Chunks()
		ci := len(ch) / 2
		c := ch[ci]
		var errs, same, silent int
		for k := 1; k < 40; k++ {
			pos := c.Offset + int64(f.recLen) + 60 + (c.Bytes-int64(f.recLen)-60)*int64(k)/40
			data := append([]byte(nil), f.data...)
			data[pos] ^= 0x5A
			got, err := decodeData(f, data, AllFields)
			switch {
			case err != nil:
				errs++
				if !chunkNamed.MatchString(err.Error()) {
					t.Errorf("%s flip at %d: error names no chunk: %v", name, pos, err)
				}
			case bytes.Equal(got, want):
				same++
			default:
				silent++
				t.Logf("%s flip at %d (chunk %d): no error, wrong points: %s", name, pos, ci, firstDiff(got, want, f.recLen))
			}
		}
		t.Logf("%s chunk %d of %d: 39 flips: %d errors, %d harmless, %d silent", name, ci, len(ch), errs, same, silent)
		// LAZ has no checksums: a flip is caught when the arithmetic decoder
		// ends up in an impossible state or does not end exactly at the end
		// of its stream. Large streams (point10 chunks, big layers) always
		// show it; the tiny per-layer streams of small COPC nodes may not.
		if f.format&0x3f < 6 && silent > 0 {
			t.Errorf("%s: %d flips inside a point10 chunk went unnoticed", name, silent)
		}
	}
}

func TestBadChunkTable(t *testing.T) {
	f, r := openLAZ(t, "autzen_trim.laz")
	want := decodeAllBytes(t, r, f, AllFields, 1)
	ct := int64(le.Uint64(f.data[f.pointOffset:]))
	for _, tc := range []struct {
		name string
		edit func(d []byte)
	}{
		{"version", func(d []byte) { d[ct] = 7 }},
		{"count", func(d []byte) { le.PutUint32(d[ct+4:], 1000) }},
		{"zero chunks", func(d []byte) { le.PutUint32(d[ct+4:], 0) }},
		{"stream byte 0", func(d []byte) { d[ct+8] ^= 0x40 }},
		{"stream byte 2", func(d []byte) { d[ct+10] ^= 0x01 }},
		{"stream byte 5", func(d []byte) { d[ct+13] ^= 0x80 }},
		{"offset past end", func(d []byte) { le.PutUint64(d[f.pointOffset:], uint64(len(d))+100) }},
		{"offset inside the points", func(d []byte) { le.PutUint64(d[f.pointOffset:], uint64(f.pointOffset+5000)) }},
	} {
		data := append([]byte(nil), f.data...)
		tc.edit(data)
		got, err := decodeData(f, data, AllFields)
		if err == nil {
			if !bytes.Equal(got, want) {
				t.Errorf("%s: no error, wrong points", tc.name)
			} else {
				t.Logf("%s: recovered (chunks found by walking them)", tc.name)
			}
			continue
		}
		t.Logf("%s: %v", tc.name, err)
	}
}
