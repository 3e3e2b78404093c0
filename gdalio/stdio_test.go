package gdalio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// OpenStdin streams text the native reader parses once, and spills to TMPDIR what must be read
// by name or twice, under a name that says its format; the spill holds standard input's bytes
// and Close removes it.
func TestOpenStdin(t *testing.T) {
	text := []byte("x,y,z\n1,2,3\n4,5,6\n")
	las := append([]byte("LASF"), make([]byte, 300)...)
	laz := bytes.Clone(las)
	laz[104] = 3 | 0x80 // point format 3 with LAZ's compression bit
	for _, c := range []struct {
		name    string
		in      []byte
		opt     SourceOptions
		rereads bool
		spill   string // "" for a stream
	}{
		{"text", text, SourceOptions{}, false, ""},
		{"text read twice", text, SourceOptions{}, true, "stdin.csv"},
		{"text through OGR", text, SourceOptions{Where: "z > 3"}, false, "stdin.csv"},
		{"LAS", las, SourceOptions{}, false, "stdin.las"},
		{"LAZ", laz, SourceOptions{}, false, "stdin.laz"},
		{"short", []byte("1 2 3"), SourceOptions{}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			args := []string{"a.csv", "-", "b.csv"}
			s, err := OpenStdin(context.Background(), bytes.NewReader(c.in), args, c.opt, c.rereads)
			if err != nil {
				t.Fatal(err)
			}
			paths := s.Paths(args)
			if c.spill == "" {
				got, err := io.ReadAll(s.Stream())
				if err != nil || !bytes.Equal(got, c.in) || paths[1] != "-" {
					t.Errorf("stream %q (%v), paths %q: want the input as it came, the paths as given", got, err, paths)
				}
				return
			}
			if s.Stream() != nil || filepath.Base(paths[1]) != c.spill || filepath.Dir(filepath.Dir(paths[1])) != tmp || paths[0] != "a.csv" {
				t.Fatalf("paths %q: want - spilled as %s in a folder of %s", paths, c.spill, tmp)
			}
			if got, err := os.ReadFile(paths[1]); err != nil || !bytes.Equal(got, c.in) {
				t.Errorf("the spill holds %d bytes (%v), want the input's %d", len(got), err, len(c.in))
			}
			s.Close()
			if names, _ := os.ReadDir(tmp); len(names) != 0 {
				t.Errorf("Close left %v", names)
			}
		})
	}
	if _, err := OpenStdin(context.Background(), bytes.NewReader(text), []string{"-", "/vsistdin/"}, SourceOptions{}, false); err == nil {
		t.Error("standard input twice: no error")
	}
	if s, err := OpenStdin(context.Background(), bytes.NewReader(text), []string{"a.csv"}, SourceOptions{}, false); s != nil || err != nil {
		t.Errorf("no standard input among the sources: %v, %v", s, err)
	}
}

// A read waiting on an idle pipe, and a copy to standard output waiting on a reader that does
// not read, return as soon as the context is done.
func TestStdioCancel(t *testing.T) {
	idle, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := newCtxReader(ctx, idle)
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, context.Canceled) {
		t.Errorf("read from an idle pipe: %v, want context.Canceled", err)
	}

	raster := filepath.Join(t.TempDir(), "r.tif")
	if err := os.WriteFile(raster, []byte(strings.Repeat("x", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	stalled, sw := io.Pipe() // never read
	defer stalled.Close()
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := copyOut(ctx, raster, sw); !errors.Is(err, context.Canceled) {
		t.Errorf("copy to a stalled reader: %v, want context.Canceled", err)
	}
}

// Text streamed from standard input gives the samples the file gives, bit for bit, across the
// head the layout is read from (1 MiB) and the parse chunks (2 MiB).
func TestStdinTextSamples(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# comment\nX;Y;Height\n")
	for i := 0; b.Len() < 5<<20; i++ {
		fmt.Fprintf(&b, "%d.%03d;%d.5;%g\n", 500000+i%977, i%1000, 4000000+i/977, float64(i%313)/7)
	}
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := SourceOptions{ZField: "Height", LayerExtent: true}
	want, err := ReadSources(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Stdin = bytes.NewReader(b.Bytes())
	got, err := ReadSources(context.Background(), "-", opt)
	if err != nil {
		t.Fatal(err)
	}
	g, w := got[0].Samples, want[0].Samples
	if got[0].Name != "stdin" || *got[0].Extent != *want[0].Extent || g.Len() != w.Len() || g.OriginX != w.OriginX || g.OriginY != w.OriginY {
		t.Fatalf("stdin: %q, extent %v, %d samples from (%g, %g); the file: extent %v, %d from (%g, %g)",
			got[0].Name, *got[0].Extent, g.Len(), g.OriginX, g.OriginY, *want[0].Extent, w.Len(), w.OriginX, w.OriginY)
	}
	for i := range g.X {
		if g.X[i] != w.X[i] || g.Y[i] != w.Y[i] || math.Float64bits(g.Z[i]) != math.Float64bits(w.Z[i]) {
			t.Fatalf("sample %d: (%g, %g, %g), the file's (%g, %g, %g)", i, g.X[i], g.Y[i], g.Z[i], w.X[i], w.Y[i], w.Z[i])
		}
	}
}
