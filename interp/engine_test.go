package interp

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// TestProgressMovesWithinBlocks runs a raster of one block on the CPU engine and checks that
// progress is reported while the block is computed, never goes back, and ends at 1.
func TestProgressMovesWithinBlocks(t *testing.T) {
	s := &sample.Samples{}
	for i := 0; i < 50; i++ {
		s.Add(float64(i%7), float64(i/7), float64(i))
	}
	target := raster.NorthUp(0, 0, 7, 7, 64, 64) // 4096 nodes: one block, 16 chunks
	alg, _, err := ParseAlgorithm("nearest")
	if err != nil {
		t.Fatal(err)
	}
	var seen []float64
	sink := func(int, int, []float64) error { return nil }
	err = Grid(context.Background(), &CPU{Threads: 2}, &Problem{Samples: s, Target: target, Alg: alg}, sink,
		func(f float64) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for i, f := range seen {
		if i > 0 && f < seen[i-1] {
			t.Fatalf("progress went back: %v", seen)
		}
		if f > 0 && f < 1 {
			inside++
		}
	}
	if inside < 8 || seen[len(seen)-1] != 1 {
		t.Errorf("progress %v: want many steps inside the single block, ending at 1", seen)
	}
}

// TestSameResultAnyThreadCount: every algorithm (everyAlgorithm) gives bit-identical rasters
// with one worker and with three, on a raster of odd width, too small for invdist's far-field
// tree (its row batches), and with a mask: no value may depend on how nodes are shared out.
func TestSameResultAnyThreadCount(t *testing.T) {
	s := looSamples(1500, 31)
	plain := utmTarget(1000, 10, 91)
	plain.Rows = 37
	masked := plain
	masked.Mask = func(row0, rows int, skip []bool) error {
		for i := range skip {
			skip[i] = (row0*plain.Cols+i)*7919%13 < 5
		}
		return nil
	}
	for _, tg := range []raster.Target{plain, masked} {
		local := cloneSamples(s)
		local.MoveOrigin(tg.Centre())
		for _, spec := range everyAlgorithm(50) {
			alg, _, err := ParseAlgorithm(spec)
			if err != nil {
				t.Fatal(err)
			}
			var first []float64
			for _, threads := range []int{1, 3} {
				var v []float64
				sink := func(_, _ int, values []float64) error { v = append(v, values...); return nil }
				p := &Problem{Samples: local, Target: tg, Alg: alg}
				if err := Grid(context.Background(), &CPU{Threads: threads}, p, sink, nil); err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = v
					continue
				}
				for i := range v {
					if math.Float64bits(v[i]) != math.Float64bits(first[i]) {
						t.Errorf("%s (mask %v): node %d is %v with 1 worker, %v with %d", spec, tg.Mask != nil, i, first[i], v[i], threads)
						break
					}
				}
			}
		}
	}
}

// The writer runs beside the computation of the next block: blocks still reach the sink in
// order, one at a time, each with its own values; an error of the sink stops the run with it,
// and a panic of the sink reaches the caller's goroutine.
func TestSinkOverlapsNextBlock(t *testing.T) {
	s := &sample.Samples{}
	for i := range 40 {
		s.Add(float64(i%8), float64(i/8), float64(i))
	}
	target := raster.NorthUp(0, 0, 8, 5, 4096, 5000) // several blocks of rows
	alg, _, err := ParseAlgorithm("nearest")
	if err != nil {
		t.Fatal(err)
	}
	p := &Problem{Samples: s, Target: target, Alg: alg}
	var want []float64
	if err := Grid(context.Background(), &CPU{Threads: 1}, p, func(_, _ int, v []float64) error {
		want = append(want, v...)
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	next, blocks, busy := 0, 0, false
	var got []float64
	err = Grid(context.Background(), &CPU{Threads: 2}, p, func(row0, rows int, v []float64) error {
		if busy || row0 != next {
			t.Errorf("block at row %d: next expected %d, busy %v", row0, next, busy)
		}
		busy = true
		got = append(got, v...)
		next, blocks, busy = row0+rows, blocks+1, false
		return nil
	}, nil)
	if err != nil || blocks < 3 || len(got) != len(want) {
		t.Fatalf("err %v, %d blocks, %d values of %d", err, blocks, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("node %d: %v, want %v", i, got[i], want[i])
		}
	}
	stop := errors.New("disk full")
	calls := 0
	err = Grid(context.Background(), &CPU{}, p, func(int, int, []float64) error { calls++; return stop }, nil)
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("a failing sink: err %v after %d calls, want %v after 1", err, calls, stop)
	}
	defer func() {
		if pe, ok := recover().(*PanicError); !ok || pe.Value != "boom" {
			t.Fatalf("a panicking sink: recovered %v, want the PanicError", pe)
		}
	}()
	Grid(context.Background(), &CPU{}, p, func(int, int, []float64) error { panic("boom") }, nil)
}
