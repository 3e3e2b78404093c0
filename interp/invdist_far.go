package interp

import (
	"math"
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
type farSamples struct{ x, y, z []float64 }

// farPad is where padding samples lie: 1/(d*d') overflows to 0 for them and any node, so both
// weights of a pair that shares a division are 0.
const farPad = 1e150

// farSums is the kernel of a tree: sums, and whether it takes samples padded with farPad
// (which weigh exactly nothing only for power 2's kernels).
type farSums struct {
	sums rowSums
	pad  bool
}

// rowSums sets num[k] and den[k] to the sums of z w and w over the samples (xs, ys, zs) for
// the 8 points (px[k], y), w the weight at r2 = d2 + s2. Its value where a sample is within
// gdal's exact-hit distance of a point need only make den[k] >= 1e13, Inf or NaN.
type rowSums func(xs, ys, zs []float64, px *[batchNodes]float64, y float64, num, den *[batchNodes]float64)

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

// newFarTree returns the tree for the problem's raster, or nil where it does not pay or
// does not apply: a small or rotated raster, or one whose nodes are so close together that
// a far sample could be within gdal's exact-hit distance.
func newFarTree(p *Problem, ix *grid.Index, sums farSums, one func(x, y float64) float64, finish func(num, den float64) float64) *farTree {
	t := p.Target
	if !farTreeRaster(t) {
		return nil
	}
	for _, z := range p.Samples.Z {
		if math.IsInf(z, 0) {
			return nil // interpolating infinite sums would turn them into NaN
		}
	}
	if l := ix.Layout; !(max(math.Abs(l.MinX), math.Abs(l.MinY))+float64(max(l.Cols, l.Rows)+1)*l.Cell < 1e100) {
		return nil // padding samples must stay far beyond every sample
	}
	ft := &farTree{s: p.Samples, ix: ix, sums: sums, one: one, finish: finish,
		nx: make([]float64, t.Cols), ny: make([]float64, t.Rows)}
	ft.bufs.New = func() any { return new(farSamples) }
	for c := range ft.nx {
		ft.nx[c], _ = p.NodeXY(c, 0)
	}
	for r := range ft.ny {
		_, ft.ny[r] = p.NodeXY(0, r)
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
		f := make([]float64, 2*farPoints*farPoints)
		if b.parent >= 0 {
			p := t.boxes[b.parent]
			t.carry(p, b, t.fieldOf(b.parent), f)
			if p.kids.Add(-1) == 0 {
				p.field = nil
			}
		}
		if !b.direct {
			t.addFar(b, f)
		}
		b.field = f
	})
	return b.field
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

// addFar adds to f the sums at b's points over the samples that are far from b but near its
// parent (all samples for the root).
func (t *farTree) addFar(b *farBox, f []float64) {
	outer := [4]float64{math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)}
	if b.parent >= 0 {
		outer = t.boxes[b.parent].near
	}
	g := t.gather(outer, b.near)
	defer t.bufs.Put(g)
	xs, ys, zs := g.x, g.y, g.z
	if len(xs) == 0 {
		return
	}
	for i := range xs {
		xs[i] -= b.mx
		ys[i] -= b.my
	}
	const n = farPoints
	px, py := points(b.hx), points(b.hy)
	var nx, num, den [batchNodes]float64
	for k, y := range py {
		for i0 := 0; i0 < n; i0 += batchNodes {
			copy(nx[:], px[i0:i0+batchNodes])
			t.sums.sums(xs, ys, zs, &nx, y, &num, &den)
			for i := range batchNodes {
				f[k*n+i0+i] += num[i]
				f[n*n+k*n+i0+i] += den[i]
			}
		}
	}
}

func inRect(r [4]float64, x, y float64) bool {
	return x >= r[0] && x <= r[1] && y >= r[2] && y <= r[3]
}

// gather returns the samples in the rectangle r but not in the rectangle not, padded to a
// multiple of 8 (see farPad), in a buffer to give back to t.bufs.
func (t *farTree) gather(r, not [4]float64) *farSamples {
	g := t.bufs.Get().(*farSamples)
	g.x, g.y, g.z = g.x[:0], g.y[:0], g.z[:0]
	l := t.ix.Layout
	c0, c1 := cellOf(r[0], l.MinX, l.InvCell, l.Cols), cellOf(r[1], l.MinX, l.InvCell, l.Cols)
	r0, r1 := cellOf(r[2], l.MinY, l.InvCell, l.Rows), cellOf(r[3], l.MinY, l.InvCell, l.Rows)
	for row := r0; row <= r1; row++ {
		lo, hi := t.ix.Start[row*l.Cols+c0], t.ix.Start[row*l.Cols+c1+1]
		for j := lo; j < hi; j++ {
			if x, y := t.ix.At(j); inRect(r, x, y) && !inRect(not, x, y) {
				g.x, g.y, g.z = append(g.x, x), append(g.y, y), append(g.z, t.s.Z[t.ix.Order[j]])
			}
		}
	}
	for t.sums.pad && len(g.x)%8 != 0 {
		g.x, g.y, g.z = append(g.x, farPad), append(g.y, farPad), append(g.z, 0)
	}
	return g
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

// computeLeaf fills the leaf's values: the near samples summed at each node, the far ones
// interpolated; a node whose near sum of weights reaches 1e13 (a sample within gdal's
// exact-hit distance, or close to it) gets one's value.
func (t *farTree) computeLeaf(l *farBox) {
	const n = farPoints
	f := t.fieldOf(l.id)
	none := [4]float64{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	near := l.near
	if l.direct {
		near = t.boxes[l.parent].near
	}
	g := t.gather(near, none)
	defer t.bufs.Put(g)
	xs, ys, zs := g.x, g.y, g.z
	cols := l.c1 - l.c0
	bx := make([][n]float64, cols)
	for c := range cols {
		bx[c] = basis(t.nx[l.c0+c]-l.mx, l.hx)
	}
	values := make([]float64, cols*(l.r1-l.r0))
	var nx, num, den [batchNodes]float64
	for r := l.r0; r < l.r1; r++ {
		y := t.ny[r]
		by := basis(y-l.my, l.hy)
		// vn[i], vd[i]: the far sums interpolated along y at the x points.
		var vn, vd [n]float64
		for k, a := range by {
			for i := range n {
				vn[i] += a * f[k*n+i]
				vd[i] += a * f[n*n+k*n+i]
			}
		}
		out := values[(r-l.r0)*cols : (r-l.r0+1)*cols]
		for c0 := 0; c0 < cols; c0 += batchNodes {
			m := min(batchNodes, cols-c0)
			for k := range nx {
				nx[k] = t.nx[l.c0+c0+min(k, m-1)]
			}
			num, den = [batchNodes]float64{}, [batchNodes]float64{}
			if len(xs) > 0 {
				t.sums.sums(xs, ys, zs, &nx, y, &num, &den)
			}
			for k := range m {
				var fn, fd float64
				for i, a := range bx[c0+k] {
					fn += a * vn[i]
					fd += a * vd[i]
				}
				if dn := den[k] + fd; den[k] < 1/exactHitD2 && dn > 0 && !math.IsInf(dn, 0) {
					out[c0+k] = t.finish(num[k]+fn, dn)
				} else {
					out[c0+k] = t.one(nx[k], y)
				}
			}
		}
	}
	l.field = nil
	l.values.Store(&values)
}
