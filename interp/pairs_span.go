package interp

import (
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/aidw/aidw/grid"
)

// average_distance_pts on gdal's quadtree (an unrotated search with more than 100 samples)
// computed pairSpanLanes nodes of a row's run at once. Node by node (Metric.squarePairs) each
// node lists its samples, sorts them by ID and sums the distances of their pairs one by one:
// about q²/2 square roots for q samples, and a sort, per node. Here the group's nodes share
// one scan of the cells and one sort of the candidates, and then each node's pairs are summed
// in a lane of its own, all lanes at once (pairSums): the square roots of eight nodes take one
// instruction. The lanes of a set of eight are the nodes of a run (pairSpanGroups groups) of
// closest sample counts, not those of one group.
//
// It gives the node-by-node values bit for bit. A node's samples are the same: the candidates
// cover every node's square, and each node takes those that pass squarePairs's tests, written
// the same. Their order is the same, ascending ID, and so is the order of the sums: a lane adds
// the distance of its pair (a,b) for a before b in its own list, row after row, as
// pairDistances does, with the same operations (a masked-off lane adds nothing). The last
// sample of each node's square in gdal's order is the one of greatest rank, or, in a Partial
// job (whose order tells the job what it compared), the one found with the comparisons that
// squarePairs makes, in the same order.

// pairSpanLanes is how many nodes a group holds: a lane each in pairSums.
const pairSpanLanes = 8

// pairSpanGroups is how many groups of a run share their nodes out among pairSums's lanes.
// pairSums takes as long for every lane as for the one with the most samples, q_max²/2 rows,
// so that eight neighbours' lanes, whose counts differ, waste a sixth of its square roots
// (17% with uniform samples, 78 to a node, counted in a model), and a run's 256 nodes sorted
// by count, eight to a set, 2%. Each node's lane and its sum are the same whichever set it is
// in.
const pairSpanGroups = 32

// pairSpan is average_distance_pts over gdal's quadtree search, bound to a problem.
type pairSpan struct {
	m     *Metric
	p     *Problem
	ix    *grid.Index
	order *gdalOrder
	ar    searchArea
	// h is the search square's half side; r1s and r2s the squared radii, as squarePairs
	// squares them.
	h, r1s, r2s float64
	// rank is each sample's place in gdal's order, in the index's order (outside a Partial
	// job, whose comparisons gdalOrder.compare must see), built on first use: the
	// candidates read it in runs instead of at random.
	rankOnce sync.Once
	rank     []int32
	// idBits is how many bits the largest sample ID takes.
	idBits int
}

// pairSpanSkipping is a skipping form that also computes runs of nodes.
type pairSpanSkipping struct {
	skipping
	ps *pairSpan
}

func (b *pairSpanSkipping) span(sc *scratch, row, col0, col1 int, skip []bool, out []float64) {
	b.ps.span(sc, row, col0, col1, skip, out)
}

// newPairSpan returns the run form of average_distance_pts over ar, or nil when ar is not
// gdal's quadtree search.
func newPairSpan(m *Metric, p *Problem, ix *grid.Index, ar searchArea, order *gdalOrder) *pairSpan {
	if !ar.Square || ar.Angle != 0 || ar.all() {
		return nil
	}
	return &pairSpan{m: m, p: p, ix: ix, order: order, ar: ar, h: ar.half(), r1s: ar.R1 * ar.R1, r2s: ar.R2 * ar.R2,
		idBits: bits.Len(uint(len(ix.Order)))}
}

// pairRoom is a worker's room for a run of groups: a pairBuf each, the lanes' samples of
// every set (lx, ly: a set's rows of pairSpanLanes, row a holding each lane's a-th sample) and
// the run's nodes.
type pairRoom struct {
	g      [pairSpanGroups]pairBuf
	lx, ly []float64
	nodes  []pairNode
	// order is the nodes by count: count<<32 | place in nodes; spare room for its sort.
	order, spare []uint64
}

// pairNode is a node of a run in pairSums's lanes.
type pairNode struct {
	count int32 // its samples
	at    int32 // its place in the run
	// start is its first sample's place in pairRoom.lx.
	start int32
}

