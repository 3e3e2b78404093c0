package cog

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/tiff/lzw"
)

// pixel is a 16-bit test value that differs from tile to tile and row to row.
func pixel(img, r, c int) uint16 { return uint16(img*7919 + r*31 + c*7) }

// tagValues decodes a SHORT, LONG or LONG8 array.
func tagValues(t Tag) []uint64 {
	var out []uint64
	for i := range int(t.Count) {
		switch t.Type {
		case typeShort:
			out = append(out, uint64(binary.LittleEndian.Uint16(t.Value[2*i:])))
		case typeLong:
			out = append(out, uint64(binary.LittleEndian.Uint32(t.Value[4*i:])))
		default:
			out = append(out, binary.LittleEndian.Uint64(t.Value[8*i:]))
		}
	}
	return out
}

func find(tags []Tag, code uint16) Tag {
	for _, t := range tags {
		if t.Code == code {
			return t
		}
	}
	return Tag{}
}

// TestLayout writes a three-image COG (odd sizes, edge tiles, rows handed over in uneven
// pieces) and reads it back with Go's own TIFF directory walk and zlib decoder: every pixel,
// zero padding past the edges, each tile's leader and trailer, the directories before the
// data and the overviews' tiles before the full resolution's, from the smallest.
func TestLayout(t *testing.T) {
	for _, c := range []struct {
		compression uint16
		bigTIFF     string
	}{{Deflate, ""}, {Deflate, "YES"}, {LZW, ""}} {
		bigTIFF := c.bigTIFF
		dir := t.TempDir()
		sizes := [][2]int{{100, 70}, {50, 35}, {25, 17}}
		layout := Layout{Sizes: sizes, Block: 32, SampleBytes: 2, SampleFormat: 1, Compression: c.compression,
			Level: 6, BigTIFF: bigTIFF}
		f, err := Create(filepath.Join(dir, "out.tif"), layout, 3)
		if err != nil {
			t.Fatal(err)
		}
		for img, s := range sizes {
			var rows []byte
			for r := range s[1] {
				for c := range s[0] {
					rows = binary.LittleEndian.AppendUint16(rows, pixel(img, r, c))
				}
			}
			for piece := 1; len(rows) > 0; piece = piece%5 + 1 { // 1 to 5 rows at a time
				n := min(len(rows), piece*s[0]*2)
				if err := f.WriteRows(img, rows[:n]); err != nil {
					t.Fatal(err)
				}
				rows = rows[n:]
			}
		}
		path := filepath.Join(dir, "out.tif")
		nodata := Tag{Code: 42113, Type: 2, Count: 6, Value: []byte("-9999\x00")}
		scale := Tag{Code: 33550, Type: 12, Count: 3, Value: make([]byte, 24)}
		if err := f.Finish(context.Background(), path, []Tag{nodata, scale}); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*.tiles")); len(left) > 0 {
			t.Fatalf("temporary files left: %v", left)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if (file[2] == 43) != (bigTIFF == "YES") {
			t.Fatalf("BIGTIFF=%q: version %d", bigTIFF, file[2])
		}
		if !strings.Contains(string(file[:300]), "LAYOUT=IFDS_BEFORE_DATA") {
			t.Fatal("no ghost header")
		}
		dirs, err := Directories(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(dirs) != len(sizes) {
			t.Fatalf("%d directories, want %d", len(dirs), len(sizes))
		}
		firstData := int64(len(file))
		starts, ends := make([]int64, len(dirs)), make([]int64, len(dirs))
		for img, tags := range dirs {
			s := sizes[img]
			if w, h := tagValues(find(tags, 256)), tagValues(find(tags, 257)); w[0] != uint64(s[0]) || h[0] != uint64(s[1]) {
				t.Fatalf("image %d: %v x %v, want %v", img, w, h, s)
			}
			if (find(tags, 33550).Count != 0) != (img == 0) || find(tags, 42113).Count == 0 {
				t.Fatalf("image %d: descriptive tags %v", img, tags)
			}
			offs, counts := tagValues(find(tags, 324)), tagValues(find(tags, 325))
			across := (s[0] + 31) / 32
			if len(offs) != across*((s[1]+31)/32) {
				t.Fatalf("image %d: %d tiles", img, len(offs))
			}
			for k, off := range offs {
				n := counts[k]
				rec := file[off-4 : off+n+4]
				if binary.LittleEndian.Uint32(rec) != uint32(n) || !bytes.Equal(rec[4+n-4:4+n], rec[4+n:]) {
					t.Fatalf("image %d tile %d: leader or trailer wrong", img, k)
				}
				var zr io.Reader = lzw.NewReader(bytes.NewReader(rec[4:4+n]), lzw.MSB, 8)
				if c.compression == Deflate {
					if zr, err = zlib.NewReader(bytes.NewReader(rec[4 : 4+n])); err != nil {
						t.Fatal(err)
					}
				}
				pix, err := io.ReadAll(zr)
				if err != nil || len(pix) != 32*32*2 {
					t.Fatalf("image %d tile %d: %d bytes, %v", img, k, len(pix), err)
				}
				for y := range 32 {
					for x := range 32 {
						r, c := k/across*32+y, k%across*32+x
						want := uint16(0)
						if r < s[1] && c < s[0] {
							want = pixel(img, r, c)
						}
						if got := binary.LittleEndian.Uint16(pix[2*(y*32+x):]); got != want {
							t.Fatalf("image %d pixel (%d, %d): %d, want %d", img, r, c, got, want)
						}
					}
				}
				firstData = min(firstData, int64(off)-4)
				if k > 0 && off <= offs[k-1] {
					t.Fatalf("image %d: tiles not in row-major order", img)
				}
			}
			starts[img], ends[img] = int64(offs[0])-4, int64(offs[len(offs)-1]+counts[len(counts)-1]+4)
		}
		// the smallest overview's tiles first, the full resolution's last, at the file's end
		for img := range len(dirs) - 1 {
			if starts[img] != ends[img+1] {
				t.Fatalf("image %d's tiles start at %d, image %d's end at %d", img, starts[img], img+1, ends[img+1])
			}
		}
		if ends[0] != int64(len(file)) {
			t.Fatalf("the full resolution ends at %d, the file at %d", ends[0], len(file))
		}
		first := int64(binary.LittleEndian.Uint32(file[4:]))
		if bigTIFF != "" {
			first = int64(binary.LittleEndian.Uint64(file[8:]))
		}
		if first >= firstData {
			t.Fatalf("the first directory at %d, after the data at %d", first, firstData)
		}
	}
}

// TestAbortRemovesEverything: an aborted COG leaves neither its temporary files nor a file.
func TestAbortRemovesEverything(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.tif"), Layout{Sizes: [][2]int{{64, 64}}, Block: 16, SampleBytes: 4,
		SampleFormat: 3, Compression: Deflate, Level: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteRows(0, make([]byte, 20*64*4)); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	f.Abort()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Fatalf("left: %v", left)
	}
}
