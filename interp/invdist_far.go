package interp

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// farTree computes invdist's all-samples sums on a north-up raster in far and near parts, so
// that each sample meets a few thousand interpolation points instead of every node: 20,000
// samples onto 1000 x 1000 nodes take about 1e9 sample-point pairs instead of 2e10.
//
// The nodes are split into a tree of boxes (halving columns and rows down to leaves of at
// most farLeaf of each). A sample farther than one box side from a box (in each coordinate,
// max-norm) contributes to the box a smooth function: 1/((x-xi)^2 + (y-yi)^2 + s2)^(p/2) has
// its singularities in the complex plane at least one side away, so its tensor Chebyshev
// interpolant on farPoints x farPoints points converges like 4.2^-n, to ~1e-16 of the sums
// at n = 24. Each sample is summed, in float64, at the points of the one box where it first
// becomes far (near the parent, far from the box), and the parent's interpolant is carried
// down to its children's points (exact for polynomials of that degree); at a leaf, the samples
// still near (within a leaf side) are summed directly at each node, as the plain kernel does,
// and a node with a sample within gdal's exact-hit distance is left to gdal's own loop. The
// values agree with a compensated float64 brute force to 1e-14 of sum(|z| w) / sum(w)
// (TestFarTreeAccuracy, TestFarTreePowers).
//
// Each box and leaf sums its samples in input order, so that a stream of the samples, which
// comes in that order, gives the same bits (see farStream).
//
// Boxes and leaves are computed on demand, once, by whichever worker first needs them, and
// dropped when no longer needed: a leaf once its nodes have all been handed out, a box once
// its children have taken its interpolant. Every node of the raster comes from its leaf, so
// that its value does not depend on which worker asked first.
type farTree struct {
	s    *sample.Samples
	ix   *grid.Index
	sums farSums
	// one computes a node by the plain kernel, with gdal's exact-hit rule; finish makes the
	// value of the sums.
	one    func(x, y float64) float64
	finish func(num, den float64) float64
	bufs   sync.Pool // of *farSamples
	nx, ny []float64 // node x of each column, node y of each row
	boxes  []*farBox
	// leafCol and leafRow give the leaf interval of each column and row; leaves[j*leafCols+i]
	// is the box of leaf interval (i, j).
	leafCol, leafRow []int32
	leafCols         int
	leaves           []int32
	// leafMax is the most columns or rows of a leaf: farLeaf, or more on rasters so large
	// that the boxes themselves would take too much memory.
	leafMax int
}

// farSamples is a gathered set of samples, padded to a multiple of 8 with samples that weigh
// nothing (see farPad).
type farSamples struct {
	x, y, z  []float64
	ids, tmp []int32
}

// farPad is where padding samples lie: 1/(d*d') overflows to 0 for them and any node, so both
// weights of a pair that shares a division are 0.
const farPad = 1e150

// farSums is the kernel of a tree: sums set num[k] and den[k] to the sums of z w and w over
// the samples (xs, ys, zs) for the 8 points (px[k], y), w the weight at r2 = d2 + s2; where a
// sample is within gdal's exact-hit distance of a point, den[k] need only be >= 1e13, Inf or
// NaN. Power 2 takes samples padded with farPad (which weigh exactly nothing only for its
// kernels), a multiple of 8 of them, through the row kernel; other powers one at a time. Its
// add and end run the same sums over samples that come in runs (see rowKind).
type farSums struct {
	power2 bool
	rows   rowKind // power 2
	w      invPower
	s2     float64
}

func newFarSums(a *InvDist) farSums {
	// Padded samples come in multiples of 8, so that the row kernel is the one for 8.
	return farSums{power2: a.Power == 2, rows: rowKernelFor(8), w: newInvPower(a.Power), s2: a.Smoothing * a.Smoothing}
}

// block is how many samples add takes at a time.
func (f farSums) block() int {
	if f.power2 {
		return f.rows.block()
	}
	return 1
}

// width is how many sums add keeps for 8 points.
func (f farSums) width() int {
	if f.power2 {
		return f.rows.width()
	}
	return 2 * batchNodes
}

