package kernels

import "github.com/aidw/aidw/interp"

// nodeList is the list of block b's nodes to compute in a target of cols columns, as the
// kernels take it (each node's index in the block's whole-width rows, r*cols+col), and at,
// each node's place in b.Values; both nil when the block is every node of its rows.
func nodeList(b *interp.Block, cols int) (list, at []int32, err error) {
	col0, width, err := b.Window(cols)
	if err != nil {
		return nil, nil, err
	}
	if b.Skip == nil && width == cols {
		return nil, nil, nil
	}
	n := b.Rows * width
	list = make([]int32, 0, n)
	if width != cols {
		at = make([]int32, 0, n)
	}
	for r := range b.Rows {
		for k := range width {
			i := r*width + k
			if b.Skip != nil && b.Skip[i] {
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
