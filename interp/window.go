package interp

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// The moving-window statistics (average, minimum, maximum, range, count, average_distance)
// computed a row's run of nodes at once, sample by sample instead of node by node: neighbouring
// nodes share almost all their candidate cells, so the run's cells are scanned once, and each
// sample finds the nodes whose search ellipse holds it by walking outward from its place in the
// row, with gdal's own test. This is the form the CPU engine uses for an unrotated ellipse (as
// the quadtree search always is); a rotated one, the per-quadrant options and cross-validation
// stay node by node.
//
// It gives the node-by-node values bit for bit. A node's samples are the same: those that
// pass gdal's test (ellipse, and quadtree square), tested with the same operations, and the
// run's cells cover every node's cells. Their order is the same: the cell rows go up and each
// row's cells are one range of the index's order, so each node meets its samples in ascending
// place in the index, as the node-by-node search (searchArea.collect) lists them; average and
// average_distance sum them in that order. Minimum, maximum and count do not depend on it.
//
// Why the walk finds exactly the nodes that pass: along a row a node's y, and so dy, is the
// same (checked), and the test is a monotone function of |dx| alone, dx = sx-x rounded:
// float64(r2²*dx*dx) + float64(r1²*dy*dy) <= r1²r2², and |dx| <= h for the square, each
// rounding monotone. The nodes' x do not decrease along the run (checked), so dx does not
// increase, and |dx| does not increase up to the first node right of the sample (dx < 0 exactly
// when x > sx) and does not decrease from there on: the passing nodes are a run that ends
// just before that node, or starts at it, or both.

// windowStat is the statistic a windowSpan computes.
type windowStat int

const (
	statAverage windowStat = iota
	statCount
	statMinimum
	statMaximum
	statRange
	statDistance
)

// windowSpan is a moving-window statistic over an unrotated search area, bound to a problem.
type windowSpan struct {
	p  *Problem
	ix *grid.Index
	s  *sample.Samples
	// node is the node-by-node form, for runs whose nodes are not on one line of constant y
	// (a rotated target).
	node nodeWithout
	stat windowStat
	// h is the half-side of the cells' square (searchArea.half); sq the square test's half
	// side: h on gdal's quadtree, else +Inf (no test).
	h, sq          float64
	r1s, r2s, r12s float64
	minPoints      int
	nodata         float64

	// z holds the samples' values in the index's order, built on first use (under zMu, by
	// the first worker that needs it, while the others wait; zDone once it is whole).
	zMu   sync.Mutex
	zDone atomic.Bool
	z     []float64
	// plain says that no value is NaN or -0, on which min and max depend on the order of
	// their operands in windowAVX2's instructions.
	plain bool
}

// windowCheck is how many samples a span takes (or orders, in values) between looks at the
// run's context: well under a millisecond of work, where a span over a search area of
// millions of cells, or the values of 1e8 samples, took seconds.
const windowCheck = 1 << 16

// spanSkipping is a skipping form that also computes runs of nodes.
type spanSkipping struct {
	skipping
	w *windowSpan
}

func (b *spanSkipping) span(sc *scratch, row, col0, col1 int, skip []bool, out []float64) {
	b.w.span(sc, row, col0, col1, skip, out)
}

// newWindowSpan returns the run form of the statistic over ar, or nil when ar is not one it
// computes (a rotated ellipse, no radius, a radius 0 off gdal's quadtree).
func newWindowSpan(p *Problem, ix *grid.Index, ar searchArea, stat windowStat, minPoints int, nodata float64,
	node nodeWithout) *windowSpan {
	t := newEllipseTest(ar)
	if t.rotated || ar.all() || !(ar.R1 > 0 && ar.R2 > 0 || ar.Square) {
		return nil
	}
	w := &windowSpan{p: p, ix: ix, s: p.Samples, node: node, stat: stat, h: ar.half(), sq: math.Inf(1),
		r1s: t.r1s, r2s: t.r2s, r12s: t.r12s, minPoints: minPoints, nodata: nodata}
	if ar.Square {
		w.sq = w.h
	}
	return w
}

// values returns the samples' values in the index's order, and whether no value is NaN or
// -0; nil when the run's context stopped it before they were all in place.
func (w *windowSpan) values(sc *scratch) ([]float64, bool) {
	if w.zDone.Load() {
		return w.z, w.plain
	}
	w.zMu.Lock()
	defer w.zMu.Unlock()
	if w.zDone.Load() {
		return w.z, w.plain
	}
	order, z := w.ix.Order, w.s.Z
	vz := make([]float64, len(order))
	plain := true
	for lo := 0; lo < len(order); lo += windowCheck {
		if sc.stopped() {
			return nil, false
		}
		for j := lo; j < min(lo+windowCheck, len(order)); j++ {
			v := z[order[j]]
			vz[j] = v
			plain = plain && v == v && (v != 0 || !math.Signbit(v))
		}
	}
	w.z, w.plain = vz, plain
	w.zDone.Store(true)
	return vz, plain
}