// add adds whole blocks of samples to the 8 points' sums in acc.
func (f farSums) add(xs, ys, zs []float64, px *[batchNodes]float64, y float64, acc []float64) {
	if f.power2 {
		f.rows.add(xs, ys, zs, px, y, f.s2, acc)
		return
	}
	f.w.rowAdd(xs, ys, zs, px, y, f.s2, (*[batchNodes]float64)(acc), (*[batchNodes]float64)(acc[batchNodes:]))
}

// end adds the rest and sets num and den to the sums.
func (f farSums) end(xs, ys, zs []float64, px *[batchNodes]float64, y float64, acc []float64, num, den *[batchNodes]float64) {
	if f.power2 {
		f.rows.end(xs, ys, zs, px, y, f.s2, acc, num, den)
		return
	}
	f.add(xs, ys, zs, px, y, acc)
	*num, *den = [batchNodes]float64(acc), [batchNodes]float64(acc[batchNodes:])
}

// sums sums every sample.
func (f farSums) sums(xs, ys, zs []float64, px *[batchNodes]float64, y float64, num, den *[batchNodes]float64) {
	if f.power2 {
		f.rows.all(xs, ys, zs, px, y, f.s2, num, den)
		return
	}
	*num, *den = [batchNodes]float64{}, [batchNodes]float64{}
	f.w.rowAdd(xs, ys, zs, px, y, f.s2, num, den)
}

const (
	farPoints = 24 // Chebyshev points per dimension of a box
	farLeaf   = 48 // boxes split while they span more columns or rows than this
	// farMaxLeaves bounds the number of leaves, and so the tree's own memory.
	farMaxLeaves = 1 << 17
	// farMinNodes is the fewest nodes a raster needs for the tree to pay.
	farMinNodes = 4 * farLeaf * farLeaf
	// farMaxPower is the largest power the tree takes: TestFarTreePowers checks up to it.
	farMaxPower = 8
)

// farBox is a box of nodes: columns [c0,c1), rows [r0,r1).
type farBox struct {
	c0, c1, r0, r1 int
	id, parent     int32
	// x0, x1, y0, y1 bound the box's nodes; near is the rectangle [near[0],near[1]] x
	// [near[2],near[3]] whose samples are not interpolated at this box: the box grown by
	// one side, within the parent's near rectangle.
	x0, x1, y0, y1 float64
	near           [4]float64
	// The box's own frame: centre (mx, my) and half sides hx, hy. Its points are at offsets
	// h*chebCos from the centre, and distances from them are taken from offsets too, so
	// that they keep full relative precision however far the origin is.
	mx, my, hx, hy float64
	// direct marks a leaf with no more nodes than interpolation points: the samples far from
	// it but near its parent are summed at its nodes rather than at its points.
	direct bool
	once   sync.Once
	// field holds the sums at the Chebyshev points, z/r2 then 1/r2, point (i,k) (x index i,
	// y index k) at k*farPoints+i: from the samples far from this box but not its parent, plus
	// the parent's interpolant.
	field []float64
	// kids counts the children that have yet to take field.
	kids atomic.Int32
	// leafOnce, values, asked: leaves only. values holds the nodes' values row-major once
	// computed, until asked, which counts the nodes handed out, reaches their number.
	leafOnce sync.Once
	values   atomic.Pointer[[]float64]
	asked    atomic.Int32
}

// chebCos[j] is cos((2j+1)pi/(2n)), the Chebyshev points of the first kind on [-1,1];
// chebW[j] their barycentric weights (-1)^j sin((2j+1)pi/(2n)).
var chebCos, chebW = chebyshev(farPoints)

func chebyshev(n int) (c, w [farPoints]float64) {
	for j := range n {
		t := float64(2*j+1) * math.Pi / float64(2*n)
		c[j], w[j] = math.Cos(t), math.Sin(t)
		if j%2 == 1 {
			w[j] = -w[j]
		}
	}
	return c, w
}

