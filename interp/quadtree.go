package interp

import (
	"math/bits"
	"runtime"
	"sync"
)

// quadBuild builds gdal's quadtree top down, with the tree and order that gdal's inserts, one
// sample at a time in input order, give (quadtreeInserts in the tests builds it gdal's way).
// Where a sample goes depends on its place and on the node's rectangle alone, and a node
// splits when a sample reaches it holding a full bucket and fits one of its quarters; so a
// node's samples are those of its parent that go to it, in input order, and it splits at the
// first of them past the bucket's 8 that fits a quarter: a leaf when none does (or the node
// has no size to split), its samples then staying in it. At a split every sample goes to the
// first quarter that holds it, or stays in the node where none does. One pass over a node's
// samples per level, instead of a descent from the root per sample through nodes scattered
// in memory, is what makes it fast. A node's place in the walk follows from the counts of its
// parent's quarters, so the quarters of a large node are built on cores of their own (when no
// region asks for node numbers, which follow the walk).
type quadBuild struct {
	// rank is each sample's place in the pre-order walk (a node's own samples, then its
	// quarters' in turn).
	rank []int32
	// leaf, unsure and region: see gdalQuadtreeIn; nodes numbers the nodes.
	leaf   []int32
	unsure []bool
	region *[4]float64
	nodes  int32
	// items are the samples on two sides, each node's moving from one to the other's same
	// places for its quarters; quarter is room for each sample's quarter.
	items   [2]quadItems
	quarter []uint8
	// cores bounds the goroutines building quarters (nil: one goroutine builds the tree).
	cores chan struct{}
	wg    sync.WaitGroup
}

// quadParMin is the size from which a quarter is built on a core of its own.
const quadParMin = 1 << 16

// newQuadBuild is the build of the tree over n samples, with its leaves marked for region
// (nil: the whole job's tree, built on every core).
func newQuadBuild(n int, region *[4]float64) *quadBuild {
	b := &quadBuild{rank: make([]int32, n)}
	if region != nil {
		b.leaf, b.region = make([]int32, n), region
	} else {
		b.cores = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	return b
}

// build places items, the samples in the tree of rectangle root; tmp and quarter are room of
// their length.
func (b *quadBuild) build(root quadRect, items, tmp quadItems, quarter []uint8) {
	b.items, b.quarter = [2]quadItems{items, tmp}, quarter
	b.node(root, 0, 0, len(items.id))
	b.wg.Wait()
	if b.region != nil {
		// every node a sample is in, leaf or not, has its mark
		b.unsure = append(b.unsure, make([]bool, int(b.nodes)-len(b.unsure))...)
	}
}

// quadItems are samples and their places, which move with them down the tree so that each
// node reads its samples' places in a run.
type quadItems struct {
	id   []int32
	x, y []float64
}

// node places the samples that reach a node of rectangle r, in input order: b.items[side]'s
// [lo,hi), from place lo of the walk. It moves its quarters' samples to the same places of
// the other side's items, its quarters' then to be built there.
func (b *quadBuild) node(r quadRect, side, lo, hi int) {
	id := b.nodes
	if b.region != nil {
		b.nodes++
	}
	items, tmp := &b.items[side], &b.items[side^1]
	n := hi - lo
	ids, xs, ys := items.id[lo:hi], items.x[lo:hi], items.y[lo:hi]
	// it splits at the first sample past the bucket that fits a quarter, if it can split
	splits := false
	var quads [4]quadRect
	if n > quadBucket {
		h1, h2 := r.split()
		q1, q2 := h1.split()
		q3, q4 := h2.split()
		quads = [4]quadRect{q1, q2, q3, q4}
		if !q1.same(r) && !q2.same(r) && !q3.same(r) && !q4.same(r) {
			for k := quadBucket; k < n && !splits; k++ {
				splits = quarterOf(&quads, xs[k], ys[k]) < 4
			}
		}
	}
	if !splits {
		b.take(id, ids, int32(lo))
		if b.region != nil {
			b.markUnsure(id, r, n)
		}
		return
	}
	// Each sample to its first quarter (4: none, it stays), stably.
	quarter := b.quarter[lo:hi]
	count := quarters(&quads, xs, ys, quarter)
	var start [5]int
	start[0] = lo + count[4] // the node's own samples come first
	for j := 1; j < 4; j++ {
		start[j] = start[j-1] + count[j-1]
	}
	at := start
	at[4] = lo
	tid, tx, ty := tmp.id, tmp.x, tmp.y
	for k, q := range quarter {
		p := at[q]
		tid[p], tx[p], ty[p] = ids[k], xs[k], ys[k]
		at[q]++
	}
	b.take(id, tid[lo:lo+count[4]], int32(lo))
	for j := range quads {
		clo, chi := start[j], start[j]+count[j]
		if chi-clo <= quadBucket && b.region == nil {
			// a leaf, which holds its samples in order (and has no number to give)
			b.take(id, tid[clo:chi], int32(clo))
			continue
		}
		b.child(quads[j], side^1, clo, chi)
	}
}

// child builds a node's quarter (see node), on a core of its own when it is large and one is
// free.
func (b *quadBuild) child(r quadRect, side, lo, hi int) {
	if b.cores == nil || hi-lo < quadParMin {
		b.node(r, side, lo, hi)
		return
	}
	select {
	case b.cores <- struct{}{}:
		b.wg.Go(func() {
			b.node(r, side, lo, hi)
			<-b.cores
		})
	default: // every core is busy: build it here
		b.node(r, side, lo, hi)
	}
}

// quarterOf is the first of quads that holds (x, y), 4 where none does, without a branch on
// the sample (which quarter holds it is not foreseeable).
func quarterOf(quads *[4]quadRect, x, y float64) uint8 {
	m := uint32(16)
	for j := range quads {
		q := &quads[j]
		m |= b2u(x >= q.minX) & b2u(x <= q.maxX) & b2u(y >= q.minY) & b2u(y <= q.maxY) << j
	}
	return uint8(bits.TrailingZeros32(m))
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint32 {
	var v uint32
	if b {
		v = 1
	}
	return v
}

// take gives items, in order, the places of the walk from base, in node id.
func (b *quadBuild) take(id int32, items []int32, base int32) {
	for k, i := range items {
		b.rank[i] = base + int32(k)
		if b.leaf != nil {
			b.leaf[i] = id
		}
	}
}

// markUnsure marks leaf id of rectangle r with n samples unsure when it holds at most a
// bucket and reaches outside the region (see gdalQuadtreeIn).
func (b *quadBuild) markUnsure(id int32, r quadRect, n int) {
	for int(id) >= len(b.unsure) {
		b.unsure = append(b.unsure, false)
	}
	reg := b.region
	b.unsure[id] = n <= quadBucket && !(r.minX > reg[0] && r.minY > reg[1] && r.maxX < reg[2] && r.maxY < reg[3])
}
