package gdalio

// Standard input and output as GDAL's utilities name them, so that aidw sits in a pipeline:
// `las2txt ... | aidw grid ... /vsistdin/ dem.tif`, `aidw grid -of XYZ ... /vsistdout/ | ...`.
// Text is parsed as it arrives when the run reads its samples once; LAS/LAZ (whose readers
// seek: a LAZ file's chunk table is at its end) and inputs a run reads twice (the census, then
// the tiles) are spilled once into a private folder of TMPDIR. A raster goes to standard
// output from a temporary file of TMPDIR once complete (see Writer.PublishContext), so that a
// failed run writes nothing there.

/*
#include <stdlib.h>
#include <gdal.h>
*/
import "C"

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/aidw/aidw/internal/outfile"
)

// IsStdin says whether a source names standard input: "-" or GDAL's /vsistdin/.
func IsStdin(path string) bool {
	return path == "-" || path == "/vsistdin/" || path == "/vsistdin"
}

// IsStdout says whether a destination names standard output: GDAL's /vsistdout/.
func IsStdout(path string) bool { return path == "/vsistdout/" || path == "/vsistdout" }

// stdinName is standard input's name as a source (its layer, its band's description).
const stdinName = "stdin"

// spillPrefix starts the name of the folder a run spills standard input to, followed by the
// run's owner (host, PID, start; see tempOwner), so that the next run on this host removes
// what a killed one left (tempHost.removeStale).
const spillPrefix = "aidw-stdin-"

// Stdin is standard input as a run's source: either a stream of text for the native text
// reader (SourceOptions.Stdin), or a file it was spilled to, which Paths puts in its place.
// Close removes the spill. A nil *Stdin is a run without standard input.
type Stdin struct {
	stream io.Reader
	dir    string // the spill's private folder
	spill  string // the spilled file in it
}