// pairBuf is a worker's room for a group of nodes.
type pairBuf struct {
	// keys are the candidates, ID<<32 | place in x, y, rank; sq and in their lanes' bits: in
	// the node's square, and in its ellipse as well; rank their ranks (see pairSpan.rank).
	keys   []uint64
	spare  []uint64
	x, y   []float64
	sq, in []uint16
	rank   []int32
	// k is the group's nodes for pairMasks; msq and mel its bits for one cell row's samples,
	// cx and cy their coordinates when the index is compact.
	k        pairMaskKernel
	msq, mel []uint16
	cx, cy   []float64
	// live is the bits of the group's nodes.
	live uint16
	// early says that the candidates are those in a node's ellipse alone, with last and
	// counts found as they were kept: each lane's greatest rank<<1 | whether it takes it, of
	// the samples in its square (-1: none), and its count.
	early        bool
	last, counts [pairSpanLanes]int64
}

// span implements spanner.
func (ps *pairSpan) span(sc *scratch, row, col0, col1 int, skip []bool, out []float64) {
	const w = pairSpanLanes * pairSpanGroups
	for c := col0; c < col1; c += w {
		e := min(col1, c+w)
		var s []bool
		if skip != nil {
			s = skip[c-col0 : e-col0]
		}
		ps.run(sc, row, c, e, s, out[c-col0:e-col0])
	}
}

// run computes the nodes of row row from column col0 to col1 (at most pairSpanGroups groups):
// each group's candidates and its lanes' counts; then the nodes sorted by count fill the lanes
// of sets of pairSpanLanes, laid one after the other in room.lx, ly (a set's lanes at stride
// pairSpanLanes, a row more than its largest count), from which pairSums sums them.
func (ps *pairSpan) run(sc *scratch, row, col0, col1 int, skip []bool, out []float64) {
	room := &sc.pairs
	room.nodes = room.nodes[:0]
	var todo uint64                                // the groups with lanes to fill
	var lanes [pairSpanGroups][pairSpanLanes]int32 // each group's lanes' nodes in room.nodes
	for i, g := 0, col0; g < col1; i, g = i+1, g+pairSpanLanes {
		n := min(pairSpanLanes, col1-g)
		var gskip []bool
		if skip != nil {
			gskip = skip[g-col0 : g-col0+n]
		}
		pb := &room.g[i]
		live := ps.group(sc, pb, row, g, n, gskip, out[g-col0:g-col0+n])
		if live == 0 {
			continue
		}
		todo |= 1 << i
		counts := pb.laneCounts()
		for k := range n {
			if live&(1<<k) != 0 {
				lanes[i][k] = int32(len(room.nodes))
				room.nodes = append(room.nodes, pairNode{count: int32(counts[k]), at: int32(g - col0 + k)})
			}
		}
	}
	if todo == 0 {
		return
	}
	// The sets: the nodes in order of count, whose places stay those lanes[i] holds.
	order := room.order[:0]
	most := int32(0)
	for j, nd := range room.nodes {
		order = append(order, uint64(nd.count)<<32|uint64(j))
		most = max(most, nd.count)
	}
	order, room.spare = sortByHigh(order, room.spare, bits.Len32(uint32(most)))
	room.order = order
	size := 0
	for s := 0; s < len(order); s += pairSpanLanes {
		set := order[s:min(len(order), s+pairSpanLanes)]
		for j, v := range set {
			room.nodes[uint32(v)].start = int32(size + j)
		}
		size += (int(set[len(set)-1]>>32) + 1) * pairSpanLanes
	}
	spare := size // a lane without a node writes here, and never moves on
	size += pairSpanLanes
	room.lx, room.ly = longer(room.lx, size), longer(room.ly, size)
	var lastIn [pairSpanGroups]uint16
	for i := range pairSpanGroups {
		if todo&(1<<i) == 0 {
			continue
		}
		pb := &room.g[i]
		var next [pairSpanLanes]int64
		var counts [pairSpanLanes]int
		for k := range next {
			next[k] = int64(spare + k)
			if pb.live&(1<<k) != 0 {
				nd := room.nodes[lanes[i][k]]
				next[k], counts[k] = int64(nd.start), int(nd.count)
			}
		}
		lastIn[i] = ps.lanes(pb, room.lx, room.ly, &next, &counts)
	}
	for s := 0; s < len(order); s += pairSpanLanes {
		set := order[s:min(len(order), s+pairSpanLanes)]
		var counts [pairSpanLanes]int
		for j, v := range set {
			counts[j] = int(v >> 32)
		}
		var sums [pairSpanLanes]float64
		at := int(room.nodes[uint32(set[0])].start)
		pairSums(room.lx[at:], room.ly[at:], &counts, &sums)
		for j, v := range set {
			nd := room.nodes[uint32(v)]
			q := int(nd.count)
			pairs := q * (q + 1) / 2
			g := int(nd.at) / pairSpanLanes
			if lastIn[g]&(1<<(int(nd.at)%pairSpanLanes)) != 0 {
				pairs--
			}
			out[nd.at] = ps.m.mean(sums[j], pairs)
		}
	}
}

