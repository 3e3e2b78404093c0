package interp

// quadBuild builds gdal's quadtree top down, with the tree and order that gdal's inserts, one
// sample at a time in input order, give (quadtreeInserts in the tests builds it gdal's way).
// Where a sample goes depends on its place and on the node's rectangle alone, and a node
// splits when a sample reaches it holding a full bucket and fits one of its quarters; so a
// node's samples are those of its parent that go to it, in input order, and it splits at the
// first of them past the bucket's 8 that fits a quarter: a leaf when none does (or the node
// has no size to split), its samples then staying in it. At a split every sample goes to the
// first quarter that holds it, or stays in the node where none does. One pass over a node's
// samples per level, instead of a descent from the root per sample through nodes scattered
// in memory, is what makes it fast.
type quadBuild struct {
	// rank is each sample's place in the pre-order walk (a node's own samples, then its
	// quarters' in turn); next the next place.
	rank []int32
	next int32
	// leaf, unsure and region: see gdalQuadtreeIn; nodes numbers the nodes.
	leaf   []int32
	unsure []bool
	region *[4]float64
	nodes  int32
}

// quadItems are samples and their places, which move with them down the tree so that each
// node reads its samples' places in a run.
type quadItems struct {
	id   []int32
	x, y []float64
}

func (q quadItems) slice(lo, hi int) quadItems { return quadItems{q.id[lo:hi], q.x[lo:hi], q.y[lo:hi]} }

// node places items, the samples that reach a node of rectangle r, in input order; tmp and
// quarter are room of their length, and node leaves both items and tmp as room.
func (b *quadBuild) node(r quadRect, items, tmp quadItems, quarter []uint8) {
	id := b.nodes
	b.nodes++
	h1, h2 := r.split()
	q1, q2 := h1.split()
	q3, q4 := h2.split()
	quads := [4]quadRect{q1, q2, q3, q4}
	n := len(items.id)
	splits := n > quadBucket
	for _, q := range quads {
		splits = splits && !q.same(r)
	}
	first := -1 // the place of the sample that splits the node
	if splits {
		for k := quadBucket; k < n && first < 0; k++ {
			for _, q := range quads {
				if q.contains(items.x[k], items.y[k]) {
					first = k
					break
				}
			}
		}
	}
	if first < 0 {
		b.take(id, items.id)
		if b.region != nil {
			b.markUnsure(id, r, n)
		}
		return
	}
	// Each sample to its first quarter (4: none, it stays), stably.
	var count [5]int
	for k := range n {
		q := uint8(4)
		for j := range quads {
			if quads[j].contains(items.x[k], items.y[k]) {
				q = uint8(j)
				break
			}
		}
		quarter[k] = q
		count[q]++
	}
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
	b.take(id, tmp.id[:count[4]])
	// The quarters' samples now lie in tmp, and items is their room.
	for j := range quads {
		lo, hi := start[j], start[j]+count[j]
		b.node(quads[j], tmp.slice(lo, hi), items.slice(lo, hi), quarter[lo:hi])
	}
}

// take gives items, in order, the next places of the walk, in node id.
func (b *quadBuild) take(id int32, items []int32) {
	for _, i := range items {
		b.rank[i] = b.next
		b.next++
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