// OpenStdin prepares standard input (r) when one of args names it (see IsStdin), and returns
// nil when none does. LAS and LAZ (told by their signature) are spilled, and so is text when
// rereads says the run reads its sources more than once or when an OGR-only option (-where,
// -sql, -oo) needs OGR's CSV driver; other text is left to stream. Reads stop when ctx is done,
// even while the pipe is idle. Close the result when the run ends, whatever its outcome.
func OpenStdin(ctx context.Context, r io.Reader, args []string, opt SourceOptions, rereads bool) (*Stdin, error) {
	n := 0
	for _, a := range args {
		if IsStdin(a) {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, nil
	case n > 1:
		return nil, errors.New("standard input (- or /vsistdin/) can be a source once only")
	}
	in := bufio.NewReaderSize(newCtxReader(ctx, r), 1<<16)
	// The LAS header's signature, and its point format, whose high bits mark LAZ.
	head, err := in.Peek(105)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	ext := ""
	switch {
	case bytes.HasPrefix(head, []byte("LASF")) && len(head) == 105 && head[104]&0xc0 != 0:
		ext = ".laz"
	case bytes.HasPrefix(head, []byte("LASF")):
		ext = ".las"
	case rereads || !nativeText(opt):
		ext = ".csv" // OGR's CSV driver, as the native reader, reads it by this name
	default:
		return &Stdin{stream: in}, nil
	}
	s := &Stdin{}
	if err := s.spillFrom(ctx, in, ext); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// spillFrom copies the rest of standard input into a private folder of TMPDIR, as stdin<ext>.
func (s *Stdin) spillFrom(ctx context.Context, in io.Reader, ext string) error {
	outfile.RemoveStaleIn(os.TempDir(), spillPrefix)
	dir, err := os.MkdirTemp("", spillPrefix+outfile.OwnName("*"))
	if err != nil {
		return fmt.Errorf("spilling standard input to a temporary file: %w", err)
	}
	s.dir, s.spill = dir, filepath.Join(dir, stdinName+ext)
	f, err := os.OpenFile(s.spill, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("spilling standard input to a temporary file: %w", err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("spilling standard input to %s: %w", s.spill, err)
	}
	return nil
}

// Paths is args with standard input replaced by the file it was spilled to, if it was.
func (s *Stdin) Paths(args []string) []string {
	if s == nil || s.spill == "" {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if IsStdin(a) {
			out[i] = s.spill
		}
	}
	return out
}

// Stream is the text to parse as it arrives, for SourceOptions.Stdin; nil when standard input
// was spilled or is not a source.
func (s *Stdin) Stream() io.Reader {
	if s == nil {
		return nil
	}
	return s.stream
}

// Rename names standard input in err's message where it names the spill's path; errors.Is
// and errors.As see err as it was.
func (s *Stdin) Rename(err error) error {
	if s == nil || s.spill == "" || err == nil || !strings.Contains(err.Error(), s.spill) {
		return err
	}
	return renamed{err, s.spill}
}

type renamed struct {
	err   error
	spill string
}

func (r renamed) Error() string { return strings.ReplaceAll(r.err.Error(), r.spill, "standard input") }
func (r renamed) Unwrap() error { return r.err }

// Close removes the spill, if any.
func (s *Stdin) Close() {
	if s != nil && s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir, s.spill = "", ""
	}
}

// ctxReader reads r in a goroutine of its own, so that a read that waits on an idle pipe does
// not hold up a cancelled run: Read returns ctx's error at once. The goroutine owns the
// buffers it reads into and hands each over whole.
type ctxReader struct {
	ctx  context.Context
	data chan []byte
	err  error // r's error, set before data is closed
	rest []byte
}

func newCtxReader(ctx context.Context, r io.Reader) *ctxReader {
	c := &ctxReader{ctx: ctx, data: make(chan []byte, 4)}
	go func() {
		for {
			buf := make([]byte, 256<<10)
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case c.data <- buf[:n]:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				c.err = err
				close(c.data)
				return
			}
		}
	}()
	return c
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.rest) == 0 {
		select {
		case b, ok := <-c.data:
			if !ok {
				return 0, c.err
			}
			c.rest = b
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	return n, nil
}

// stdoutStem names the temporary files of a raster bound for standard output, in TMPDIR.
const stdoutStem = "aidw-stdout"

// stagePath is the path beside which the temporary files of a raster to path go: path itself,
// or for standard output a name in TMPDIR with the format's extension (which some drivers
// check). A format that writes a folder cannot go to standard output.
func stagePath(path, format string) (string, error) {
	if !IsStdout(path) {
		return path, nil
	}
	if strings.EqualFold(format, "Zarr") {
		return "", fmt.Errorf("%s: the %s format writes a folder, which cannot go to standard output", path, format)
	}
	ext := ""
	if e := driverExtension(format); e != "" {
		ext = "." + e
	}
	return filepath.Join(os.TempDir(), stdoutStem+ext), nil
}

// copyOut copies the finished raster at path to out a block at a time, and returns as soon as
// ctx is done, even while a write waits on a reader that stopped reading (a stalled pipe):
// the copy goes on in a goroutine of its own, which ends after its current block. A reader
// that went away (a closed pipe) gives an error that wraps syscall.EPIPE.
func copyOut(ctx context.Context, path string, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer f.Close()
		buf := make([]byte, 1<<20)
		for ctx.Err() == nil {
			n, err := f.Read(buf)
			if n > 0 {
				if _, werr := out.Write(buf[:n]); werr != nil {
					done <- werr
					return
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				done <- err
				return
			}
		}
		done <- ctx.Err()
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// driverExtension is the extension of the files a raster driver writes, "" when it declares
// none.
func driverExtension(format string) string {
	cf := C.CString(format)
	defer C.free(unsafe.Pointer(cf))
	if d := C.GDALGetDriverByName(cf); d != nil {
		return driverItem(d, "DMD_EXTENSION")
	}
	return ""
}