// group lists in pb the candidates of the n (at most pairSpanLanes) nodes of row row from
// column col0 on, and returns the bits of the nodes whose lanes are to fill; it computes
// here, each on its own, the nodes of a group too far apart to share candidates.
func (ps *pairSpan) group(sc *scratch, pb *pairBuf, row, col0, n int, skip []bool, out []float64) (live uint16) {
	var xs, ys [pairSpanLanes]float64
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for k := range n {
		if skip != nil && skip[k] {
			continue
		}
		xs[k], ys[k] = ps.p.NodeXY(col0+k, row)
		live |= 1 << k
		x0, y0, x1, y1 = min(x0, xs[k]), min(y0, ys[k]), max(x1, xs[k]), max(y1, ys[k])
	}
	if live == 0 {
		return 0
	}
	if x1-x0 > 4*ps.h || y1-y0 > 4*ps.h || math.IsNaN(x0+y0+x1+y1) {
		// nodes far apart (a rotated or very coarse target): each on its own
		for k := range n {
			if live&(1<<k) != 0 {
				out[k] = ps.node(sc, xs[k], ys[k])
			}
		}
		return 0
	}
	ps.candidates(pb, &xs, &ys, live, x0, y0, x1, y1)
	pb.live = live
	return live
}

// countBits is how many of the candidates each lane takes: the bits of in, counted.
func countBits(in []uint16) (counts [pairSpanLanes]int) {
	for len(in) > 0 {
		part := in[:min(len(in), 255)] // a byte a lane holds 255
		in = in[len(part):]
		var acc uint64
		for _, m := range part {
			// bit k of m to byte k: bits 0-6 by one product (no two terms overlap), bit 7 apart
			acc += uint64(m&0x7f)*0x0002040810204081&0x0101010101010101 | uint64(m>>7&1)<<56
		}
		for k := range counts {
			counts[k] += int(acc >> (8 * k) & 0xff)
		}
	}
	return counts
}

// node is one node on its own, as the node-by-node form computes it.
func (ps *pairSpan) node(sc *scratch, x, y float64) float64 {
	sum, pairs := ps.m.squarePairs(sc, ps.p.Samples, ps.ix, ps.ar, ps.order, -1, x, y)
	return ps.m.mean(sum, pairs)
}

// ranks returns pairSpan.rank, nil in a Partial job.
func (ps *pairSpan) ranks() []int32 {
	if ps.order.job != nil {
		return nil
	}
	ps.rankOnce.Do(func() {
		byID := ps.order.ranks()
		ps.rank = make([]int32, len(ps.ix.Order))
		for j, id := range ps.ix.Order {
			ps.rank[j] = byID[id]
		}
	})
	return ps.rank
}

