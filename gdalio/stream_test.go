package gdalio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// memorySink keeps the windows it is handed, in windows of its own memory.
type memorySink struct {
	form   sample.Samples
	room   int
	got    sample.Samples
	closed bool
}

func (m *memorySink) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		m.got.QX, m.got.QY, m.got.Z = append(m.got.QX, full.QX...), append(m.got.QY, full.QY...), append(m.got.Z, full.Z...)
	}
	w := m.form
	w.Grow(m.room)
	w.Truncate(0)
	return &w, nil
}

func (m *memorySink) Len() int     { return m.got.Len() }
func (m *memorySink) Close() error { m.closed = true; return nil }

// LAS inputs that a sink takes (SourceOptions.Take) give the source a read into memory gives,
// its samples in the sink, in input order, with the same extent, name, CRS and count; the
// filters apply as they do in memory. Inputs of several readers are merged in memory: no sink
// is offered them.
func TestReadInputsIntoASink(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	spat := [4]float64{2230800, 252100, 2231000, 252300}
	for _, opt := range []SourceOptions{{LayerExtent: true, InputOrder: true}, {LayerExtent: true, InputOrder: true, Spat: &spat}} {
		want, err := ReadInputs(context.Background(), []string{path, path}, opt)
		if err != nil {
			t.Fatal(err)
		}
		var sink *memorySink
		opt.Take = func(proto *sample.Samples, n int) (sample.Sink, error) {
			if n != 2*21932 {
				t.Errorf("a sink for %d samples, the headers declare %d", n, 2*21932)
			}
			sink = &memorySink{form: *proto, got: *proto, room: 30000}
			return sink, nil
		}
		got, err := ReadInputs(context.Background(), []string{path, path}, opt)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want[0], got[0]
		if len(got) != 1 || g.Held != sink || g.Samples.Len() != 0 || g.Len() != w.Len() || w.Len() == 0 {
			t.Fatalf("%d sources, %d samples held, %d in memory", len(got), g.Len(), w.Len())
		}
		if *g.Extent != *w.Extent || g.Name != w.Name || g.SRS != w.SRS || g.Samples.OriginX != w.Samples.OriginX ||
			g.Samples.OriginY != w.Samples.OriginY || !g.Samples.InputOrder {
			t.Fatalf("held: %v %q origin %v,%v; in memory: %v %q origin %v,%v", *g.Extent, g.Name, g.Samples.OriginX,
				g.Samples.OriginY, *w.Extent, w.Name, w.Samples.OriginX, w.Samples.OriginY)
		}
		s := w.Samples
		for i := range s.Len() {
			if sink.got.QX[i] != s.QX[i] || sink.got.QY[i] != s.QY[i] || math.Float64bits(sink.got.Z[i]) != math.Float64bits(s.Z[i]) {
				t.Fatalf("sample %d differs", i)
			}
		}
	}
	csv := writeFile(t, t.TempDir(), "p.csv", "x,y,z\n2230900,252200,1\n")
	opt := SourceOptions{Take: func(*sample.Samples, int) (sample.Sink, error) {
		t.Error("a sink was offered inputs merged in memory")
		return nil, nil
	}}
	if src, err := ReadInputs(context.Background(), []string{path, csv}, opt); err != nil || src[0].Held != nil || src[0].Len() != 21933 {
		t.Fatalf("LAS and CSV: %v", err)
	}
}

// Points beyond what their headers declare, which the sink's compact form cannot hold, fail
// the read with lidar.ErrOffLattice (a run then tiles instead), and the sink is closed.
func TestReadInputsIntoASinkOffLattice(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i, shift := range []float64{0, 5e7} { // 5e9 quanta apart: beyond int32 from any origin
		f := lastest.NewFile(2, 1, 400, uint64(i+1))
		for k := range f.Points {
			f.Points[k].X, f.Points[k].Y = f.Points[k].X%100000, f.Points[k].Y%100000
		}
		f.Offset[0] += shift
		b := f.Encode()
		clear(b[179:227]) // the headers' bounds say 0
		paths = append(paths, lastest.WriteFile(t, dir, fmt.Sprintf("t%d.las", i), b))
	}
	var sink *memorySink
	opt := SourceOptions{InputOrder: true, Take: func(proto *sample.Samples, n int) (sample.Sink, error) {
		sink = &memorySink{form: *proto, got: *proto, room: 1000}
		return sink, nil
	}}
	if _, err := ReadInputs(context.Background(), paths, opt); !errors.Is(err, lidar.ErrOffLattice) || sink == nil || !sink.closed {
		t.Fatalf("error %v, sink closed: %v", err, sink != nil && sink.closed)
	}
}

// A sink deferred until the engine is chosen (sample.Defer, as a run offers its GPUs) takes
// the samples a sink offered at once takes; one that declines fails the read with
// sample.ErrNotTaken, for the run to read them into memory.
func TestReadInputsIntoADeferredSink(t *testing.T) {
	path := filepath.Join("..", "testdata", "Haystack_Rock.las")
	opt := SourceOptions{LayerExtent: true, InputOrder: true}
	want, err := ReadInputs(context.Background(), []string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	var sink *memorySink
	chosen := make(chan bool)
	opt.Take = func(proto *sample.Samples, n int) (sample.Sink, error) {
		sink = &memorySink{form: *proto, got: *proto, room: 5000}
		return sample.Defer(context.Background(), proto, 1<<30, func() (sample.Sink, error) {
			if <-chosen {
				return sink, nil
			}
			return nil, nil
		}), nil
	}
	go func() { chosen <- true }()
	got, err := ReadInputs(context.Background(), []string{path}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Held == nil || got[0].Len() != want[0].Len() || sink.Len() != want[0].Len() || *got[0].Extent != *want[0].Extent {
		t.Fatalf("held %d samples, the sink %d, in memory %d", got[0].Len(), sink.Len(), want[0].Len())
	}
	s := want[0].Samples
	for i := range s.Len() {
		if sink.got.QX[i] != s.QX[i] || sink.got.QY[i] != s.QY[i] || math.Float64bits(sink.got.Z[i]) != math.Float64bits(s.Z[i]) {
			t.Fatalf("sample %d differs", i)
		}
	}
	go func() { chosen <- false }()
	if _, err := ReadInputs(context.Background(), []string{path}, opt); !errors.Is(err, sample.ErrNotTaken) {
		t.Fatalf("a declined sink: %v, want sample.ErrNotTaken", err)
	}
}
