package kernels

import (
	"testing"

	"github.com/aidw/aidw/interp"
)

// The list of a block's nodes names, for the kernels, each node not skipped by its index in the
// block's whole-width rows, and its place in the block's values: a window's nodes lie at their
// own columns of the target, in the block's row-major order.
func TestNodeListOfWindow(t *testing.T) {
	const cols = 50
	skipAt := func(col, row int) bool { return (3*col+row)%4 == 0 }
	for _, w := range []struct{ col0, width int }{{0, 0}, {0, cols}, {7, 20}, {49, 1}} {
		for _, skipped := range []bool{false, true} {
			b := &interp.Block{Row0: 3, Rows: 4, Col0: w.col0, Cols: w.width}
			width := w.width
			if width == 0 {
				width = cols
			}
			if skipped {
				b.Skip = make([]bool, b.Rows*width)
				for i := range b.Skip {
					b.Skip[i] = skipAt(w.col0+i%width, b.Row0+i/width)
				}
			}
			list, at, err := nodeList(b, cols)
			if err != nil {
				t.Fatal(err)
			}
			if !skipped && width == cols {
				if list != nil || at != nil {
					t.Errorf("every node of whole rows: a list of %d, want none (the kernels take them in order)", len(list))
				}
				continue
			}
			j := 0
			for r := range b.Rows {
				for k := range width {
					col := w.col0 + k
					if skipped && skipAt(col, b.Row0+r) {
						continue
					}
					place := j // no node skipped: no places
					if at != nil {
						place = int(at[j])
					}
					if j >= len(list) || int(list[j]) != r*cols+col || place != r*width+k {
						t.Fatalf("window %+v, skip %v: entry %d is not node (%d, %d) at %d of the block", w, skipped, j, col, b.Row0+r, r*width+k)
					}
					j++
				}
			}
			if j != len(list) || skipped && len(at) != len(list) || !skipped && at != nil {
				t.Errorf("window %+v, skip %v: %d entries and %d places, want %d", w, skipped, len(list), len(at), j)
			}
		}
	}
	if _, _, err := nodeList(&interp.Block{Rows: 1, Col0: 45, Cols: 6}, cols); err == nil {
		t.Error("a window past the target's last column was accepted")
	}
}