// candidates lists in pb the samples in the square of any live node of (xs, ys), whose box
// is [x0,x1]x[y0,y1], sorted by ID, with their lanes' bits.
func (ps *pairSpan) candidates(pb *pairBuf, xs, ys *[pairSpanLanes]float64, live uint16, x0, y0, x1, y1 float64) {
	ix := ps.ix
	l := &ix.Layout
	h := ps.h
	k := &pb.k
	*k = pairMaskKernel{h: h, r1s: ps.r1s, r2s: ps.r2s, r12s: ps.r1s * ps.r2s, absMask: 1<<63 - 1}
	for lane := range pairSpanLanes {
		k.xs[lane], k.ys[lane] = math.Inf(1), math.Inf(1)
		if live&(1<<lane) != 0 {
			k.xs[lane], k.ys[lane] = xs[lane], ys[lane]
		}
	}
	pad := h*(1+1e-9) + l.Cell*1e-6
	c0 := cellIndex((x0-pad-l.MinX)*l.InvCell, l.Cols)
	c1 := cellIndex((x1+pad-l.MinX)*l.InvCell, l.Cols)
	r0 := cellIndex((y0-pad-l.MinY)*l.InvCell, l.Rows)
	r1 := cellIndex((y1+pad-l.MinY)*l.InvCell, l.Rows)
	rank := ps.ranks()
	// With the ranks at hand and AVX-512, one loop tests and keeps the samples, and finds each
	// lane's count and last sample on the way: only those in an ellipse are kept (see early).
	pb.early = rank != nil && takeEarly()
	pb.last, pb.counts = [pairSpanLanes]int64{-1, -1, -1, -1, -1, -1, -1, -1}, [pairSpanLanes]int64{}
	n := 0
	for r := r0; r <= r1; r++ {
		lo, hi := int(ix.Start[r*l.Cols+c0]), int(ix.Start[r*l.Cols+c1+1])
		if lo >= hi {
			continue
		}
		px, py := pb.coords(ix, lo, hi)
		pb.room(n + len(px))
		if pb.early {
			n = pb.takeEarly(n, ix.Order[lo:hi], rank[lo:hi], px, py)
			continue
		}
		if cap(pb.msq) < len(px) {
			pb.msq, pb.mel = make([]uint16, len(px)), make([]uint16, len(px))
		}
		msq, mel := pb.msq[:len(px)], pb.mel[:len(px)]
		pairMasks(k, px, py, msq, mel)
		var rk []int32
		if rank != nil {
			rk = rank[lo:hi]
		}
		n = pb.take(n, ix.Order[lo:hi], rk, px, py, msq, mel)
	}
	pb.keys, pb.x, pb.y, pb.sq, pb.in = pb.keys[:n], pb.x[:n], pb.y[:n], pb.sq[:n], pb.in[:n]
	pb.rank = pb.rank[:0]
	switch {
	case pb.early: // the squares' bits and the ranks are spent
		pb.sq = pb.sq[:0]
	case rank != nil:
		pb.rank = pb.rank[:n]
	}
	pb.keys, pb.spare = sortByHigh(pb.keys, pb.spare, ps.idBits)
}

// laneCounts is how many samples each lane takes.
func (pb *pairBuf) laneCounts() (counts [pairSpanLanes]int) {
	if !pb.early {
		return countBits(pb.in)
	}
	for k, c := range pb.counts {
		counts[k] = int(c)
	}
	return counts
}

// room makes pb's candidates n long, keeping what they hold.
func (pb *pairBuf) room(n int) {
	pb.keys, pb.x, pb.y = longer(pb.keys, n), longer(pb.x, n), longer(pb.y, n)
	pb.sq, pb.in, pb.rank = longer(pb.sq, n), longer(pb.in, n), longer(pb.rank, n)
}

// longer returns s n long, with what it holds.
func longer[T any](s []T, n int) []T {
	if cap(s) < n {
		s = slices.Grow(s[:cap(s)], max(n, 2*cap(s))-cap(s))
	}
	return s[:n]
}