// newFarTree returns the tree for the problem's raster and s, its samples in the plain form,
// or nil where it does not pay or does not apply (see newFarBoxes and farTreeSample).
func newFarTree(p *Problem, s *sample.Samples, ix *grid.Index, sums farSums, one func(x, y float64) float64, finish func(num, den float64) float64) *farTree {
	if !farTreeRaster(p.Target) {
		return nil
	}
	for i, z := range s.Z {
		if !farTreeSample(s.X[i], s.Y[i], z) {
			return nil
		}
	}
	ft := newFarBoxes(p.Target, s.OriginX, s.OriginY)
	if ft == nil {
		return nil
	}
	ft.s, ft.ix, ft.sums, ft.one, ft.finish = s, ix, sums, one, finish
	ft.bufs.New = func() any { return new(farSamples) }
	return ft
}

// farTreeSample says whether the tree takes a sample at (x, y) relative to the origin, of
// value z: interpolating infinite sums would turn them into NaN, and padding samples must stay
// far beyond every sample.
func farTreeSample(x, y, z float64) bool {
	return !math.IsInf(z, 0) && math.Abs(x) < 1e99 && math.Abs(y) < 1e99
}

// newFarBoxes returns the tree's boxes for raster t, its nodes relative to the origin (ox, oy),
// or nil where the tree does not apply: a small or rotated raster, or one whose nodes are so
// close together that a far sample could be within gdal's exact-hit distance.
func newFarBoxes(t raster.Target, ox, oy float64) *farTree {
	if !farTreeRaster(t) {
		return nil
	}
	ft := &farTree{nx: make([]float64, t.Cols), ny: make([]float64, t.Rows)}
	for c := range ft.nx {
		ft.nx[c], _ = t.Node(c, 0, ox, oy)
	}
	for r := range ft.ny {
		_, ft.ny[r] = t.Node(0, r, ox, oy)
	}
	if !strictlyMonotonic(ft.nx) || !strictlyMonotonic(ft.ny) || max(math.Abs(ft.nx[0]), math.Abs(ft.nx[t.Cols-1]),
		math.Abs(ft.ny[0]), math.Abs(ft.ny[t.Rows-1])) > 1e100 {
		return nil
	}
	ft.leafMax = farLeaf
	for (t.Cols/ft.leafMax+1)*(t.Rows/ft.leafMax+1) > farMaxLeaves {
		ft.leafMax *= 2
	}
	dx, dy := depth(t.Cols, ft.leafMax), depth(t.Rows, ft.leafMax)
	ft.leafCol, ft.leafCols = intervals(t.Cols, dx)
	var leafRows int
	ft.leafRow, leafRows = intervals(t.Rows, dy)
	ft.leaves = make([]int32, ft.leafCols*leafRows)
	ft.build(0, t.Cols, 0, t.Rows, 0, max(dx, dy), dx, dy, -1)
	for _, l := range ft.leaves {
		bx := ft.boxes[l]
		// A far sample is at least one leaf side from the leaf's nodes.
		if side := max(bx.x1-bx.x0, bx.y1-bx.y0); !(side*side > 1e6*exactHitD2) {
			return nil
		}
	}
	return ft
}

// farTreeRaster says whether the tree may apply to the raster t, as far as t decides.
func farTreeRaster(t raster.Target) bool {
	// With a mask, leaves whose nodes are not all asked for stay in memory, a value per node.
	return northUp(t) && min(t.Cols, t.Rows) >= farPoints && t.Cols*t.Rows >= farMinNodes && !(t.Mask != nil && t.Cols*t.Rows > 8<<20)
}

func strictlyMonotonic(v []float64) bool {
	for i := 2; i < len(v); i++ {
		if (v[i]-v[i-1])*(v[1]-v[0]) <= 0 {
			return false
		}
	}
	return v[1] != v[0]
}

// depth is how many halvings bring n nodes to at most most.
func depth(n, most int) int {
	d := 0
	for ; n > most; n = (n + 1) / 2 {
		d++
	}
	return d
}