// windowBuf is a worker's room for a run of nodes.
type windowBuf struct {
	xs, a, b []float64
	// c counts each node's samples that windowFast adds; k is its kernel.
	c []int64
	k windowKernel
	// n counts each node's samples, by the changes from node to node while they are added.
	n []int32
	// cols are the runs of cell columns the nodes reach.
	cols [][2]int
}

func (wb *windowBuf) size(m int) {
	if cap(wb.xs) < m {
		wb.xs, wb.a, wb.b, wb.n = make([]float64, m), make([]float64, m), make([]float64, m), make([]int32, m+1)
	}
	wb.xs, wb.a, wb.b, wb.n = wb.xs[:m], wb.a[:m], wb.b[:m], wb.n[:m+1]
}

// span implements spanner.
func (w *windowSpan) span(sc *scratch, row, col0, col1 int, skip []bool, out []float64) {
	m := col1 - col0
	if m <= 0 {
		return
	}
	wb := &sc.win
	wb.size(m)
	xs := wb.xs
	_, y := w.p.NodeXY(col0, row)
	line := true
	for k := range xs {
		x, yk := w.p.NodeXY(col0+k, row)
		xs[k] = x
		line = line && yk == y && (k == 0 || x >= xs[k-1])
	}
	if !line {
		for k, x := range xs {
			if skip == nil || !skip[k] {
				_, yk := w.p.NodeXY(col0+k, row)
				out[k] = w.node(sc, -1, x, yk)
			}
		}
		return
	}
	var z []float64 // nil for count and average_distance, which take no values
	plain := true
	if w.stat != statCount && w.stat != statDistance {
		if z, plain = w.values(sc); z == nil {
			return // stopped
		}
	}
	n := wb.n
	clear(n)
	// windowFast takes the samples of plain coordinates where it can: minimum, maximum and
	// range only when no value is NaN or -0.
	fast := w.ix.QX == nil && (plain || w.stat == statAverage) && windowFastStart(w, wb, y)
	switch w.stat {
	case statAverage, statDistance:
		clear(wb.a)
	case statMinimum, statMaximum, statRange:
		for k := range wb.a {
			wb.a[k], wb.b[k] = math.MaxFloat64, -math.MaxFloat64
		}
	}
	// The cells: eachCellRange's of every node, as runs of columns (one unless the nodes lie
	// farther apart than the cells they reach), ascending, so that each node meets its
	// samples in the index's order.
	ix := w.ix
	l := &ix.Layout
	h := w.h*(1+1e-9) + l.Cell*1e-6
	cols := wb.cols[:0]
	for _, x := range xs {
		c0 := cellIndex((x-h-l.MinX)*l.InvCell, l.Cols)
		c1 := cellIndex((x+h-l.MinX)*l.InvCell, l.Cols)
		if k := len(cols) - 1; k >= 0 && c0 <= cols[k][1]+1 {
			cols[k][1] = max(cols[k][1], c1)
		} else {
			cols = append(cols, [2]int{c0, c1})
		}
	}
	wb.cols = cols
	r0 := cellIndex((y-h-l.MinY)*l.InvCell, l.Rows)
	r1 := cellIndex((y+h-l.MinY)*l.InvCell, l.Rows)
	if !w.addCells(sc, wb, r0, r1, z, fast, y) {
		return // stopped
	}
	// n holds the changes of the count from node to node.
	c := int32(0)
	for k := range out {
		c += n[k]
		n[k] = c
		if fast {
			n[k] += int32(wb.c[k])
		}
	}
	for k := range out {
		if skip != nil && skip[k] {
			continue
		}
		out[k] = w.value(wb, k)
	}
}

// addCells adds the samples of the cells of rows r0 to r1 in the runs of columns wb.cols to
// the run's nodes on the line y, in the index's order, in pieces of at most windowCheck
// samples; it looks at the run's context whenever it has taken that many samples (or met that
// many runs of cells) since the last look, and says false when it is stopped.
func (w *windowSpan) addCells(sc *scratch, wb *windowBuf, r0, r1 int, z []float64, fast bool, y float64) bool {
	ix := w.ix
	l := &ix.Layout
	work := 0
	goOn := func(done int) bool {
		if work += done; work < windowCheck {
			return true
		}
		work = 0
		return !sc.stopped()
	}
	for r := r0; r <= r1; r++ {
		for _, cr := range wb.cols {
			lo, hi := ix.Start[r*l.Cols+cr[0]], ix.Start[r*l.Cols+cr[1]+1]
			for ; lo < hi; lo += windowCheck {
				end := min(hi, lo+windowCheck)
				w.add(wb, lo, end, z, fast, y)
				if !goOn(int(end - lo)) {
					return false
				}
			}
			if !goOn(1) {
				return false
			}
		}
	}
	return true
}

