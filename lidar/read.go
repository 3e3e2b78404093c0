package lidar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/sample"
)

// Source is a LAS or LAZ file opened for ranged reads: a local file, or a file of GDAL's
// virtual file systems (gdalio opens those), so that a remote COPC fetches only what it needs.
type Source interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// Opener opens a path as a Source.
type Opener func(path string) (Source, error)

// localFile is a Source on a local file.
type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

// OpenLocal opens a local file as a Source.
func OpenLocal(path string) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{f, st.Size()}, nil
}

// File is a LAS or LAZ file whose header, VLRs and EVLRs are read and checked.
type File struct {
	Header
	src Source
	// chunkPoints, when positive, is the points per chunk of a LAS file (tests make it small).
	chunkPoints int
}

// Open reads and checks the header, VLRs and EVLRs of a LAS or LAZ file, so that every offset
// they state is checked against the file's size before any point is read.
func Open(src Source) (*File, error) {
	size := src.Size()
	h, v, err := readHeader(src, size)
	if err != nil {
		return nil, err
	}
	// LAZ's points take fewer bytes than the header's count says: its EVLRs follow the
	// compressed points, anywhere after their start.
	end := h.pointsEnd()
	if h.Compressed {
		end = h.PointOffset
	}
	if err := v.readEVLRs(src, end, size); err != nil {
		return nil, err
	}
	if h.SRS, err = v.resolve(); err != nil {
		return nil, err
	}
	return &File{Header: h, src: src}, nil
}

