package gdalio

// The body of a delimited text file is read in chunks cut at newlines and parsed on every
// core; the chunks' samples are put back together in file order.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/aidw/aidw/sample"
)

// textChunk is how much of a text file one parse job covers: large enough that the per-job
// overhead vanishes, small enough that both cores get several jobs per million points.
const textChunk = 2 << 20

// textJob is one chunk of whole lines; firstLine is the number of its first line.
type textJob struct {
	seq       int
	buf       *[]byte
	data      []byte
	firstLine int
}

// textResult is what parsing one chunk gave.
type textResult struct {
	seq       int
	xyz       *sampleBuf
	empty     int
	nonFinite int
	extent    [4]float64
	err       error
}

// sampleBuf holds one chunk's samples.
type sampleBuf struct{ x, y, z []float64 }

// freeList recycles a read's buffers between its goroutines, so that a large file does not
// allocate (and the GC scan) one set per chunk.
type freeList[T any] chan *T

func (f freeList[T]) get(alloc func() *T) *T {
	select {
	case b := <-f:
		return b
	default:
		return alloc()
	}
}

func (f freeList[T]) put(b *T) {
	select {
	case f <- b:
	default:
	}
}

// parseBody reads the body in chunks split at newlines and parses them on all cores, and hands
// each chunk's samples to yield in file order, a batch at a time (valid during the call only:
// its memory is reused); reserve, first, hears how many samples the body's size suggests (none
// when the size is unknown: negative, a stream). The source it returns says what was skipped,
// and holds no samples.
func parseBody(body io.Reader, size int64, p *textParams, reserve func(n int), yield func(*sample.Samples) error) (Source, error) {
	reserve(int(float64(max(size, 0))/max(p.lay.bytesPerLine, 1)*1.05) + 16)
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan textJob, workers)
	results := make(chan textResult, workers)
	done := make(chan struct{})
	readErr := make(chan error, 1)
	bufs := make(freeList[[]byte], 2*workers+2)
	samples := make(freeList[sampleBuf], 2*workers+2)
	go func() { readErr <- splitChunks(body, p.lay.bodyLine, jobs, done, bufs) }()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := parseChunk(j, p, samples.get(func() *sampleBuf { return &sampleBuf{} }))
				bufs.put(j.buf)
				select {
				case results <- r:
				case <-done:
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	var src Source
	batch := &sample.Samples{OriginX: p.ox, OriginY: p.oy}
	ext := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	empty, nonFinite := 0, 0
	pending := map[int]textResult{}
	next := 0
	var firstErr error
	for r := range results {
		pending[r.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if firstErr != nil {
				continue
			}
			if r.err != nil {
				firstErr = r.err
				close(done)
				continue
			}
			batch.X, batch.Y, batch.Z = r.xyz.x, r.xyz.y, r.xyz.z
			if err := yield(batch); err != nil {
				firstErr = err
				close(done)
				continue
			}
			samples.put(r.xyz)
			empty += r.empty
			nonFinite += r.nonFinite
			ext = [4]float64{min(ext[0], r.extent[0]), min(ext[1], r.extent[1]), max(ext[2], r.extent[2]), max(ext[3], r.extent[3])}
		}
	}
	if firstErr != nil {
		return Source{}, firstErr
	}
	if err := <-readErr; err != nil {
		return Source{}, err
	}
	var reasons []string
	if empty > 0 {
		reasons = append(reasons, fmt.Sprintf("%d lines with an empty x, y or %s", empty, p.zName))
	}
	if nonFinite > 0 {
		reasons = append(reasons, fmt.Sprintf("%d lines with a NaN or infinite x, y or %s", nonFinite, p.zName))
	}
	src.Skipped, src.SkipReason = empty+nonFinite, strings.Join(reasons, ", ")
	if p.extent && ext[0] <= ext[2] {
		src.Extent = &ext
	}
	return src, nil
}

// splitChunks reads the file in textChunk pieces cut after their last newline.
func splitChunks(f io.Reader, line int, jobs chan<- textJob, done <-chan struct{}, bufs freeList[[]byte]) error {
	defer close(jobs)
	var carry []byte
	seq := 0
	for {
		bp := bufs.get(func() *[]byte { b := make([]byte, 0, textChunk+4096); return &b })
		buf := *bp
		if cap(buf) < len(carry)+textChunk {
			buf = make([]byte, 0, len(carry)+textChunk)
		}
		buf = append(buf[:0], carry...)
		n, err := io.ReadFull(f, buf[len(carry):len(carry)+textChunk])
		buf = buf[:len(carry)+n]
		*bp = buf
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return err
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		// the rest of the last line goes to the next chunk (all of it for a line longer
		// than a chunk); it is copied out because this buffer goes to a worker
		carry = append([]byte(nil), buf[cut:]...)
		if cut == 0 {
			bufs.put(bp)
		} else {
			select {
			case jobs <- textJob{seq: seq, buf: bp, data: buf[:cut], firstLine: line}:
			case <-done:
				return nil
			}
			seq++
			line += bytes.Count(buf[:cut], []byte{'\n'})
		}
		if eof {
			return nil
		}
	}
}