// take appends to pb's first n candidates the samples of a cell row (their IDs, ranks, or
// nil, places and bits) that are in a node's square, and returns the candidates' count. Each
// sample is written at the next place, which moves on only past those kept: no branch on
// which are.
func (pb *pairBuf) take(n int, ids, rank []int32, px, py []float64, msq, mel []uint16) int {
	keys, x, y, sq, in := pb.keys[n:], pb.x[n:], pb.y[n:], pb.sq[n:], pb.in[n:]
	rk := pb.rank[n:]
	m := 0
	for j, s := range msq {
		keys[m] = uint64(ids[j])<<32 | uint64(n+m)
		x[m], y[m] = px[j], py[j]
		sq[m], in[m] = s, mel[j]
		if rank != nil {
			rk[m] = rank[j]
		}
		m += int((uint32(s) + 0xffff) >> 16) // 1 for a sample in a square
	}
	return n + m
}

// coords returns the coordinates of the index's samples [lo,hi): its own, or those of a
// compact index in pb's room.
func (pb *pairBuf) coords(ix *grid.Index, lo, hi int) (px, py []float64) {
	if ix.QX == nil {
		return ix.X[lo:hi], ix.Y[lo:hi]
	}
	pb.cx, pb.cy = pb.cx[:0], pb.cy[:0]
	for j := lo; j < hi; j++ {
		pb.cx = append(pb.cx, float64(ix.QX[j])*ix.QuantumX)
		pb.cy = append(pb.cy, float64(ix.QY[j])*ix.QuantumY)
	}
	return pb.cx, pb.cy
}

// pairMaskKernel is what pairMasksAVX512 and pairMasksAVX2 read, at the offsets they read it
// from: the group's nodes (+Inf in a lane without one, which no sample is near), the square's
// half side and the squared radii.
type pairMaskKernel struct {
	xs, ys            [pairSpanLanes]float64
	h, r1s, r2s, r12s float64
	absMask           uint64
}

// pairMasksGo sets sq[j] to the bits of the nodes whose square holds the sample (px[j],
// py[j]), and in[j] to those whose ellipse holds it as well, with squarePairs's tests.
func pairMasksGo(k *pairMaskKernel, px, py []float64, sq, in []uint16) {
	for j, sx := range px {
		sy := py[j]
		var s, e uint16
		for l := range pairSpanLanes {
			dx, dy := sx-k.xs[l], sy-k.ys[l]
			if math.Abs(dx) <= k.h && math.Abs(dy) <= k.h {
				s |= 1 << l
				if float64(k.r2s*dx*dx)+float64(k.r1s*dy*dy) <= k.r12s {
					e |= 1 << l
				}
			}
		}
		sq[j], in[j] = s, e
	}
}

// lanes fills each lane's samples from the sorted candidates into lx and ly, lane k's from
// next[k] on at stride pairSpanLanes (counts[k] of them, and room for one more), and returns
// the bits of the lanes whose square's last sample in gdal's order is in the ellipse.
func (ps *pairSpan) lanes(pb *pairBuf, lx, ly []float64, next *[pairSpanLanes]int64, counts *[pairSpanLanes]int) (lastIn uint16) {
	for k, q := range counts {
		_, _ = lx[next[k]+int64(q)*pairSpanLanes], ly[next[k]+int64(q)*pairSpanLanes]
	}
	if pb.early {
		lanesFill(pb, lx, ly, next)
		for k, v := range pb.last {
			lastIn |= uint16(v>>63+1) & uint16(v&1) << k // v >= 0 and odd
		}
		return lastIn
	}
	if len(pb.rank) > 0 {
		return pb.lanesRanked(lx, ly, next)
	}
	return ps.lanesCompared(pb, lx, ly, next)
}

// lanesRanked is lanes with the candidates' ranks at hand, without a branch on the samples
// (which of a candidate's lanes take it is not foreseeable): each lane keeps the greatest of
// its candidates' rank<<32 | place (-1 for a candidate outside its square), and the lanes that
// take a candidate put it at their next place and move on.
func (pb *pairBuf) lanesRanked(lx, ly []float64, next *[pairSpanLanes]int64) (lastIn uint16) {
	var last [pairSpanLanes]int64
	for k := range last {
		last[k] = -1
	}
	lanesRankedGo(pb, lx, ly, next, &last)
	for k, rc := range last {
		if rc >= 0 {
			lastIn |= pb.in[uint32(rc)] & (1 << k)
		}
	}
	return lastIn
}

