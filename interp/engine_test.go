package interp

import (
	"context"
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