// parseChunk parses the lines of one chunk into out.
func parseChunk(j textJob, p *textParams, out *sampleBuf) textResult {
	r := textResult{seq: j.seq, xyz: out, extent: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
	out.x, out.y, out.z = out.x[:0], out.y[:0], out.z[:0]
	data := j.data
	lineNo := j.firstLine - 1
	fast := p.lay.cols == [3]int{0, 1, 2}
	var fields [3][]byte
	for pos := 0; pos < len(data); {
		lineNo++
		var x, y, z float64
		next, ok := 0, false
		if fast {
			x, y, z, next, ok = p.lay.fastLine(data, pos)
		}
		if !ok {
			end := len(data)
			if nl := bytes.IndexByte(data[pos:], '\n'); nl >= 0 {
				end = pos + nl
			}
			line := trimCR(data[pos:end])
			next = end + 1
			if blankOrComment(line) {
				pos = next
				continue
			}
			if err := p.lay.fields(line, &fields); err != nil {
				r.err = fmt.Errorf("line %d: %w", lineNo, err)
				return r
			}
			var vals [3]float64
			skip := false
			for k := range 3 {
				if len(fields[k]) == 0 {
					skip = true
					continue
				}
				v, err := parseFloat(fields[k])
				if err != nil {
					name := [3]string{"x", "y", p.zName}[k]
					r.err = fmt.Errorf("line %d: %s value \"%s\" is not a number", lineNo, name, printable(string(fields[k])))
					return r
				}
				vals[k] = v
			}
			pos = next
			if skip {
				r.empty++
				continue
			}
			x, y, z = vals[0], vals[1], vals[2]
		}
		pos = next
		if err := r.add(p, x, y, z); err != nil {
			r.err = fmt.Errorf("line %d: %w", lineNo, err)
			return r
		}
	}
	return r
}

// add keeps a parsed sample, as the options say.
func (r *textResult) add(p *textParams, x, y, z float64) error {
	z = p.flt.Z(z)
	if !finite(x) || !finite(y) || !finite(z) {
		r.nonFinite++
		return nil
	}
	if reg := p.flt.Region; reg != nil {
		if p.extent && reg.Touches(x, y) {
			r.grow(x, y)
		}
		if !reg.Within(x, y) {
			return nil
		}
	} else if p.extent {
		r.grow(x, y)
	}
	if err := relativeFits(x, y, p.ox, p.oy); err != nil {
		return err
	}
	out := r.xyz
	out.x = append(out.x, x-p.ox)
	out.y = append(out.y, y-p.oy)
	out.z = append(out.z, z)
	return nil
}

// relativeFits refuses a sample that float64 cannot hold relative to the samples' origin (the
// first sample): x - ox overflows when the two are near opposite ends of float64's range.
func relativeFits(x, y, ox, oy float64) error {
	if finite(x-ox) && finite(y-oy) {
		return nil
	}
	return fmt.Errorf("x %g, y %g: too far from the first sample (%g, %g) to be gridded in float64", x, y, ox, oy)
}

func (r *textResult) grow(x, y float64) {
	r.extent = [4]float64{min(r.extent[0], x), min(r.extent[1], y), max(r.extent[2], x), max(r.extent[3], y)}
}

// fastLine reads a line of plain numbers "x<d>y<d>z[<d>more]" in one pass, without cutting
// fields first; ok is false for anything else (blank, comment, quotes, blanks around fields,
// empty or unusual values), which the general path then handles.
func (l *textLayout) fastLine(b []byte, pos int) (x, y, z float64, next int, ok bool) {
	var v [3]float64
	i := pos
	for k := range 3 {
		if l.delim == whitespace {
			for i < len(b) && isBlank(b[i]) {
				i++
			}
		} else if k > 0 {
			if i >= len(b) || b[i] != l.delim {
				return 0, 0, 0, 0, false
			}
			i++
		}
		start := i
		if v[k], i, ok = fastFloatPrefix(b, i); !ok {
			return 0, 0, 0, 0, false
		}
		if l.delim == whitespace && k < 2 && (i == start || i >= len(b) || !isBlank(b[i])) {
			return 0, 0, 0, 0, false
		}
	}
	if l.delim == whitespace {
		if i < len(b) && !isBlank(b[i]) && b[i] != '\n' && b[i] != '\r' {
			return 0, 0, 0, 0, false
		}
		for i < len(b) && isBlank(b[i]) {
			i++
		}
	}
	switch {
	case i == len(b):
		next = i
	case b[i] == '\n':
		next = i + 1
	case b[i] == '\r' && (i+1 == len(b) || b[i+1] == '\n'):
		next = i + 2
	case b[i] == l.delim || l.delim == whitespace:
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			next = len(b)
		} else {
			next = i + nl + 1
		}
	default:
		return 0, 0, 0, 0, false
	}
	return v[0], v[1], v[2], min(next, len(b)), true
}
