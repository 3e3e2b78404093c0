package laz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Chunk is one independently decodable run of points.
type Chunk struct {
	FirstPoint uint64 // index of the chunk's first point in the file
	Points     int
	Offset     int64 // file offset of the chunk's compressed bytes
	Bytes      int64
}

// Reader decodes the point data of one LAZ file. Its methods are safe for
// concurrent use.
type Reader struct {
	src         io.ReaderAt
	size        int64
	info        *Info
	lay         *layout
	pointOffset int64
	pointCount  uint64
	chunks      []Chunk
	exact       bool // chunk sizes are known exactly (chunk table or scan)
	pool        sync.Pool
}

// maxChunkBytes bounds what one chunk may claim, so that a corrupt chunk
// table cannot make us allocate without limit.
const maxChunkBytes = 1 << 31

// Open prepares to decode the point data of a LAZ file of size bytes: info
// is its LASzip VLR, pointOffset the header's offset to point data,
// pointCount and recordLength the header's point count and record length.
// It reads the chunk table (for compressors 2 and 3).
func Open(src io.ReaderAt, size int64, info *Info, pointOffset int64, pointCount uint64, recordLength int) (*Reader, error) {
	lay, err := newLayout(info, recordLength)
	if err != nil {
		return nil, err
	}
	if pointOffset < 0 || pointOffset > size {
		return nil, fmt.Errorf("point data offset %d outside the file (%d bytes)", pointOffset, size)
	}
	r := &Reader{src: src, size: size, info: info, lay: lay, pointOffset: pointOffset, pointCount: pointCount, exact: true}
	if pointCount == 0 {
		return r, nil
	}
	if info.Compressor == CompressorPointwise {
		if pointCount > 1<<40 {
			return nil, fmt.Errorf("point count %d too large", pointCount)
		}
		// One arithmetic stream for all points, without a chunk table; its end is not recorded.
		r.chunks = []Chunk{{FirstPoint: 0, Points: int(pointCount), Offset: pointOffset, Bytes: size - pointOffset}}
		r.exact = false
		return r, nil
	}
	if err := r.readChunkTable(); err != nil {
		return nil, err
	}
	return r, nil
}

// Info returns the LASzip VLR the reader was opened with.
func (r *Reader) Info() *Info { return r.info }

// RecordLength is the length of one point record.
func (r *Reader) RecordLength() int { return r.lay.recLen }

// Chunks lists the chunks in file order.
func (r *Reader) Chunks() []Chunk { return r.chunks }

type worker struct {
	p10 *p10Decoder
	p14 *p14Decoder
	buf []byte
}

func (r *Reader) getWorker() *worker {
	if w, ok := r.pool.Get().(*worker); ok {
		return w
	}
	w := &worker{}
	if r.lay.layered {
		w.p14 = newP14Decoder(r.lay)
	} else {
		w.p10 = newP10Decoder(r.lay)
	}
	return w
}

func (w *worker) grow(n int) []byte {
	if cap(w.buf) < n {
		w.buf = make([]byte, n)
	}
	return w.buf[:n]
}

// DecodeChunk decodes chunk i into dst (len(dst) >= Points*RecordLength) as
// LAS point records. Errors name the chunk ("chunk 3 of 12: ...", indexes
// from 0).
func (r *Reader) DecodeChunk(i int, dst []byte, sel Fields) error {
	return r.decodeChunk(i, dst, sel, nil)
}

func (r *Reader) decodeChunk(i int, dst []byte, sel Fields, stop func() bool) error {
	if i < 0 || i >= len(r.chunks) {
		return fmt.Errorf("chunk %d of %d: no such chunk", i, len(r.chunks))
	}
	c := r.chunks[i]
	if err := r.decode(c.Offset, c.Bytes, c.Points, dst, sel, r.exact, stop); err != nil {
		return fmt.Errorf("chunk %d of %d (offset %d, %d bytes, %d points): %w", i, len(r.chunks), c.Offset, c.Bytes, c.Points, err)
	}
	return nil
}

// DecodeAt decodes the chunk of points points whose compressed bytes are
// [offset, offset+bytes) (a COPC node is one such chunk).
func (r *Reader) DecodeAt(offset, bytes int64, points int, dst []byte, sel Fields) error {
	if err := r.decode(offset, bytes, points, dst, sel, true, nil); err != nil {
		return fmt.Errorf("chunk at offset %d (%d bytes, %d points): %w", offset, bytes, points, err)
	}
	return nil
}

func (r *Reader) decode(offset, bytes int64, points int, dst []byte, sel Fields, exact bool, stop func() bool) error {
	if points < 0 || bytes < 0 || offset < 0 || offset > r.size || bytes > r.size-offset || bytes > maxChunkBytes {
		return fmt.Errorf("chunk outside the file (%d bytes)", r.size)
	}
	if points == 0 {
		return nil
	}
	if len(dst)/r.lay.recLen < points {
		return errDst
	}
	w := r.getWorker()
	defer r.pool.Put(w)
	if r.lay.layered {
		return w.p14.decode(r.src, offset, bytes, points, dst, sel, stop, w)
	}
	buf := w.grow(int(bytes))
	if err := readFull(r.src, buf, offset); err != nil {
		return err
	}
	return w.p10.decode(buf, points, dst, exact, stop)
}

func readFull(src io.ReaderAt, buf []byte, off int64) error {
	n, err := src.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading %d bytes at %d: %w", len(buf), off, err)
}

// DecodeAll decodes every chunk into its place in dst (len(dst) >=
// pointCount*RecordLength), in canonical point order, on workers goroutines.
// It stops soon after ctx is cancelled and returns ctx.Err(); otherwise it
// returns the error of the first failing chunk (in chunk order).
func (r *Reader) DecodeAll(ctx context.Context, workers int, sel Fields, dst []byte) error {
	rl := r.lay.recLen
	if uint64(len(dst))/uint64(rl) < r.pointCount {
		return fmt.Errorf("%w: need %d points of %d bytes", errDst, r.pointCount, rl)
	}
	if workers < 1 {
		workers = 1
	}
	if workers > len(r.chunks) {
		workers = len(r.chunks)
	}
	var stopped atomic.Bool
	stop := stopped.Load
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			stopped.Store(true)
		case <-done:
		}
	}()
	var next atomic.Int64
	var mu sync.Mutex
	firstErr, firstIdx := error(nil), len(r.chunks)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(r.chunks) {
					return
				}
				c := r.chunks[i]
				err := r.decodeChunk(i, dst[c.FirstPoint*uint64(rl):], sel, stop)
				if err != nil {
					if errors.Is(err, errStopped) {
						return
					}
					mu.Lock()
					if i < firstIdx {
						firstErr, firstIdx = err, i
					}
					mu.Unlock()
					stopped.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstErr
}
