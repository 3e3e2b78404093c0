package laz

import (
	"errors"
	"fmt"
)

// The chunk table: an int64 at the start of the point data gives its offset
// (-1 when the writer could not seek back: then the last 8 bytes of the file
// give it). It holds a version (0), the number of chunks, then an arithmetic
// coded stream of each chunk's byte size (and point count when chunks vary),
// each predicted from the previous chunk's.

func (r *Reader) readChunkTable() error {
	var b [8]byte
	if err := readFull(r.src, b[:], r.pointOffset); err != nil {
		return fmt.Errorf("chunk table offset: %w", err)
	}
	chunksStart := r.pointOffset + 8
	ct := int64(le.Uint64(b[:]))
	if ct == -1 {
		if r.size < 8 {
			return errors.New("chunk table offset is -1 and the file is too short to hold it at its end")
		}
		if err := readFull(r.src, b[:], r.size-8); err != nil {
			return fmt.Errorf("chunk table offset at the end of the file: %w", err)
		}
		ct = int64(le.Uint64(b[:]))
	}
	if ct == r.pointOffset || ct == -1 || ct == 0 {
		return r.scanChunks(chunksStart, r.size, "the chunk table is missing")
	}
	if ct < chunksStart || ct > r.size-8 {
		return r.scanChunks(chunksStart, r.size, fmt.Sprintf("chunk table offset %d is outside the point data", ct))
	}
	if err := readFull(r.src, b[:], ct); err != nil {
		return fmt.Errorf("chunk table: %w", err)
	}
	version, n := le.Uint32(b[:]), uint64(le.Uint32(b[4:]))
	if version != 0 {
		return r.scanChunks(chunksStart, ct, fmt.Sprintf("chunk table version %d, want 0", version))
	}
	if n == 0 || n > r.pointCount || int64(n) > ct-chunksStart {
		return fmt.Errorf("chunk table: %d chunks for %d points in %d bytes", n, r.pointCount, ct-chunksStart)
	}
	variable := r.info.ChunkSize == VariableChunkSize
	avail := r.size - (ct + 8)
	want := int64(64 + 20*n)
	if want > avail {
		want = avail
	}
	for {
		buf := make([]byte, want)
		if err := readFull(r.src, buf, ct+8); err != nil {
			return fmt.Errorf("chunk table: %w", err)
		}
		counts, sizes, err := decodeChunkTable(buf, int(n), variable)
		if err == errOverrun && want < avail {
			want = avail
			continue
		}
		if err != nil {
			return fmt.Errorf("chunk table: %w", err)
		}
		return r.setChunks(chunksStart, ct, counts, sizes)
	}
}

func decodeChunkTable(buf []byte, n int, variable bool) (counts, sizes []uint32, err error) {
	var d decoder
	d.init(buf)
	ic := newIntDec(32, 2)
	ic.reset()
	sizes = make([]uint32, n)
	if variable {
		counts = make([]uint32, n)
	}
	var pc, ps int32
	for i := 0; i < n; i++ {
		if variable {
			pc = ic.decompress(&d, pc, 0)
			counts[i] = uint32(pc)
		}
		ps = ic.decompress(&d, ps, 1)
		sizes[i] = uint32(ps)
		if d.pos > len(d.buf) {
			return nil, nil, errOverrun
		}
	}
	if err := d.check(false); err != nil {
		return nil, nil, err
	}
	return counts, sizes, nil
}

// setChunks builds the chunk list from the table and checks it against the
// header: every chunk inside the point data, the point counts adding up.
func (r *Reader) setChunks(start, end int64, counts, sizes []uint32) error {
	n := len(sizes)
	chunks := make([]Chunk, n)
	off := start
	var first uint64
	for i := 0; i < n; i++ {
		var pts uint64
		if counts != nil {
			pts = uint64(counts[i])
		} else {
			pts = uint64(r.info.ChunkSize)
			if rem := r.pointCount - first; rem < pts {
				pts = rem
			}
		}
		if pts == 0 || first+pts > r.pointCount {
			return fmt.Errorf("chunk table: chunk %d of %d holds %d points, beyond the %d points of the header", i, n, pts, r.pointCount)
		}
		if sizes[i] == 0 || off+int64(sizes[i]) > end {
			return fmt.Errorf("chunk table: chunk %d of %d (%d bytes at %d) runs past the point data (ends at %d)", i, n, sizes[i], off, end)
		}
		chunks[i] = Chunk{FirstPoint: first, Points: int(pts), Offset: off, Bytes: int64(sizes[i])}
		off += int64(sizes[i])
		first += pts
	}
	if first != r.pointCount {
		return fmt.Errorf("chunk table: %d chunks hold %d points, the header says %d", n, first, r.pointCount)
	}
	r.chunks = chunks
	return nil
}

// scanChunks finds the chunks of a file without a usable chunk table by
// walking them from the start, as LASzip does: possible only with a fixed
// chunk size. end bounds the point data.
func (r *Reader) scanChunks(start, end int64, why string) error {
	if r.info.ChunkSize == VariableChunkSize || r.info.ChunkSize == 0 {
		return fmt.Errorf("chunk table: %s, and with variable-sized chunks the points cannot be found without it", why)
	}
	rl := int64(r.lay.recLen)
	var chunks []Chunk
	off := start
	var first uint64
	w := r.getWorker()
	defer r.pool.Put(w)
	for first < r.pointCount {
		pts := uint64(r.info.ChunkSize)
		if rem := r.pointCount - first; rem < pts {
			pts = rem
		}
		i := len(chunks)
		var size int64
		if r.lay.layered {
			hdr, err := r.layeredHeader(w, off, end)
			if err != nil {
				return fmt.Errorf("chunk table: %s; scanning: chunk %d: %w", why, i, err)
			}
			size = hdr.total
		} else {
			// Decode the chunk to find where its stream ends.
			avail := end - off
			if avail > maxChunkBytes {
				avail = maxChunkBytes
			}
			if avail < rl {
				return fmt.Errorf("chunk table: %s; scanning: chunk %d: %w", why, i, errOverrun)
			}
			buf := make([]byte, avail)
			if err := readFull(r.src, buf, off); err != nil {
				return fmt.Errorf("chunk table: %s; scanning: chunk %d: %w", why, i, err)
			}
			dst := make([]byte, pts*uint64(rl))
			if err := w.p10.decode(buf, int(pts), dst, false, nil); err != nil {
				return fmt.Errorf("chunk table: %s; scanning: chunk %d: %w", why, i, err)
			}
			size = rl + int64(w.p10.d.pos)
		}
		if off+size > end {
			return fmt.Errorf("chunk table: %s; scanning: chunk %d: %w", why, i, errOverrun)
		}
		chunks = append(chunks, Chunk{FirstPoint: first, Points: int(pts), Offset: off, Bytes: size})
		off += size
		first += pts
	}
	r.chunks = chunks
	return nil
}