// intervals halves [0,n) d times and returns the interval of each index and their number.
func intervals(n, d int) ([]int32, int) {
	of := make([]int32, n)
	count := 0
	var split func(lo, hi, d int)
	split = func(lo, hi, d int) {
		if d == 0 {
			for i := lo; i < hi; i++ {
				of[i] = int32(count)
			}
			count++
			return
		}
		mid := (lo + hi) / 2
		split(lo, mid, d-1)
		split(mid, hi, d-1)
	}
	split(0, n, d)
	return of, count
}

// build appends the box of columns [c0,c1) and rows [r0,r1) at depth d and its subtree:
// columns split while d < dx, rows while d < dy, down to depth leaf.
func (t *farTree) build(c0, c1, r0, r1, d, leaf, dx, dy int, parent int32) {
	id := int32(len(t.boxes))
	b := &farBox{c0: c0, c1: c1, r0: r0, r1: r1, parent: parent, id: id}
	t.boxes = append(t.boxes, b)
	b.x0, b.x1 = min(t.nx[c0], t.nx[c1-1]), max(t.nx[c0], t.nx[c1-1])
	b.y0, b.y1 = min(t.ny[r0], t.ny[r1-1]), max(t.ny[r0], t.ny[r1-1])
	b.mx, b.my, b.hx, b.hy = (b.x0+b.x1)/2, (b.y0+b.y1)/2, (b.x1-b.x0)/2, (b.y1-b.y0)/2
	m := max(b.x1-b.x0, b.y1-b.y0)
	b.near = [4]float64{b.x0 - m, b.x1 + m, b.y0 - m, b.y1 + m}
	if parent >= 0 {
		p := t.boxes[parent].near
		b.near = [4]float64{max(b.near[0], p[0]), min(b.near[1], p[1]), max(b.near[2], p[2]), min(b.near[3], p[3])}
	}
	if d == leaf {
		b.direct = (c1-c0)*(r1-r0) <= farPoints*farPoints
		t.leaves[int(t.leafRow[r0])*t.leafCols+int(t.leafCol[c0])] = id
		return
	}
	cs, rs := [][2]int{{c0, c1}}, [][2]int{{r0, r1}}
	if d < dx {
		cs = [][2]int{{c0, (c0 + c1) / 2}, {(c0 + c1) / 2, c1}}
	}
	if d < dy {
		rs = [][2]int{{r0, (r0 + r1) / 2}, {(r0 + r1) / 2, r1}}
	}
	b.kids.Store(int32(len(cs) * len(rs)))
	for _, r := range rs {
		for _, c := range cs {
			t.build(c[0], c[1], r[0], r[1], d+1, leaf, dx, dy, id)
		}
	}
}

// span sets out[k] to the node of row row and column col0+k, for the columns [col0,col1)
// that skip (nil: none) does not mark, from their leaves, computing each leaf on first use.
// A leaf asked for again after its values were dropped (a node asked for twice) gives way to
// the plain kernel.
func (t *farTree) span(row, col0, col1 int, skip []bool, out []float64) {
	leafRow := int(t.leafRow[row]) * t.leafCols
	for c := col0; c < col1; {
		l := t.boxes[t.leaves[leafRow+int(t.leafCol[c])]]
		end := min(col1, l.c1)
		asked := end - c
		if skip != nil {
			asked = 0
			for _, s := range skip[c-col0 : end-col0] {
				if !s {
					asked++
				}
			}
		}
		if asked > 0 {
			l.leafOnce.Do(func() { t.computeLeaf(l) })
			v := l.values.Load()
			for k := c; k < end; k++ {
				switch {
				case skip != nil && skip[k-col0]:
				case v == nil:
					out[k-col0] = t.one(t.nx[k], t.ny[row])
				default:
					out[k-col0] = (*v)[(row-l.r0)*(l.c1-l.c0)+k-l.c0]
				}
			}
			// Once every node is handed out, the leaf's values go.
			if l.asked.Add(int32(asked)) == int32((l.c1-l.c0)*(l.r1-l.r0)) {
				l.values.Store(nil)
			}
		}
		c = end
	}
}

