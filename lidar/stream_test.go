package lidar

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/sample"
)

// windows is a sink that keeps every window it is handed, each in new memory of the room
// given.
type windows struct {
	proto *sample.Samples
	room  int
	full  []*sample.Samples
}

func (w *windows) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		w.full = append(w.full, full)
	}
	next := &sample.Samples{OriginX: w.proto.OriginX, OriginY: w.proto.OriginY,
		QuantumX: w.proto.QuantumX, QuantumY: w.proto.QuantumY}
	next.Grow(w.room)
	next.Truncate(0)
	return next, nil
}

func (w *windows) Len() int {
	n := 0
	for _, f := range w.full {
		n += f.Len()
	}
	return n
}

func (w *windows) Close() error { return nil }

// Stream hands over, window by window and in order, exactly the samples ReadFiles reads into
// memory, and their bounds: from LAS files of several chunks a window, filtered or not, and from LAZ.
func TestStreamEqualsReadFiles(t *testing.T) {
	dir := t.TempDir()
	var tiles []string
	for i := range 2 {
		f := lastest.NewFile(2, 1, 60000, uint64(i+1))
		for k := range f.Points {
			f.Points[k].X, f.Points[k].Y = f.Points[k].X%100000, f.Points[k].Y%100000
		}
		f.Offset[0] += float64(i) * 12.34
		tiles = append(tiles, lastest.WriteFile(t, dir, fmt.Sprintf("tile%d.las", i), f.Encode()))
	}
	laz := filepath.Join("..", "testdata", "laz", "simple.laz")
	for _, c := range []struct {
		paths []string
		flt   Filter
		room  int
	}{
		{tiles, Filter{}, 40000},
		{tiles, Filter{}, 1 << 20},
		{tiles, Filter{Classes: []int{2}}, 40000},
		{[]string{laz}, Filter{Returns: "last", Field: "intensity"}, 60000},
	} {
		name := fmt.Sprintf("%d files, %+v, room %d", len(c.paths), c.flt, c.room)
		want, err := ReadFiles(context.Background(), OpenLocal, c.paths, c.flt, nil)
		if err != nil {
			t.Fatal(err)
		}
		headers := want.Headers
		proto, ok := CompactProto(headers)
		if !ok || !want.Samples.IsCompact() {
			t.Fatalf("%s: not on one lattice", name)
		}
		sink := &windows{proto: proto, room: c.room}
		got, err := Stream(context.Background(), OpenLocal, c.paths, c.flt, proto, sink)
		if err != nil {
			t.Fatal(err)
		}
		x0, y0, x1, y1 := want.Samples.Bounds()
		if got.Box != [4]float64{x0, y0, x1, y1} {
			t.Fatalf("%s: box %v, ReadFiles' samples' %v", name, got.Box, [4]float64{x0, y0, x1, y1})
		}
		if got.NonFinite != want.NonFinite || len(got.Headers) != len(c.paths) || got.Headers[0].PointCount != headers[0].PointCount {
			t.Fatalf("%s: the cloud differs: %+v", name, got)
		}
		i, s := 0, want.Samples
		for _, w := range sink.full {
			if w.Len() > c.room || w.Len() == 0 {
				t.Fatalf("%s: a window of %d samples", name, w.Len())
			}
			for k := range w.Len() {
				if i >= s.Len() || w.QX[k] != s.QX[i] || w.QY[k] != s.QY[i] || math.Float64bits(w.Z[k]) != math.Float64bits(s.Z[i]) {
					t.Fatalf("%s: sample %d differs", name, i)
				}
				i++
			}
		}
		if i != s.Len() || (c.room == 40000 && len(c.flt.Classes) == 0 && len(sink.full) < 4) {
			t.Fatalf("%s: %d samples in %d windows, ReadFiles reads %d", name, i, len(sink.full), s.Len())
		}
	}
	// a window too small for a chunk says so
	proto, _ := CompactProto([]Header{mustHeader(t, tiles[0])})
	if _, err := Stream(context.Background(), OpenLocal, tiles[:1], Filter{}, proto, &windows{proto: proto, room: 100}); err == nil {
		t.Fatal("a window of 100 samples took chunks of 37449")
	}
}

func mustHeader(t testing.TB, path string) Header {
	h, err := ReadHeader(OpenLocal, path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// rotating is a sink that hands out the same few windows in turn, as a GPU's does.
type rotating struct {
	windows []*sample.Samples
	turn, n int
}

func newRotating(proto *sample.Samples, count, room int) *rotating {
	r := &rotating{}
	for range count {
		w := *proto
		w.Grow(room)
		w.Truncate(0)
		r.windows = append(r.windows, &w)
	}
	return r
}

func (r *rotating) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		r.n += full.Len()
		r.turn = (r.turn + 1) % len(r.windows)
	}
	w := r.windows[r.turn]
	w.Truncate(0)
	return w, nil
}

func (r *rotating) Len() int     { return r.n }
func (r *rotating) Close() error { return nil }

// cancelling is a sink that cancels the stream's context once it is handed a window.
type cancelling struct {
	*windows
	cancel func()
}

func (c cancelling) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		c.cancel()
	}
	return c.windows.Next(full)
}

// A stream stops within the window after its context is cancelled, with the context's error.
func TestStreamCancelled(t *testing.T) {
	dir := t.TempDir()
	f := lastest.NewFile(2, 1, 60000, 3)
	for k := range f.Points {
		f.Points[k].X, f.Points[k].Y = f.Points[k].X%100000, f.Points[k].Y%100000
	}
	path := lastest.WriteFile(t, dir, "a.las", f.Encode())
	proto, _ := CompactProto([]Header{mustHeader(t, path)})
	ctx, cancel := context.WithCancel(context.Background())
	sink := cancelling{&windows{proto: proto, room: 40000}, cancel}
	if _, err := Stream(ctx, OpenLocal, []string{path, path}, Filter{}, proto, sink); err != context.Canceled {
		t.Fatalf("a cancelled stream gives %v", err)
	}
	if len(sink.full) != 1 {
		t.Fatalf("%d windows handed after the cancellation", len(sink.full)-1)
	}
}
