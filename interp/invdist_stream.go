package interp

import (
	"context"
	"fmt"
)

// invDistStream is invdist's all-samples form (invDistAll) streaming past a tile's nodes, in
// the form the in-memory run takes for them: the far-field tree (farStream) where it applies,
// else, with power 2 on a north-up raster, the nodes' batches of 8 of a row
// (invDistAll.batches) by the row kernel, else gdal's loop at every node. The nodes whose tree
// or batch sums say an exact hit or close to one take a second pass, of gdal's loop; a sample
// that the tree does not take (farTreeSample) turns the tree's pass into one of the plain
// form. Each batch and node keeps its kernel's sums between chunks (see oneSums and
// rowKind), so that the values are the in-memory run's bit for bit.
type invDistStream struct {
	a     *InvDist
	s2    float64
	nodes StreamNodes
	rows  rowKind
	sums  oneSums
	// tree: the pass of the far-field tree, nil in the others
	tree *farStream
	// batches: the pass by rows, nil in the pass of gdal's loop
	batches []invDistBatch
	// loop holds the nodes that gdal's loop computes in this pass, and acc their sums
	// (sums.kind.width() each); hit says the node met its first exact hit, of value hitZ.
	loop []int
	acc  []float64
	hit  []bool
	hitZ []float64
	// value holds the nodes' values once known; done says every one is.
	value []float64
	done  bool
}

// invDistBatch is a batch of 8 nodes of a row (see invDistAll.batches): their x, their y, the
// row kernel's sums, and for each the node of the stream it is (-1: a partner only).
type invDistBatch struct {
	nx   [batchNodes]float64
	y    float64
	acc  []float64
	node [batchNodes]int
}

func newInvDistStream(a *InvDist, nodes StreamNodes) (*invDistStream, error) {
	t := nodes.Target
	if t == nil {
		return nil, fmt.Errorf("stream: invdist needs the nodes' raster")
	}
	n := len(nodes.X)
	if len(nodes.Col) != n || len(nodes.Row) != n {
		return nil, fmt.Errorf("stream: invdist needs the nodes' columns and rows")
	}
	d := &invDistStream{a: a, s2: a.Smoothing * a.Smoothing, nodes: nodes,
		rows: rowKernelFor(nodes.N), sums: newOneSums(a, nodes.N), value: make([]float64, n)}
	if a.Power <= farMaxPower && n > 0 {
		if ft := newFarBoxes(*t, nodes.OriginX, nodes.OriginY); ft != nil {
			ft.sums, ft.finish = newFarSums(a), a.finish
			d.tree = newFarStream(ft, nodes)
			return d, nil
		}
	}
	d.plain()
	return d, nil
}

// plain starts the pass of the form the in-memory run takes without the tree.
func (d *invDistStream) plain() {
	t, nodes := d.nodes.Target, d.nodes
	if !(d.a.Power == 2 && northUp(*t)) {
		all := make([]int, len(d.nodes.X))
		for i := range all {
			all[i] = i
		}
		d.loopAt(all)
		return
	}
	// The batch of a node is fixed by its column, as in invDistAll.batches.
	at := map[[2]int]int{}
	for i := range d.nodes.X {
		r, c := nodes.Row[i], nodes.Col[i]
		b0 := c - c%batchNodes
		k, ok := at[[2]int{r, b0}]
		if !ok {
			k = len(d.batches)
			at[[2]int{r, b0}] = k
			b := invDistBatch{acc: make([]float64, d.rows.width())}
			bn := min(batchNodes, t.Cols-b0)
			for j := range b.nx {
				b.nx[j], b.y = t.Node(b0+min(j, bn-1), r, nodes.OriginX, nodes.OriginY)
				b.node[j] = -1
			}
			d.batches = append(d.batches, b)
		}
		d.batches[k].node[c-b0] = i
	}
}