// fieldOf returns box b's field, computing it (and its ancestors') on first use.
func (t *farTree) fieldOf(id int32) []float64 {
	b := t.boxes[id]
	b.once.Do(func() {
		var pf []float64
		if b.parent >= 0 {
			pf = t.fieldOf(b.parent)
		}
		b.field = t.field(b, pf, func(f []float64) { t.addFar(b, f) })
		if b.parent >= 0 {
			if p := t.boxes[b.parent]; p.kids.Add(-1) == 0 {
				p.field = nil
			}
		}
	})
	return b.field
}

// field makes box b's field: its parent's field pf (nil for the root) carried down, then,
// unless b is direct, its own far sums, which own adds.
func (t *farTree) field(b *farBox, pf []float64, own func(f []float64)) []float64 {
	f := make([]float64, 2*farPoints*farPoints)
	if pf != nil {
		t.carry(t.boxes[b.parent], b, pf, f)
	}
	if !b.direct {
		own(f)
	}
	return f
}

// points returns the Chebyshev points of [-half,half].
func points(half float64) (p [farPoints]float64) {
	for j, c := range chebCos {
		p[j] = half * c
	}
	return p
}

// basis returns the Lagrange basis of the Chebyshev points of [-half,half] at v, by the
// barycentric formula.
func basis(v, half float64) (l [farPoints]float64) {
	u := v / half
	var sum float64
	for j, c := range chebCos {
		d := u - c
		if d == 0 {
			l = [farPoints]float64{}
			l[j] = 1
			return l
		}
		l[j] = chebW[j] / d
		sum += l[j]
	}
	for j := range l {
		l[j] /= sum
	}
	return l
}

// carry adds the parent's interpolant at the child's points to f: f += ay pf ax^T, with the
// parent's basis at the child's points in ax (x) and ay (y), as axpy loops that run at the
// pace of the FPU rather than of its latency.
func (t *farTree) carry(p, c *farBox, pf, f []float64) {
	const n = farPoints
	var axT, ay [n][n]float64 // axT[j][i]: the parent's x basis j at the child's x point i
	px, py := points(c.hx), points(c.hy)
	ox, oy := c.mx-p.mx, c.my-p.my
	for i := range n {
		for j, v := range basis(ox+px[i], p.hx) {
			axT[j][i] = v
		}
		ay[i] = basis(oy+py[i], p.hy)
	}
	for h := range 2 {
		src := (*[n * n]float64)(pf[h*n*n:])
		dst := (*[n * n]float64)(f[h*n*n:])
		var tmp [n][n]float64 // tmp[l][i]: row l of the parent's field at the child's x point i
		for l := range n {
			tl := &tmp[l]
			for j := range n {
				a, row := src[l*n+j], &axT[j]
				for i := range n {
					tl[i] += a * row[i]
				}
			}
		}
		for k := range n {
			out := (*[n]float64)(dst[k*n:])
			for l, a := range ay[k] {
				tl := &tmp[l]
				for i := range n {
					out[i] += a * tl[i]
				}
			}
		}
	}
}

// addFar adds to f the sums at b's points over its far samples (see farIn).
func (t *farTree) addFar(b *farBox, f []float64) {
	in, out := t.farIn(b)
	g := t.gather(in, out)
	defer t.bufs.Put(g)
	xs, ys, zs := g.x, g.y, g.z
	if len(xs) == 0 {
		return
	}
	for i := range xs {
		xs[i] -= b.mx
		ys[i] -= b.my
	}
	t.addPoints(b, f, func(_ int, px *[batchNodes]float64, y float64, num, den *[batchNodes]float64) {
		t.sums.sums(xs, ys, zs, px, y, num, den)
	})
}

// farIn is the rectangle of box b's far samples, less the rectangle out: those far from b
// but near its parent (all samples for the root).
func (t *farTree) farIn(b *farBox) (in, out [4]float64) {
	in = [4]float64{math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)}
	if b.parent >= 0 {
		in = t.boxes[b.parent].near
	}
	return in, b.near
}

// pointBatches is how many batches of 8 of a box's points there are.
const pointBatches = farPoints * farPoints / batchNodes

