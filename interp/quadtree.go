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
	b.node(root, items, tmp, quarter, 0)
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

func (q quadItems) slice(lo, hi int) quadItems { return quadItems{q.id[lo:hi], q.x[lo:hi], q.y[lo:hi]} }

// node places items, the samples that reach a node of rectangle r, in input order, from place
// base of the walk; tmp and quarter are room of their length, and node leaves both items and
// tmp as room.
func (b *quadBuild) node(r quadRect, items, tmp quadItems, quarter []uint8, base int32) {
	id := b.nodes
	if b.region != nil {
		b.nodes++
	}
	n := len(items.id)
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
				splits = quarterOf(&quads, items.x[k], items.y[k]) < 4
			}
		}
	}
	if !splits {
		b.take(id, items.id, base)
		if b.region != nil {
			b.markUnsure(id, r, n)
		}
		return
	}
	// Each sample to its first quarter (4: none, it stays), stably.
	count := quarters(&quads, items.x, items.y, quarter[:n])
	var start [5]int
	start[0] = count[4] // the node's own samples come first
	for j := 1; j < 4; j++ {
		start[j] = start[j-1] + count[j-1]
	}
	at := start
	at[4] = 0
	for k := range n {
		q := quarter[k]
		p := at[q]
		tmp.id[p], tmp.x[p], tmp.y[p] = items.id[k], items.x[k], items.y[k]
		at[q]++
	}
	b.take(id, tmp.id[:count[4]], base)
	// The quarters' samples now lie in tmp, and items is their room.
	for j := range quads {
		lo, hi := start[j], start[j]+count[j]
		if hi-lo <= quadBucket && b.region == nil {
			// a leaf, which holds its samples in order (and has no number to give)
			b.take(id, tmp.id[lo:hi], base+int32(lo))
			continue
		}
		b.child(quads[j], tmp.slice(lo, hi), items.slice(lo, hi), quarter[lo:hi], base+int32(lo))
	}
}

// child builds a node's quarter (see node), on a core of its own when it is large and one is
// free.
func (b *quadBuild) child(r quadRect, items, tmp quadItems, quarter []uint8, base int32) {
	if b.cores == nil || len(items.id) < quadParMin {
		b.node(r, items, tmp, quarter, base)
		return
	}
	select {
	case b.cores <- struct{}{}:
		b.wg.Go(func() {
			b.node(r, items, tmp, quarter, base)
			<-b.cores
		})
	default: // every core is busy: build it here
		b.node(r, items, tmp, quarter, base)
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
