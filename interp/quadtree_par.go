package interp

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// gdal's quadtree as gdalQuadtreeIn builds it, by recursive partition instead of insertion, on
// every core. The tree does not depend on the order of insertion: a sample goes from a node to
// the first of its quarters that contains it, whatever else the tree holds; every sample that
// reaches a node lies in its box, which its four overlapping quarters cover; so a node splits
// exactly when more than quadBucket samples reach it (the arrival that finds a full bucket
// splits it), unless a quarter is the node itself (it never splits). A leaf keeps its samples
// in input order, as insertion leaves them (a split redispatches them in order, later samples
// come later). The pre-order ranks are then each leaf's samples in input order, leaf after
// leaf, children in quarter order.

// quadParMin is the size below which a subtree is built on the goroutine that reached it.
const quadParMin = 1 << 16

// quadtreeRanksParallel returns the ranks of gdalQuadtreeIn for the samples at (x, y) in the
// tree rooted at root, or nil when a sample fits none of a node's quarters (rounding at
// extreme scales), where only insertion gives gdal's tree.
func quadtreeRanksParallel(x, y []float64, root quadRect) []int32 {
	n := len(x)
	ids, tmp := make([]int32, n), make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	rank := make([]int32, n)
	b := &quadBuild{x: x, y: y, rank: rank, sem: make(chan struct{}, runtime.GOMAXPROCS(0))}
	b.node(ids, tmp, root, 0)
	b.wg.Wait()
	if b.failed.Load() {
		return nil
	}
	return rank
}

type quadBuild struct {
	x, y   []float64
	rank   []int32
	sem    chan struct{} // bounds the goroutines building subtrees
	wg     sync.WaitGroup
	failed atomic.Bool
}

// node ranks the samples ids (ascending), which reach the node of box r, from base; tmp is
// room of the same length.
func (b *quadBuild) node(ids, tmp []int32, r quadRect, base int32) {
	for {
		if len(ids) <= quadBucket {
			b.leaf(ids, base)
			return
		}
		h1, h2 := r.split()
		q1, q2 := h1.split()
		q3, q4 := h2.split()
		quads := [4]quadRect{q1, q2, q3, q4}
		for _, q := range quads {
			if q.same(r) {
				b.leaf(ids, base)
				return
			}
		}
		lo, at, ok := b.partition(ids, tmp, &quads)
		if !ok {
			b.failed.Store(true)
			return
		}
		// children 1..3 elsewhere when large, child 0 here
		for k := 3; k >= 1; k-- {
			sub, room := tmp[lo[k]:at[k]], ids[lo[k]:at[k]]
			subBase := base + int32(lo[k])
			if len(sub) >= quadParMin {
				select {
				case b.sem <- struct{}{}:
					b.wg.Add(1)
					go func(q quadRect) {
						defer func() { <-b.sem; b.wg.Done() }()
						b.node(sub, room, q, subBase)
					}(quads[k])
					continue
				default:
				}
			}
			b.node(sub, room, quads[k], subBase)
		}
		ids, tmp, r = tmp[:at[0]], ids[:at[0]], quads[0]
	}
}

// partition moves ids into tmp grouped by the first quarter containing each sample, keeping
// their order within a quarter; quarter k's are tmp[lo[k]:at[k]]. Large nodes are split into
// pieces that every core counts and places at once. ok is false when a sample fits no quarter.
func (b *quadBuild) partition(ids, tmp []int32, quads *[4]quadRect) (lo, at [4]int, ok bool) {
	pieces := runtime.GOMAXPROCS(0)
	if len(ids) < 4*quadParMin || pieces == 1 {
		return b.partitionHere(ids, tmp, quads)
	}
	counts := make([][5]int, pieces)
	piece := func(p int) []int32 { return ids[len(ids)*p/pieces : len(ids)*(p+1)/pieces] }
	b.each(pieces, func(p int) {
		for _, i := range piece(p) {
			counts[p][b.quarter(quads, i)+1]++
		}
	})
	total := 0
	for k := range 4 {
		lo[k] = total
		for p := range pieces {
			total += counts[p][k+1]
		}
	}
	if total != len(ids) {
		return lo, at, false
	}
	starts := make([][4]int, pieces)
	next := lo
	for p := range pieces {
		for k := range 4 {
			starts[p][k] = next[k]
			next[k] += counts[p][k+1]
		}
	}
	b.each(pieces, func(p int) {
		at := starts[p]
		for _, i := range piece(p) {
			k := b.quarter(quads, i)
			tmp[at[k]] = i
			at[k]++
		}
	})
	return lo, next, true
}

// partitionHere is partition on this goroutine.
func (b *quadBuild) partitionHere(ids, tmp []int32, quads *[4]quadRect) (lo, at [4]int, ok bool) {
	var counts [5]int
	for _, i := range ids {
		counts[b.quarter(quads, i)+1]++
	}
	if counts[0] > 0 {
		return lo, at, false
	}
	for k := 1; k < 4; k++ {
		lo[k] = lo[k-1] + counts[k]
	}
	at = lo
	for _, i := range ids {
		k := b.quarter(quads, i)
		tmp[at[k]] = i
		at[k]++
	}
	return lo, at, true
}

// each runs f(0..n-1) on n goroutines.
func (b *quadBuild) each(n int, f func(int)) {
	var wg sync.WaitGroup
	for p := range n {
		wg.Add(1)
		go func() { defer wg.Done(); f(p) }()
	}
	wg.Wait()
}

// quarter is the first of quads containing sample i, -1 for none.
func (b *quadBuild) quarter(quads *[4]quadRect, i int32) int {
	px, py := b.x[i], b.y[i]
	for k := range quads {
		if quads[k].contains(px, py) {
			return k
		}
	}
	return -1
}

func (b *quadBuild) leaf(ids []int32, base int32) {
	for k, i := range ids {
		b.rank[i] = base + int32(k)
	}
}