// pointBatch is batch j of box b's points, relative to its centre: their x, their y.
func pointBatch(b *farBox, j int) (px [batchNodes]float64, y float64) {
	xs, ys := points(b.hx), points(b.hy)
	k, i0 := j/(farPoints/batchNodes), j%(farPoints/batchNodes)*batchNodes
	copy(px[:], xs[i0:i0+batchNodes])
	return px, ys[k]
}

// addPoints adds to f the sums at b's points that sums gives for each batch j.
func (t *farTree) addPoints(b *farBox, f []float64, sums func(j int, px *[batchNodes]float64, y float64, num, den *[batchNodes]float64)) {
	const n = farPoints
	var num, den [batchNodes]float64
	for j := range pointBatches {
		px, y := pointBatch(b, j)
		sums(j, &px, y, &num, &den)
		at := j/(n/batchNodes)*n + j%(n/batchNodes)*batchNodes
		for i := range batchNodes {
			f[at+i] += num[i]
			f[n*n+at+i] += den[i]
		}
	}
}

func inRect(r [4]float64, x, y float64) bool {
	return x >= r[0] && x <= r[1] && y >= r[2] && y <= r[3]
}

// gather returns the samples in the rectangle r but not in the rectangle not, in input order
// (as a stream gives them), padded to a multiple of 8 (see farPad), in a buffer to give back
// to t.bufs. The index holds the samples' plain coordinates (sample.Samples.XY's).
func (t *farTree) gather(r, not [4]float64) *farSamples {
	g := t.bufs.Get().(*farSamples)
	g.x, g.y, g.z, g.ids = g.x[:0], g.y[:0], g.z[:0], g.ids[:0]
	l := t.ix.Layout
	c0, c1 := cellOf(r[0], l.MinX, l.InvCell, l.Cols), cellOf(r[1], l.MinX, l.InvCell, l.Cols)
	r0, r1 := cellOf(r[2], l.MinY, l.InvCell, l.Rows), cellOf(r[3], l.MinY, l.InvCell, l.Rows)
	for row := r0; row <= r1; row++ {
		lo, hi := t.ix.Start[row*l.Cols+c0], t.ix.Start[row*l.Cols+c1+1]
		for j := lo; j < hi; j++ {
			if x, y := t.ix.At(j); inRect(r, x, y) && !inRect(not, x, y) {
				g.ids = append(g.ids, t.ix.Order[j])
			}
		}
	}
	g.ids, g.tmp = sortIDs(g.ids, g.tmp, len(t.s.Z))
	s := t.s
	for _, id := range g.ids {
		g.x, g.y, g.z = append(g.x, s.X[id]), append(g.y, s.Y[id]), append(g.z, s.Z[id])
	}
	for t.sums.power2 && len(g.x)%8 != 0 {
		g.x, g.y, g.z = append(g.x, farPad), append(g.y, farPad), append(g.z, 0)
	}
	return g
}