// loopAt starts the pass of gdal's loop at the nodes.
func (d *invDistStream) loopAt(nodes []int) {
	d.batches, d.loop = nil, nodes
	d.acc = make([]float64, len(nodes)*d.sums.kind.width())
	d.hit, d.hitZ = make([]bool, len(nodes)), make([]float64, len(nodes))
}

// block is the run of samples that the pass's kernel takes at a time.
func (d *invDistStream) block() int {
	if d.tree != nil {
		return 1 // each of the tree's sums holds back its own rest
	}
	if d.batches != nil {
		return d.rows.block()
	}
	return d.sums.kind.block()
}

// add adds runs of whole blocks (from a chunk of m samples) to every batch or node of the
// pass.
func (d *invDistStream) add(ctx context.Context, runs []run, threads, m int) error {
	if d.tree != nil {
		for _, r := range runs {
			if err := d.tree.add(ctx, r.x, r.y, r.z, threads); err != nil {
				return err
			}
		}
		return nil
	}
	if d.batches != nil {
		return forEachRun(ctx, threads, len(d.batches), runFor(m), func(_ *scratch, lo, hi int) {
			for i := lo; i < hi; i++ {
				b := &d.batches[i]
				for _, r := range runs {
					d.rows.add(r.x, r.y, r.z, &b.nx, b.y, d.s2, b.acc)
				}
			}
		})
	}
	w := d.sums.kind.width()
	return forEachRun(ctx, threads, len(d.loop), runFor(m), func(_ *scratch, lo, hi int) {
		for j := lo; j < hi; j++ {
			i := d.loop[j]
			for _, r := range runs {
				if d.hit[j] {
					break
				}
				if h := d.sums.add(r.x, r.y, r.z, d.nodes.X[i], d.nodes.Y[i], d.acc[j*w:(j+1)*w]); h >= 0 {
					d.hit[j], d.hitZ[j] = true, r.z[h]
				}
			}
		}
	})
}

// again ends a pass with the samples held back, rest, and says whether gdal's loop must run
// at some nodes in another.
func (d *invDistStream) again(rest run) bool {
	if d.tree != nil {
		left, takes := d.tree.end(d.value)
		d.tree = nil
		switch {
		case !takes:
			d.plain() // a sample the tree does not take: the in-memory run takes the plain form
			return true
		case len(left) > 0:
			d.loopAt(left)
			return true
		}
		d.done = true
		return false
	}
	if d.batches != nil {
		var left []int
		var num, den [batchNodes]float64
		for i := range d.batches {
			b := &d.batches[i]
			d.rows.end(rest.x, rest.y, rest.z, &b.nx, b.y, d.s2, b.acc, &num, &den)
			for k, j := range b.node {
				switch {
				case j < 0:
				case den[k] < 1/exactHitD2 && den[k] > 0:
					d.value[j] = d.a.finish(num[k], den[k])
				default:
					left = append(left, j) // as in invDistAll.batches
				}
			}
		}
		if len(left) > 0 {
			d.loopAt(left)
			return true
		}
		d.batches, d.done = nil, true
		return false
	}
	w := d.sums.kind.width()
	for j, i := range d.loop {
		if d.hit[j] {
			d.value[i] = d.hitZ[j]
			continue
		}
		num, den, h := d.sums.end(rest.x, rest.y, rest.z, d.nodes.X[i], d.nodes.Y[i], d.acc[j*w:(j+1)*w])
		if h >= 0 {
			d.value[i] = rest.z[h]
		} else {
			d.value[i] = d.a.finish(num, den)
		}
	}
	d.loop, d.acc, d.hit, d.hitZ, d.done = nil, nil, nil, nil, true
	return false
}

// invDistStreamBytes is what a node of a streamed tile holds for invdist's sums: gdal's loop's
// at most (a batch's per node are fewer, and go before the loop's come), with its exact hit
// and its value.
func invDistStreamBytes(a *InvDist, n int) float64 {
	return float64(8*newOneSums(a, n).kind.width() + 8 + 1 + 8 + 8)
}
