package kernels

import (
	"runtime"
	"slices"

	"github.com/aidw/aidw/internal/parts"
	"github.com/aidw/aidw/interp"
)

// nodeList is the list of block b's nodes to compute in a target of cols columns, as the
// kernels take it (each node's index in the block's whole-width rows, r*cols+col), and at,
// each node's place in b.Values, nil when the j-th node's place is j (no node skipped); both
// nil when the block is every node of its rows.
func nodeList(b *interp.Block, cols int) (list, at []int32, err error) {
	col0, width, err := b.Window(cols)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(b.Skip, true) {
		if width == cols {
			return nil, nil, nil
		}
		return windowList(b.Rows, col0, width, cols), nil, nil
	}
	n := b.Rows * width
	list = make([]int32, 0, n)
	if width != cols {
		at = make([]int32, 0, n)
	}
	for r := range b.Rows {
		for k := range width {
			i := r*width + k
			if b.Skip[i] {
				continue
			}
			list = append(list, int32(r*cols+col0+k))
			if at != nil {
				at = append(at, int32(i))
			}
		}
	}
	if at == nil {
		at = list // whole rows: a node's place is its index
	}
	return list, at, nil
}

// windowList is nodeList of every node of a window of rows x width nodes from column col0,
// rows at a time on every core: a tile's blocks are millions of nodes, which one core lists
// while the GPU waits.
func windowList(rows, col0, width, cols int) []int32 {
	list := make([]int32, rows*width)
	parts.Each(rows, min(runtime.GOMAXPROCS(0), rows), func(_, r0, r1 int) {
		for r := r0; r < r1; r++ {
			row := list[r*width : (r+1)*width]
			for k := range row {
				row[k] = int32(r*cols + col0 + k)
			}
		}
	})
	return list
}
