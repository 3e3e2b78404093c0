//go:build cuda

package kernels

import (
	"context"
	"math"
	"testing"

	"github.com/aidw/aidw/interp"
)

// A block over a window of the target's columns computes on the GPU, bit for bit, what a
// block of the same whole rows computes with every node outside the window skipped (the same
// nodes in the same order: the same chunks, and the global weighting's same lanes), in chunks
// of a few nodes; a local form's nodes are also those of the unskipped whole rows. The
// window's skipped nodes keep what they held.
func TestWindowedBlockMatchesWholeRows(t *testing.T) {
	const held = -123456.75
	d := clusteredSet(12, 15000)
	tg := d.target
	const row0, rows, col0, cols = 5, 31, 17, 23
	skip := func(col, row int) bool { return (col*7+row*3)%5 == 0 }
	block := func(c0, width int, skipped func(col, row int) bool) *interp.Block {
		w := width
		if w == 0 {
			w = tg.Cols
		}
		b := &interp.Block{Row0: row0, Rows: rows, Col0: c0, Cols: width, Values: make([]float64, rows*w)}
		for i := range b.Values {
			b.Values[i] = held
		}
		if skipped != nil {
			b.Skip = make([]bool, rows*w)
			for i := range b.Skip {
				b.Skip[i] = skipped(c0+i%w, row0+i/w)
			}
		}
		return b
	}
	outside := func(col, row int) bool { return col < col0 || col >= col0+cols || skip(col, row) }
	specs := []string{"invdistnn:radius=30:max_points=12", "nearest:radius1=15:radius2=15", "maximum:radius1=20:radius2=12",
		"average_distance_pts:radius1=20:radius2=20", "invdist:radius1=30:radius2=20"}
	for _, c := range engineCases {
		specs = append(specs, c.spec)
	}
	for _, spec := range specs {
		e := NewEngine(testDev)
		e.chunkNodes = 100
		p := &interp.Problem{Samples: d.samples, Target: tg, Alg: mustParse(t, spec)}
		prep, err := e.Prepare(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		win, masked, whole := block(col0, cols, skip), block(0, 0, outside), block(0, 0, nil)
		for _, b := range []*interp.Block{win, masked, whole} {
			if err := prep.Compute(context.Background(), b); err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
		}
		prep.Close()
		global := false
		for _, c := range engineCases {
			global = global || c.spec == spec && c.global
		}
		for i, got := range win.Values {
			r, k := i/cols, i%cols
			j := r*tg.Cols + col0 + k
			want := masked.Values[j]
			if !skip(col0+k, row0+r) && !global && math.Float64bits(whole.Values[j]) != math.Float64bits(want) {
				t.Fatalf("%s: node (%d, %d) is %v among whole rows, %v with the others skipped", spec, col0+k, row0+r,
					whole.Values[j], want)
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: node (%d, %d) is %v in the window, %v in whole rows", spec, col0+k, row0+r, got, want)
			}
		}
	}
}