// lanesRankedGo is lanesRanked's loop: next holds each lane's next place in lx and ly. Every
// lane writes the candidate at its next place, which only those that take it leave. (With
// AVX-512, takeEarly and lanesFill do its work.)
func lanesRankedGo(pb *pairBuf, lx, ly []float64, next, last *[pairSpanLanes]int64) {
	for _, key := range pb.keys {
		c := uint32(key)
		sq, in := pb.sq[c], pb.in[c]
		rc := int64(pb.rank[c])<<32 | int64(c)
		x, y := pb.x[c], pb.y[c]
		for k := range pairSpanLanes {
			last[k] = max(last[k], rc|(int64(sq>>k&1)-1))
			p := next[k]
			lx[p], ly[p] = x, y
			next[k] += int64(in>>k&1) * pairSpanLanes
		}
	}
}

// lanesCompared is lanes in a Partial job, which must see the comparisons in gdal's order
// that squarePairs makes: each lane's, in its samples' order.
func (ps *pairSpan) lanesCompared(pb *pairBuf, lx, ly []float64, next *[pairSpanLanes]int64) (lastIn uint16) {
	var last [pairSpanLanes]int32
	for k := range last {
		last[k] = -1
	}
	for _, key := range pb.keys {
		id, c := int32(key>>32), uint32(key)
		sq, in := pb.sq[c], pb.in[c]
		for b := sq; b != 0; b &= b - 1 {
			k := bits.TrailingZeros16(b)
			if last[k] < 0 || ps.order.compare(id, last[k]) > 0 {
				last[k] = id
				lastIn = lastIn&^(1<<k) | in&(1<<k)
			}
		}
		for b := in; b != 0; b &= b - 1 {
			k := bits.TrailingZeros16(b)
			p := next[k]
			lx[p], ly[p] = pb.x[c], pb.y[c]
			next[k] += pairSpanLanes
		}
	}
	return lastIn
}

// pairSumsGo is pairSums in Go: each lane's pairs summed as pairDistances sums them.
func pairSumsGo(lx, ly []float64, counts *[pairSpanLanes]int, sums *[pairSpanLanes]float64) {
	for k, q := range counts {
		sum := 0.0
		for a := range q {
			xa, ya := lx[a*pairSpanLanes+k], ly[a*pairSpanLanes+k]
			for b := a + 1; b < q; b++ {
				dx, dy := lx[b*pairSpanLanes+k]-xa, ly[b*pairSpanLanes+k]-ya
				sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
			}
		}
		sums[k] = sum
	}
}

// sortByHigh sorts keys, whose high 32 bits take at most idBits bits, by those bits (keys
// equal there in some order: a group's IDs are distinct, and nodes of equal counts may share
// a set in any order), with spare as room. It returns the sorted keys and the room, which may
// have swapped.
func sortByHigh(keys, spare []uint64, idBits int) (sorted, room []uint64) {
	if len(keys) < 48 {
		slices.Sort(keys)
		return keys, spare
	}
	spare = longer(spare, len(keys))
	if len(keys) > 2048 {
		// a radix sort, a byte at a time
		for d := range (idBits + 7) / 8 {
			if byteSort(keys, spare, uint(32+8*d)) {
				keys, spare = spare, keys
			}
		}
		return keys, spare
	}
	// A group's few hundred keys: by the IDs' top byte, about one key to a bucket, then an
	// insertion sort, which moves each key within its bucket at most.
	if byteSort(keys, spare, uint(32+max(0, idBits-8))) {
		keys, spare = spare, keys
	}
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
	return keys, spare
}

// byteSort puts keys into room sorted by their byte at shift, stably; it returns false, and
// leaves room alone, when every key has the same byte there.
func byteSort(keys, room []uint64, shift uint) bool {
	var count [256]int
	for _, k := range keys {
		count[byte(k>>shift)]++
	}
	if count[byte(keys[0]>>shift)] == len(keys) {
		return false
	}
	at := 0
	for i, c := range count {
		count[i] = at
		at += c
	}
	for _, k := range keys {
		b := byte(k >> shift)
		room[count[b]] = k
		count[b]++
	}
	return true
}