// ReadHeader opens path and returns its header.
func ReadHeader(open Opener, path string) (Header, error) {
	src, err := open(path)
	if err != nil {
		return Header{}, err
	}
	defer src.Close()
	f, err := Open(src)
	if err != nil {
		return Header{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return f.Header, nil
}

// Read appends to dst the points that pass the filter, relative to dst's origin and in dst's
// form, decoding on every core, and returns how many points the filter dropped for a value
// that is not finite. A file that is truncated or inconsistent is an error, and dst is then
// left as it was; so is a cancelled ctx, which stops the reading within a chunk.
func (f *File) Read(ctx context.Context, flt Filter, dst *sample.Samples) (int, error) {
	if err := flt.Validate(); err != nil {
		return 0, err
	}
	d, err := newPointDecoder(f.Header, flt, dst)
	if err != nil {
		return 0, err
	}
	p, err := f.plan(ctx, d)
	if err == nil {
		var bad int
		if bad, err = readChunks(ctx, p, f.RecordLength, d, dst, nil); err == nil {
			return bad, nil
		}
	}
	if ctx.Err() != nil {
		return 0, ctx.Err() // a cancelled read says so, not where it stopped
	}
	return 0, err
}

// Each decodes the points that pass the filter chunk by chunk on every core, and hands each
// chunk's samples to fn in file order, one call at a time: a batch of at most a chunk (about
// 1 MiB of records; a LAZ chunk or a COPC node), in proto's form and relative to its origin
// (proto itself is left alone). Memory follows the chunks in flight, not the file, so a pass
// over a survey that keeps little (a census, a tile) holds little. It returns how many points
// the filter dropped for a value that is not finite; an error of fn stops the reading.
func (f *File) Each(ctx context.Context, flt Filter, proto *sample.Samples, fn func(batch *sample.Samples) error) (int, error) {
	if err := flt.Validate(); err != nil {
		return 0, err
	}
	d, err := newPointDecoder(f.Header, flt, proto)
	if err != nil {
		return 0, err
	}
	p, err := f.plan(ctx, d)
	if err == nil {
		var bad int
		if bad, err = eachChunk(ctx, p, f.RecordLength, d, proto, fn); err == nil {
			return bad, nil
		}
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return 0, err
}

// plan is how a file's points are read: the chunks (runs of consecutive points, read and
// decoded as one) and what fills a chunk's buffer with its uncompressed records.
type plan struct {
	chunks  []span
	fill    func(c int, buf []byte) error
	workers int      // goroutines that decode chunks
	scratch *scratch // the workers' record buffers, kept from one readChunks to the next
}

// scratch keeps record buffers for readChunks's workers from one call to the next: a stream
// calls it for every window, 240 times for 1e9 points, and 32 workers' megabyte each made
// 7.5 GB of allocations. Its methods take a nil scratch as one that keeps nothing.
type scratch struct {
	mu   sync.Mutex
	free [][]byte
}

// get is a buffer of n bytes.
func (s *scratch) get(n int) []byte {
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, b := range s.free {
			if cap(b) >= n {
				s.free[i] = s.free[len(s.free)-1]
				s.free = s.free[:len(s.free)-1]
				return b[:n]
			}
		}
	}
	return make([]byte, n)
}

// put keeps b for a later get.
func (s *scratch) put(b []byte) {
	if s != nil {
		s.mu.Lock()
		s.free = append(s.free, b)
		s.mu.Unlock()
	}
}

// plan reads a LAS file in chunks of about 1 MiB of records, and a LAZ file by its own chunks
// (see lazPlan).
func (f *File) plan(ctx context.Context, d *pointDecoder) (plan, error) {
	src := ctxReader{ctx, f.src}
	if f.Compressed {
		return f.lazPlan(src, d)
	}
	per := lasChunkPoints(f.RecordLength)
	if f.chunkPoints > 0 {
		per = f.chunkPoints
	}
	var chunks []span
	for first := 0; first < f.PointCount; first += per {
		chunks = append(chunks, span{first, min(per, f.PointCount-first)})
	}
	return plan{chunks: chunks, fill: func(c int, buf []byte) error {
		off := f.PointOffset + int64(chunks[c].first)*int64(f.RecordLength)
		return readFull(src, buf, off, "the point records")
	}, workers: min(runtime.GOMAXPROCS(0), lasDecoders)}, nil
}

// lasDecoders is the most goroutines that decode a LAS file: its decoding moves memory more
// than it computes, and more threads fault its pages in against each other. On a host with
// four H200 and 64 cores, the survey's in-memory run (scripts/gpu-survey.sh) took 26-29 CPU-s
// of system time with the cap against 46-50 without. A LAZ file's chunks decode on every core.
const lasDecoders = 32

// eachChunk decodes p's chunks on p.workers goroutines, each into a batch of its own, and
// hands the batches to fn in chunk order: a worker whose chunk is done waits for the chunks
// before it.
// Chunks are taken in order, so the ones before a waiting worker's are all being worked on.
func eachChunk(ctx context.Context, p plan, recLen int, d *pointDecoder, proto *sample.Samples,
	fn func(*sample.Samples) error) (int, error) {
	biggest := 0
	for _, c := range p.chunks {
		biggest = max(biggest, c.n)
	}
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		turn   int
		first  error
		bad    int
		failed atomic.Bool // no more work once an error is known
	)
	ready := sync.NewCond(&mu)
	for range min(p.workers, len(p.chunks)) {
		wg.Go(func() {
			buf := make([]byte, biggest*recLen)
			for {
				c := int(next.Add(1) - 1)
				if c >= len(p.chunks) {
					return
				}
				batch := &sample.Samples{OriginX: proto.OriginX, OriginY: proto.OriginY,
					QuantumX: proto.QuantumX, QuantumY: proto.QuantumY}
				nonFinite := 0
				err := ctx.Err()
				if err == nil && !failed.Load() {
					b := buf[:p.chunks[c].n*recLen]
					if err = p.fill(c, b); err == nil {
						batch.Grow(p.chunks[c].n)
						k, fits := d.decodeInto(b, batch, 0, &nonFinite)
						batch.Truncate(k)
						if !fits {
							err = ErrOffLattice
						}
					}
				}
				mu.Lock()
				for turn != c {
					ready.Wait()
				}
				if first == nil && err == nil {
					bad += nonFinite
					err = fn(batch)
				}
				if first == nil && err != nil {
					first = err
					failed.Store(true)
				}
				turn++
				ready.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return bad, first
}

// ctxReader reads from a Source in pieces, checking ctx between them: a read from a slow or
// remote source (GDAL's /vsicurl/) stops within a piece of the cancellation, not a chunk.
type ctxReader struct {
	ctx context.Context
	src Source
}

// ctxPiece is the most one read asks at once: a quarter of a second at 1 MB/s.
const ctxPiece = 256 << 10

func (r ctxReader) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		if err := r.ctx.Err(); err != nil {
			return n, err
		}
		m, err := r.src.ReadAt(b[n:min(len(b), n+ctxPiece)], off+int64(n))
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// lasChunkPoints is how many points one read takes: about 1 MiB, large enough that a read costs
// little beside the decoding, small enough to stay in cache and balance the cores.
func lasChunkPoints(recLen int) int { return max(1, (1<<20)/recLen) }

// span is a run of consecutive points of a file: a chunk that is read and decoded as one.
type span struct{ first, n int }

// readChunks decodes the chunks of a file (p) on p.workers goroutines, each into its own span
// of dst, the records of chunk c put into a buffer by p.fill; the spans are closed up in file
// order as they are decoded (see gatherer), so the samples keep the file's order whatever the
// scheduling. decoded, when set, sees each chunk's span of dst, at..at+k-1, on the worker
// that decoded it, while the samples are in its cache.
func readChunks(ctx context.Context, p plan, recLen int, d *pointDecoder, dst *sample.Samples, decoded func(at, k int)) (int, error) {
	chunks, fill := p.chunks, p.fill
	base, total := dst.Len(), 0
	biggest := 0
	for _, c := range chunks {
		total += c.n
		biggest = max(biggest, c.n)
	}
	dst.GrowIn(memory.ArenaOf(ctx), total)
	nonFinite := make([]int, len(chunks))
	g := gatherer{kept: make([]int, len(chunks)), to: base, move: func(to, c, k int) {
		if at := base + chunks[c].first; at != to {
			dst.Move(to, at, k)
		}
	}}
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, len(chunks))
	)
	for range min(p.workers, len(chunks)) {
		wg.Go(func() {
			buf := p.scratch.get(biggest * recLen)
			defer p.scratch.put(buf)
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[c] = err
					failed.Store(true)
					return
				}
				b := buf[:chunks[c].n*recLen]
				if err := fill(c, b); err != nil {
					errs[c] = err
					failed.Store(true)
					return
				}
				kept, fits := d.decodeInto(b, dst, base+chunks[c].first, &nonFinite[c])
				if !fits {
					errs[c] = ErrOffLattice
					failed.Store(true)
					return
				}
				if decoded != nil {
					decoded(base+chunks[c].first, kept)
				}
				g.decoded(c, kept)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		dst.Truncate(base)
		if cerr := ctx.Err(); cerr != nil {
			return 0, cerr
		}
		return 0, err
	}
	bad := 0
	for _, k := range nonFinite {
		bad += k
	}
	dst.Truncate(g.to)
	return bad, nil
}

// gatherer closes up decoded chunks in file order while the workers decode: the worker that
// finds none gathering moves every decoded chunk from the first one not yet moved, down to
// where the samples before it end, the others going back to decoding: moving them once every
// chunk was decoded took one core a pass over the samples while the others waited. A move
// reads its own chunk and writes below it, over chunks already moved, never over a chunk
// being decoded.
type gatherer struct {
	mu     sync.Mutex
	kept   []int // 1 + the samples each chunk keeps, once decoded; 0 before
	turn   int   // the first chunk not yet moved
	to     int   // where it goes
	moving bool  // a worker is moving chunks
	move   func(to, c, k int)
}

// decoded says that chunk c is decoded, keeping k samples, and moves what it can.
func (g *gatherer) decoded(c, k int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.kept[c] = k + 1
	if g.moving {
		return
	}
	g.moving = true
	for g.turn < len(g.kept) && g.kept[g.turn] > 0 {
		t, to, k := g.turn, g.to, g.kept[g.turn]-1
		g.turn, g.to = t+1, to+k
		g.mu.Unlock()
		g.move(to, t, k)
		g.mu.Lock()
	}
	g.moving = false
}

// Cloud is the points of several files read as one.
type Cloud struct {
	Samples *sample.Samples
	Headers []Header // each file's
	// NonFinite counts the points dropped for a value that is not finite.
	NonFinite int
	// Box is the streamed samples' bounding box (Stream; Samples.Bounds gives a read's).
	Box [4]float64
}

// ReadFiles reads the points of LAS/LAZ files that pass the filter as one set of samples. The
// samples are compact (see sample.Samples) when every point
// lies on one lattice, that is when the files share their scales and their offsets are whole
// multiples of them, as tiles of one survey do; else plain, in absolute coordinates. check,
// when set, sees every header before any point is read (a memory check).
func ReadFiles(ctx context.Context, open Opener, paths []string, flt Filter, check func([]Header) error) (*Cloud, error) {
	c := &Cloud{Headers: make([]Header, len(paths))}
	for i, p := range paths {
		var err error
		if c.Headers[i], err = ReadHeader(open, p); err != nil {
			return nil, err
		}
	}
	if check != nil {
		if err := check(c.Headers); err != nil {
			return nil, err
		}
	}
	a := memory.ArenaOf(ctx)
	c.Samples = newSamples(a, c.Headers, true)
	err := c.readInto(ctx, open, paths, flt)
	if errors.Is(err, ErrOffLattice) {
		c.Samples.Free(a)
		c.Samples = newSamples(a, c.Headers, false)
		err = c.readInto(ctx, open, paths, flt)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cloud) readInto(ctx context.Context, open Opener, paths []string, flt Filter) error {
	c.NonFinite = 0
	for _, p := range paths {
		_, bad, err := ReadFile(ctx, open, p, flt, c.Samples)
		if err != nil {
			if errors.Is(err, ErrOffLattice) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return fmt.Errorf("reading %s: %w", p, err)
		}
		c.NonFinite += bad
	}
	return nil
}

// ReadFile appends to dst the points of one file that pass the filter (see File.Read), and
// returns its header and how many points were dropped for a value that is not finite.
func ReadFile(ctx context.Context, open Opener, path string, flt Filter, dst *sample.Samples) (Header, int, error) {
	src, err := open(path)
	if err != nil {
		return Header{}, 0, err
	}
	defer src.Close()
	f, err := Open(src)
	if err != nil {
		return Header{}, 0, err
	}
	bad, err := f.Read(ctx, flt, dst)
	return f.Header, bad, err
}

// newSamples makes the samples that the files' points are read into: compact, if allowed and
// the headers put every point on one lattice (lattice), with the origin at the lattice point
// nearest the centre of the headers' bounds. It makes room for every point the headers
// declare, so that appending file after file never moves the samples (which would hold two
// copies at once), in arena a (see memory.Make).
func newSamples(a *memory.Arena, headers []Header, compact bool) *sample.Samples {
	s := &sample.Samples{}
	if p, ok := CompactProto(headers); compact && ok {
		s = p
	}
	s.GrowIn(a, Points(headers))
	s.Truncate(0)
	return s
}

// Points is how many points the headers declare, in all.
func Points(headers []Header) int {
	n := 0
	for _, h := range headers {
		n += h.PointCount
	}
	return n
}

// lattice says whether the files' scales and offsets put every point on the first file's
// lattice, and the headers' bounds (box: min x, min y, max x, max y) fit int32 quanta of it:
// then the points can be read as compact samples. If the bounds are wrong, points beyond them
// fail the reading (ErrOffLattice), which reading compact would otherwise find only at the end.
func lattice(headers []Header) (box [4]float64, ok bool) {
	if len(headers) == 0 {
		return box, false
	}
	first := headers[0]
	qx, qy := first.Scale[0], first.Scale[1]
	ok = qx > 0 && qy > 0
	box = [4]float64{first.Min[0], first.Min[1], first.Max[0], first.Max[1]}
	for _, h := range headers {
		box = [4]float64{min(box[0], h.Min[0]), min(box[1], h.Min[1]), max(box[2], h.Max[0]), max(box[3], h.Max[1])}
		_, okX := latticeShift(h.Scale[0], h.Offset[0], qx, 0)
		_, okY := latticeShift(h.Scale[1], h.Offset[1], qy, 0)
		ok = ok && okX && okY
	}
	fits := func(lo, hi, q float64) bool { return (hi-lo)/q < math.MaxInt32-2 }
	sum := box[0] + box[1] + box[2] + box[3]
	finite := !math.IsNaN(sum) && !math.IsInf(sum, 0)
	return box, ok && finite && fits(box[0], box[2], qx) && fits(box[1], box[3], qy)
}

// InMemoryBytes is what a run that holds the points of these files in memory needs at its
// peak for their samples, the canonical order's records and the index: all that local AIDW and
// nearest need (other forms hold more besides: tiles.FitsInMemory). A point costs 33.2 bytes
// on one lattice (compact samples) and 49.3 on several, measured at 5e7 points
// (bench/results/lidar-memory.md); here with about 10% to spare. The memory check before
// reading and the choice to tile take it.
func InMemoryBytes(headers []Header) float64 {
	perPoint := 52.0
	if _, ok := lattice(headers); ok {
		perPoint = 36
	}
	return float64(Points(headers)) * perPoint
}