// sortIDs sorts ids, each in [0,n), by a radix sort of the bytes that n needs (tmp is the
// buffer it swaps with): a gather sorts as many ids as it has samples, and a comparison sort
// took a fifth of the tree's time. It returns the sorted ids and the other buffer.
func sortIDs(ids, tmp []int32, n int) (sorted, other []int32) {
	if len(ids) < 64 {
		slices.Sort(ids)
		return ids, tmp
	}
	tmp = slices.Grow(tmp[:0], len(ids))[:len(ids)]
	for shift := 0; n-1 >= 1<<shift; shift += 8 {
		var count [257]int
		for _, id := range ids {
			count[(id>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, id := range ids {
			d := (id >> shift) & 0xff
			tmp[count[d]] = id
			count[d]++
		}
		ids, tmp = tmp, ids
	}
	return ids, tmp
}

// cellOf is the index's cell column (or row) of coordinate v, clamped as the index clamps
// its samples' keys, so that a range of cells covers every sample in a range of coordinates.
func cellOf(v, lo, inv float64, n int) int {
	f := (v - lo) * inv
	if !(f >= 0) {
		return 0
	}
	if f >= float64(n) {
		return n - 1
	}
	return int(f)
}

// computeLeaf fills the leaf's values (see leafValues), a node that the leaf's sums leave to
// gdal's loop from one.
func (t *farTree) computeLeaf(l *farBox) {
	f := t.fieldOf(l.id)
	g := t.gather(t.leafIn(l), farNone)
	defer t.bufs.Put(g)
	xs, ys, zs := g.x, g.y, g.z
	cols := l.c1 - l.c0
	values := make([]float64, cols*(l.r1-l.r0))
	near := func(_, _ int, nx *[batchNodes]float64, y float64, num, den *[batchNodes]float64) {
		*num, *den = [batchNodes]float64{}, [batchNodes]float64{}
		if len(xs) > 0 {
			t.sums.sums(xs, ys, zs, nx, y, num, den)
		}
	}
	t.leafValues(l, f, l.r0, l.r1, l.c0, l.c1, near, func(c, r int, v float64, ok bool) {
		if !ok {
			v = t.one(t.nx[c], t.ny[r])
		}
		values[(r-l.r0)*cols+c-l.c0] = v
	})
	l.field = nil
	l.values.Store(&values)
}

// farNone is a rectangle that holds nothing.
var farNone = [4]float64{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}

// leafIn is the rectangle of leaf l's near samples, summed at its nodes: its near rectangle,
// or its parent's for a direct leaf.
func (t *farTree) leafIn(l *farBox) [4]float64 {
	if l.direct {
		return t.boxes[l.parent].near
	}
	return l.near
}

// leafBatch is batch bi of leaf l's row r: the x of its 8 columns from bi*8 (the last
// repeated past the leaf's end), their y, and how many are real.
func (t *farTree) leafBatch(l *farBox, r, bi int) (nx [batchNodes]float64, y float64, m int) {
	c0 := bi * batchNodes
	m = min(batchNodes, l.c1-l.c0-c0)
	for k := range nx {
		nx[k] = t.nx[l.c0+c0+min(k, m-1)]
	}
	return nx, t.ny[r], m
}

// leafValues computes leaf l's nodes of rows [r0,r1) and the batches of columns that hold
// [c0,c1): the near sums (near gives them for row r, batch bi) plus the far ones interpolated
// from f, l's field. set receives each node's value, or ok false for a node whose near sum of
// weights reaches 1e13 (a sample within gdal's exact-hit distance, or close to it), which
// gdal's loop decides.
func (t *farTree) leafValues(l *farBox, f []float64, r0, r1, c0, c1 int,
	near func(r, bi int, nx *[batchNodes]float64, y float64, num, den *[batchNodes]float64), set func(c, r int, v float64, ok bool)) {
	const n = farPoints
	b0, b1 := (c0-l.c0)/batchNodes, (c1-l.c0+batchNodes-1)/batchNodes
	bx := make([][n]float64, min(b1*batchNodes, l.c1-l.c0))
	for c := b0 * batchNodes; c < len(bx); c++ {
		bx[c] = basis(t.nx[l.c0+c]-l.mx, l.hx)
	}
	var num, den [batchNodes]float64
	for r := r0; r < r1; r++ {
		by := basis(t.ny[r]-l.my, l.hy)
		// vn[i], vd[i]: the far sums interpolated along y at the x points.
		var vn, vd [n]float64
		for k, a := range by {
			for i := range n {
				vn[i] += a * f[k*n+i]
				vd[i] += a * f[n*n+k*n+i]
			}
		}
		for bi := b0; bi < b1; bi++ {
			nx, y, m := t.leafBatch(l, r, bi)
			near(r, bi, &nx, y, &num, &den)
			for k := range m {
				c := bi*batchNodes + k
				var fn, fd float64
				for i, a := range bx[c] {
					fn += a * vn[i]
					fd += a * vd[i]
				}
				if dn := den[k] + fd; den[k] < 1/exactHitD2 && dn > 0 && !math.IsInf(dn, 0) {
					set(l.c0+c, r, t.finish(num[k]+fn, dn), true)
				} else {
					set(l.c0+c, r, 0, false)
				}
			}
		}
	}
}
