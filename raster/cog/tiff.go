package cog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// TIFF field types (TIFF 6.0 and BigTIFF) and their sizes in bytes.
const (
	typeShort = 3
	typeLong  = 4
	typeLong8 = 16
)

var typeSize = map[uint16]int{1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8,
	16: 8, 17: 8, 18: 8}

// Tag is a TIFF directory entry: its code, field type, count and value bytes (little-endian).
type Tag struct {
	Code, Type uint16
	Count      uint64
	Value      []byte
}

// structural are the tags that describe how an image's pixels are stored: the COG writes its
// own, and copies the others (georeferencing, nodata, GDAL's metadata) from the source.
var structural = map[uint16]bool{254: true, 256: true, 257: true, 258: true, 259: true, 262: true,
	273: true, 277: true, 278: true, 279: true, 284: true, 317: true, 322: true, 323: true, 324: true,
	325: true, 338: true, 339: true, 340: true, 341: true}

// Descriptive returns tags without those that describe the pixels' storage.
func Descriptive(tags []Tag) []Tag {
	return slices.DeleteFunc(slices.Clone(tags), func(t Tag) bool { return structural[t.Code] })
}

// ReadTags reads the first directory of a little-endian TIFF or BigTIFF file.
func ReadTags(path string) ([]Tag, error) {
	dirs, err := readDirectories(path, 1)
	if err != nil {
		return nil, err
	}
	return dirs[0], nil
}

// Directories reads every directory of a little-endian TIFF or BigTIFF file: the image's,
// then its overviews' in a COG.
func Directories(path string) ([][]Tag, error) { return readDirectories(path, 1<<10) }

func readDirectories(path string, most int) ([][]Tag, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	le := binary.LittleEndian
	head := make([]byte, 16)
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var big bool
	var off uint64
	switch {
	case string(head[:2]) != "II":
		return nil, fmt.Errorf("%s: not a little-endian TIFF", path)
	case le.Uint16(head[2:]) == 42:
		off = uint64(le.Uint32(head[4:]))
	case le.Uint16(head[2:]) == 43:
		big, off = true, le.Uint64(head[8:])
	default:
		return nil, fmt.Errorf("%s: not a TIFF", path)
	}
	var dirs [][]Tag
	for off != 0 && len(dirs) < most {
		tags, next, err := readIFD(f, int64(off), big)
		if err != nil {
			return nil, fmt.Errorf("reading the TIFF directory at %d of %s: %w", off, path, err)
		}
		dirs, off = append(dirs, tags), next
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s: a TIFF without images", path)
	}
	return dirs, nil
}

// readIFD reads the directory at off and returns its tags and the next directory's offset.
func readIFD(r io.ReaderAt, off int64, big bool) ([]Tag, uint64, error) {
	le := binary.LittleEndian
	countSize, entrySize, inline := 2, 12, 4
	if big {
		countSize, entrySize, inline = 8, 20, 8
	}
	buf := make([]byte, countSize)
	if _, err := r.ReadAt(buf, off); err != nil {
		return nil, 0, err
	}
	n := uint64(le.Uint16(buf))
	if big {
		n = le.Uint64(buf)
	}
	if n > 4096 {
		return nil, 0, fmt.Errorf("%d directory entries", n)
	}
	entries := make([]byte, int(n)*entrySize+inline)
	if _, err := r.ReadAt(entries, off+int64(countSize)); err != nil {
		return nil, 0, err
	}
	tags := make([]Tag, 0, n)
	for e := range int(n) {
		b := entries[e*entrySize:]
		t := Tag{Code: le.Uint16(b), Type: le.Uint16(b[2:])}
		field := b[8:12]
		if big {
			t.Count, field = le.Uint64(b[4:]), b[12:20]
		} else {
			t.Count = uint64(le.Uint32(b[4:]))
		}
		size, ok := typeSize[t.Type]
		if !ok || t.Count > 1<<28 {
			return nil, 0, fmt.Errorf("tag %d: field type %d, count %d", t.Code, t.Type, t.Count)
		}
		t.Value = make([]byte, int(t.Count)*size)
		if len(t.Value) <= inline {
			copy(t.Value, field)
		} else {
			at := uint64(le.Uint32(field))
			if big {
				at = le.Uint64(field)
			}
			if _, err := r.ReadAt(t.Value, int64(at)); err != nil {
				return nil, 0, fmt.Errorf("tag %d: %w", t.Code, err)
			}
		}
		tags = append(tags, t)
	}
	next := entries[int(n)*entrySize:]
	if big {
		return tags, le.Uint64(next), nil
	}
	return tags, uint64(le.Uint32(next)), nil
}