// add adds the samples from lo to hi in the index's order to the run's nodes on the line y.
func (w *windowSpan) add(wb *windowBuf, lo, hi int32, z []float64, fast bool, y float64) {
	ix := w.ix
	var zr []float64
	if z != nil {
		zr = z[lo:hi]
	}
	switch {
	case ix.QX != nil:
		windowRange(w, wb, ix.QX[lo:hi], ix.QY[lo:hi], zr, ix.QuantumX, ix.QuantumY, y)
	case fast:
		windowFast(w, wb, ix.X[lo:hi], ix.Y[lo:hi], zr, y)
	default:
		windowRange(w, wb, ix.X[lo:hi], ix.Y[lo:hi], zr, 1, 1, y)
	}
}

// value is node k's statistic from its sums.
func (w *windowSpan) value(wb *windowBuf, k int) float64 {
	c := int(wb.n[k])
	if c < w.minPoints || c == 0 && w.stat != statCount {
		return w.nodata
	}
	switch w.stat {
	case statCount:
		return float64(c)
	case statMinimum:
		return wb.a[k]
	case statMaximum:
		return wb.b[k]
	case statRange:
		return wb.b[k] - wb.a[k]
	}
	return wb.a[k] / float64(c) // average, average_distance
}

type coordinate interface{ int32 | float64 }

// windowRange adds the samples at (px[j]*fx, py[j]*fy) with values zs (nil for count and
// average_distance) to the sums of the run's nodes, whose x are wb.xs on the line y.
func windowRange[T coordinate](w *windowSpan, wb *windowBuf, px, py []T, zs []float64, fx, fy, y float64) {
	xs := wb.xs
	m := len(xs)
	py = py[:len(px)]
	if zs != nil {
		zs = zs[:len(px)]
	}
	sq, r1s, r2s, r12s := w.sq, w.r1s, w.r2s, w.r12s
	// inv places a sample and the ends of its run of nodes among the nodes at a guess, which
	// gdal's test at the ends then corrects: the guess saves testing every node.
	inv, ir2s := 0.0, 0.0
	if m > 1 && xs[m-1] > xs[0] {
		inv = float64(m-1) / (xs[m-1] - xs[0])
	}
	if r2s > 0 {
		ir2s = 1 / r2s
	}
	x0, mf := xs[0], float64(m)
	na, nb, nn := wb.a[:m], wb.b[:m], wb.n[:m+1]
	stat := w.stat
	for j, xv := range px {
		dy := float64(py[j])*fy - y
		ty := float64(r1s * dy * dy)
		// float64(r2s*dx*dx) + ty >= ty for every dx: beyond r12s no node passes.
		if !(math.Abs(dy) <= sq && ty <= r12s) {
			continue
		}
		sx := float64(xv) * fx
		f := (sx - x0) * inv
		hx := math.Sqrt((r12s - ty) * ir2s)
		if hx > sq {
			hx = sq
		}
		hw := hx * inv
		// p: the first node right of the sample (x > sx), m when none.
		p := guess(f+1, mf)
		for p > 0 && xs[p-1] > sx {
			p--
		}
		for p < m && xs[p] <= sx {
			p++
		}
		// The nodes left of the sample that pass are [a,p), those right of it [p,b).
		a := guess(f-hw+1, mf)
		if a > p {
			a = p
		}
		if a < p && !inside(sx-xs[a], ty, sq, r2s, r12s) {
			for a++; a < p && !inside(sx-xs[a], ty, sq, r2s, r12s); a++ {
			}
		} else {
			for a > 0 && inside(sx-xs[a-1], ty, sq, r2s, r12s) {
				a--
			}
		}
		b := guess(f+hw+1, mf)
		if b < p {
			b = p
		}
		if b > p && !inside(sx-xs[b-1], ty, sq, r2s, r12s) {
			for b--; b > p && !inside(sx-xs[b-1], ty, sq, r2s, r12s); b-- {
			}
		} else {
			for b < m && inside(sx-xs[b], ty, sq, r2s, r12s) {
				b++
			}
		}
		if a >= b {
			continue
		}
		nn[a]++
		nn[b]--
		switch stat {
		case statAverage:
			v := zs[j]
			for k := a; k < b; k++ {
				na[k] += v
			}
		case statMinimum:
			v := zs[j]
			for k := a; k < b; k++ {
				na[k] = min(na[k], v)
			}
		case statMaximum:
			v := zs[j]
			for k := a; k < b; k++ {
				nb[k] = max(nb[k], v)
			}
		case statRange:
			v := zs[j]
			for k := a; k < b; k++ {
				na[k], nb[k] = min(na[k], v), max(nb[k], v)
			}
		case statDistance:
			dyy := float64(dy * dy)
			for k := a; k < b; k++ {
				dx := sx - xs[k]
				na[k] += math.Sqrt(float64(dx*dx) + dyy)
			}
		}
	}
}

// inside is gdal's test of an unrotated search area for a sample dx from the node, ty being
// its dy term: float64(r1s*dy*dy).
func inside(dx, ty, sq, r2s, r12s float64) bool {
	return math.Abs(dx) <= sq && float64(r2s*dx*dx)+ty <= r12s
}

// guess is f as a node index clamped to [0,m] (NaN: 0).
func guess(f, m float64) int {
	if !(f >= 0) {
		return 0
	}
	if f >= m {
		return int(m)
	}
	return int(f)
}