// shortOrLong is a SHORT tag when v fits one, as libtiff writes sizes, else a LONG.
func shortOrLong(code uint16, v uint32) Tag {
	if v <= 0xffff {
		return shorts(code, uint16(v))
	}
	return Tag{Code: code, Type: typeLong, Count: 1, Value: binary.LittleEndian.AppendUint32(nil, v)}
}

func shorts(code uint16, v ...uint16) Tag {
	t := Tag{Code: code, Type: typeShort, Count: uint64(len(v))}
	for _, x := range v {
		t.Value = binary.LittleEndian.AppendUint16(t.Value, x)
	}
	return t
}

// offsets is the tiles' offsets: LONG in a TIFF, LONG8 in a BigTIFF.
func offsets(v []uint64, big bool) Tag { return longs(324, v, big) }

// byteCounts is the tiles' sizes: LONG, also in a BigTIFF when they fit and are more than one,
// as libtiff 4.5 writes them (one fits the entry as a LONG8).
func byteCounts(v []uint64, big bool) Tag {
	return longs(325, v, big && (len(v) == 1 || slices.Max(v) > 0xffffffff))
}

func longs(code uint16, v []uint64, long8 bool) Tag {
	t := Tag{Code: code, Type: typeLong, Count: uint64(len(v))}
	if long8 {
		t.Type = typeLong8
	}
	for _, x := range v {
		if long8 {
			t.Value = binary.LittleEndian.AppendUint64(t.Value, x)
		} else {
			t.Value = binary.LittleEndian.AppendUint32(t.Value, uint32(x))
		}
	}
	return t
}

// ifdSize is the bytes a directory of tags takes with its values stored after it.
func ifdSize(tags []Tag, big bool) int64 {
	countSize, entrySize, nextSize, inline := 2, 12, 4, 4
	if big {
		countSize, entrySize, nextSize, inline = 8, 20, 8, 8
	}
	n := int64(countSize + entrySize*len(tags) + nextSize)
	for _, t := range tags {
		if len(t.Value) > inline {
			n += int64(len(t.Value)+1) &^ 1 // values start on a word boundary
		}
	}
	return n
}

// appendIFD encodes a directory at file offset at, whose next directory is at next (0: none),
// its values after it; tags are sorted by code, as TIFF requires.
func appendIFD(out []byte, at int64, tags []Tag, next int64, big bool) []byte {
	le := binary.LittleEndian
	tags = slices.SortedFunc(slices.Values(tags), func(a, b Tag) int { return int(a.Code) - int(b.Code) })
	countSize, entrySize, nextSize, inline := 2, 12, 4, 4
	if big {
		countSize, entrySize, nextSize, inline = 8, 20, 8, 8
	}
	values := at + int64(countSize+entrySize*len(tags)+nextSize)
	if big {
		out = le.AppendUint64(out, uint64(len(tags)))
	} else {
		out = le.AppendUint16(out, uint16(len(tags)))
	}
	var data []byte
	for _, t := range tags {
		out = le.AppendUint16(le.AppendUint16(out, t.Code), t.Type)
		field := make([]byte, inline)
		if len(t.Value) <= inline {
			copy(field, t.Value)
		} else {
			pos := uint64(values) + uint64(len(data))
			if big {
				le.PutUint64(field, pos)
			} else {
				le.PutUint32(field, uint32(pos))
			}
			data = append(data, t.Value...)
			if len(data)%2 == 1 {
				data = append(data, 0)
			}
		}
		if big {
			out = le.AppendUint64(out, t.Count)
		} else {
			out = le.AppendUint32(out, uint32(t.Count))
		}
		out = append(out, field...)
	}
	if big {
		out = le.AppendUint64(out, uint64(next))
	} else {
		out = le.AppendUint32(out, uint32(next))
	}
	return append(out, data...)
}
