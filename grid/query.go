package grid

import (
	"cmp"
	"math"
	"slices"
)

// Queries cover a disk around the query point: every cell that meets the disk, visited as one
// contiguous sample range per row. kNN grows the disk until the k-th distance found is no more
// than its radius, which is the stopping rule "the k-th distance does not exceed the distance
// to any cell not searched yet".

// KNN returns the k nearest samples to (qx,qy) with D2 <= maxD2, ascending by D2 and, on equal
// D2, by ID, appended to dst[:0]. Pass math.Inf(1) for no distance bound. k > Len() gives every
// sample within maxD2; a NaN query or k <= 0 gives none.
func (ix *Index) KNN(qx, qy float64, k int, maxD2 float64, dst []Neighbor) []Neighbor {
	dst = dst[:0]
	if k <= 0 || ix.Len() == 0 || !(maxD2 >= 0) || math.IsNaN(qx) || math.IsNaN(qy) {
		return dst
	}
	k = min(k, ix.Len())
	if nb, ok := ix.knnLanes(qx, qy, k, maxD2, dst); ok {
		return nb
	}
	if ix.QX != nil {
		s := &knnSearch[int32]{x: ix.QX, y: ix.QY, sx: ix.QuantumX, sy: ix.QuantumY,
			order: ix.Order, qx: qx, qy: qy, k: k, worst: maxD2, best: dst}
		knn(ix, qx, qy, k, maxD2, s.scan, s.found)
		return s.best
	}
	s := &knnSearch[float64]{x: ix.X, y: ix.Y, sx: 1, sy: 1,
		order: ix.Order, qx: qx, qy: qy, k: k, worst: maxD2, best: dst}
	knn(ix, qx, qy, k, maxD2, s.scan, s.found)
	return s.best
}

// knn is KNN's search, whatever the form of the coordinates and of the candidates' keeping:
// scan offers the samples of Order[lo:hi] and returns the D2 that a candidate must not exceed
// (maxD2 until k are found, then the k-th D2); found says how many candidates are kept (at
// most k) and, when k, the k-th D2.
func knn(ix *Index, qx, qy float64, k int, maxD2 float64, scan func(lo, hi int32) float64, found func() (int, float64)) {
	l := &ix.Layout
	near, far := l.reach(qx, qy)
	// The disk's radius is near+step: step is how far it reaches into the grid. The first disk
	// holds about k samples at the mean density; a larger one scans more than the short second
	// search it saves half the queries costs.
	step := l.Cell * math.Sqrt(float64(k)*float64(l.Cells())/(math.Pi*float64(ix.Len())))
	t2 := sq(near + step)
	prev := -1.0
	for {
		// Every sample with D2 <= t2 is found once the disk of radius cov is searched.
		t2 = min(t2, maxD2)
		cov := l.inflate(math.Sqrt(t2))
		last := t2 >= maxD2
		if cov >= far {
			cov, last = math.Inf(1), true
		}
		ix.eachNewRange(qx, qy, prev, cov, scan)
		m, kth := found()
		full := m == k
		if last || full && kth <= t2 {
			return
		}
		prev = cov
		if full {
			// The k found bound the answer: one more search out to the k-th distance is final.
			t2 = kth
			continue
		}
		step *= knnGrowth(m, k)
		t2 = sq(near + step)
	}
}

// knnGrowth is the factor by which the disk's reach grows when it holds m < k samples: enough
// to hold k at the density seen so far, and at least a doubling of the area.
func knnGrowth(m, k int) float64 {
	if m == 0 {
		return 2
	}
	return max(math.Sqrt2, 1.2*math.Sqrt(float64(k)/float64(m)))
}

func sq(v float64) float64 { return v * v }

// knnSearch keeps the best k candidates, sorted by (D2, ID), while ranges are scanned. Sample
// j lies at (x[j]*sx, y[j]*sy): with float64 coordinates sx = sy = 1, a product that is exact.
type knnSearch[T coord] struct {
	x, y   []T
	sx, sy float64
	order  []int32
	qx, qy float64
	k      int
	// worst is the bound a candidate must meet: maxD2 until k are found, then the k-th D2.
	worst float64
	best  []Neighbor
}

func (s *knnSearch[T]) scan(lo, hi int32) float64 {
	xs := s.x[lo:hi]
	ys := s.y[lo:hi][:len(xs)]
	ids := s.order[lo:hi][:len(xs)]
	best, worst, k, qx, qy, sx, sy := s.best, s.worst, s.k, s.qx, s.qy, s.sx, s.sy
	for j, x := range xs {
		dx, dy := float64(x)*sx-qx, float64(ys[j])*sy-qy
		d2 := float64(dx*dx) + float64(dy*dy)
		if d2 > worst {
			continue
		}
		nb := Neighbor{ids[j], d2}
		if len(best) < k {
			best = append(best, nb)
		} else if d2 == worst && nb.ID > best[k-1].ID {
			continue
		}
		i := len(best) - 1
		for i > 0 && less(nb, best[i-1]) {
			best[i] = best[i-1]
			i--
		}
		best[i] = nb
		if len(best) == k {
			worst = best[k-1].D2
		}
	}
	s.best, s.worst = best, worst
	return worst
}

func less(a, b Neighbor) bool { return a.D2 < b.D2 || a.D2 == b.D2 && a.ID < b.ID }

func (s *knnSearch[T]) found() (int, float64) {
	if len(s.best) < s.k {
		return len(s.best), 0
	}
	return s.k, s.best[s.k-1].D2
}

// Within appends to dst[:0] every sample with squared distance <= r2 from (qx,qy), ascending by
// ID. A negative or NaN r2 or a NaN query gives none.
func (ix *Index) Within(qx, qy, r2 float64, dst []Neighbor) []Neighbor {
	dst = dst[:0]
	if !(r2 >= 0) || ix.Len() == 0 || math.IsNaN(qx) || math.IsNaN(qy) {
		return dst
	}
	cov := ix.Layout.cover(qx, qy, math.Sqrt(r2))
	if ix.QX != nil {
		s := withinSearch[int32]{x: ix.QX, y: ix.QY, sx: ix.QuantumX, sy: ix.QuantumY, order: ix.Order, qx: qx, qy: qy, r2: r2, found: dst}
		ix.eachNewRange(qx, qy, -1, cov, s.scan)
		return sortByID(s.found)
	}
	s := withinSearch[float64]{x: ix.X, y: ix.Y, sx: 1, sy: 1, order: ix.Order, qx: qx, qy: qy, r2: r2, found: dst}
	ix.eachNewRange(qx, qy, -1, cov, s.scan)
	return sortByID(s.found)
}

type withinSearch[T coord] struct {
	x, y   []T
	sx, sy float64
	order  []int32
	qx, qy float64
	r2     float64
	found  []Neighbor
}

func (s *withinSearch[T]) scan(lo, hi int32) float64 {
	xs := s.x[lo:hi]
	ys := s.y[lo:hi][:len(xs)]
	ids := s.order[lo:hi][:len(xs)]
	found, r2, qx, qy, sx, sy := s.found, s.r2, s.qx, s.qy, s.sx, s.sy
	for j, x := range xs {
		dx, dy := float64(x)*sx-qx, float64(ys[j])*sy-qy
		if d2 := float64(dx*dx) + float64(dy*dy); d2 <= r2 {
			found = append(found, Neighbor{ids[j], d2})
		}
	}
	s.found = found
	return math.Inf(1)
}

// toRadians is gdal_grid's TO_RADIANS, M_PI / 180.0 rounded as C rounds it: the double nearest
// pi divided by 180 in double arithmetic.
const toRadians = float64(math.Pi) / 180

// Ellipse appends to dst[:0], ascending by ID, every sample inside gdal_grid's search ellipse
// centred on (qx,qy): semi-axes r1 (along x) and r2 (along y) before rotation by angleDeg
// degrees counter-clockwise. The test is gdal_grid's own, operation for operation: with
// dx = x-qx, dy = y-qy, rotated when the angle in radians is not 0 to dx*cos+dy*sin and
// dy*cos-dx*sin, a sample is inside iff r2²·dx·dx + r1²·dy·dy <= r1²·r2². D2 is the unrotated
// dx*dx+dy*dy. A radius of 0 makes gdal's test accept a whole line, so it scans every sample.
func (ix *Index) Ellipse(qx, qy, r1, r2, angleDeg float64, dst []Neighbor) []Neighbor {
	dst = dst[:0]
	if ix.Len() == 0 || math.IsNaN(qx) || math.IsNaN(qy) {
		return dst
	}
	e := ellipse{qx: qx, qy: qy}
	e.r1sq, e.r2sq = r1*r1, r2*r2
	e.r12sq = e.r1sq * e.r2sq
	if a := toRadians * angleDeg; a != 0 {
		e.rotated, e.cos, e.sin = true, math.Cos(a), math.Sin(a)
	}
	cov := math.Inf(1)
	if normal(e.r1sq) && normal(e.r2sq) && normal(e.r12sq) {
		// Only then does the test bound the ellipse by the circle of the larger radius.
		cov = ix.Layout.cover(qx, qy, max(math.Abs(r1), math.Abs(r2)))
	}
	if ix.QX != nil {
		s := ellipseSearch[int32]{ellipse: e, x: ix.QX, y: ix.QY, sx: ix.QuantumX, sy: ix.QuantumY, order: ix.Order, found: dst}
		ix.eachNewRange(qx, qy, -1, cov, s.scan)
		return sortByID(s.found)
	}
	s := ellipseSearch[float64]{ellipse: e, x: ix.X, y: ix.Y, sx: 1, sy: 1, order: ix.Order, found: dst}
	ix.eachNewRange(qx, qy, -1, cov, s.scan)
	return sortByID(s.found)
}

func normal(v float64) bool { return v >= 0x1p-1022 && v <= math.MaxFloat64 }

// ellipse is the search ellipse of a query at (qx,qy).
type ellipse struct {
	qx, qy            float64
	r1sq, r2sq, r12sq float64
	rotated           bool
	cos, sin          float64
}

type ellipseSearch[T coord] struct {
	ellipse
	x, y   []T
	sx, sy float64
	order  []int32
	found  []Neighbor
}

func (s *ellipseSearch[T]) scan(lo, hi int32) float64 {
	xs := s.x[lo:hi]
	ys := s.y[lo:hi][:len(xs)]
	ids := s.order[lo:hi][:len(xs)]
	found := s.found
	for j, x := range xs {
		dx, dy := float64(x)*s.sx-s.qx, float64(ys[j])*s.sy-s.qy
		rx, ry := dx, dy
		if s.rotated {
			// The explicit conversions keep each product rounded, as gdal's C does, where Go
			// would be allowed to fuse a multiply-add.
			rx = float64(dx*s.cos) + float64(dy*s.sin)
			ry = float64(dy*s.cos) - float64(dx*s.sin)
		}
		if float64(s.r2sq*rx*rx)+float64(s.r1sq*ry*ry) <= s.r12sq {
			found = append(found, Neighbor{ids[j], float64(dx*dx) + float64(dy*dy)})
		}
	}
	s.found = found
	return math.Inf(1)
}

func sortByID(nb []Neighbor) []Neighbor {
	slices.SortFunc(nb, func(a, b Neighbor) int { return cmp.Compare(a.ID, b.ID) })
	return nb
}

// inflate widens a search radius so that rounding (in keys, cell edges and the disk's spans)
// never leaves out a cell: every sample whose computed squared distance is <= rho*rho lies in a
// cell that the disk of radius inflate(rho) meets.
func (l *Layout) inflate(rho float64) float64 { return rho*(1+1e-9) + l.Cell*1e-6 }

// cover is the disk radius that finds every sample within rho of (qx,qy): inflated, and
// infinite once the disk holds the whole grid, which then is searched without any spans' doubt.
func (l *Layout) cover(qx, qy, rho float64) float64 {
	c := l.inflate(rho)
	if _, far := l.reach(qx, qy); c >= far {
		return math.Inf(1)
	}
	return c
}

// reach returns the distances from (qx,qy) to the nearest and the farthest point of the grid.
func (l *Layout) reach(qx, qy float64) (near, far float64) {
	x0, x1 := l.MinX, l.MinX+float64(l.Cols)*l.Cell
	y0, y1 := l.MinY, l.MinY+float64(l.Rows)*l.Cell
	nx := max(x0-qx, qx-x1, 0)
	ny := max(y0-qy, qy-y1, 0)
	fx := max(qx-x0, x1-qx)
	fy := max(qy-y0, y1-qy)
	return math.Sqrt(nx*nx + ny*ny), math.Sqrt(fx*fx + fy*fy)
}

// eachNewRange calls scan with the range of Order of every run of cells along a row that meets
// the disk of radius cov around (qx,qy) but not the disk of radius prev (prev < 0: none). A
// disk's cells come from the same arithmetic at every radius, and that arithmetic is monotonic
// in the radius, so the larger disk's cells include the smaller's and growing disks visit each
// cell once.
//
// scan returns the squared distance beyond which it needs no more samples (kNN: its k-th
// distance so far); rows, visited nearest first, are then searched only out to that distance.
// The caller may only assume the whole disk of radius cov searched when that bound stayed
// beyond it. The bound never falls below prev: kNN searches again only when fewer than k
// samples lie within prev, so its k-th distance is beyond prev.
func (ix *Index) eachNewRange(qx, qy, prev, cov float64, scan func(lo, hi int32) float64) {
	l := &ix.Layout
	r0, r1 := l.rowRange(qy, cov)
	p0, p1 := 0, -1
	if prev >= 0 {
		p0, p1 = l.rowRange(qy, prev)
	}
	// Rows go outward from the query's, alternately down and up, until the disk leaves them.
	down := min(max(floorCell((qy-l.MinY)*l.InvCell, l.Rows), r0), r1)
	up := down + 1
	c := cov
	for down >= r0 || up <= r1 {
		if down >= r0 {
			var in bool
			if c, in = ix.rowNewRange(qx, qy, prev, c, down, down >= p0 && down <= p1, scan); in {
				down--
			} else {
				down = r0 - 1
			}
		}
		if up <= r1 {
			var in bool
			if c, in = ix.rowNewRange(qx, qy, prev, c, up, up >= p0 && up <= p1, scan); in {
				up++
			} else {
				up = r1 + 1
			}
		}
	}
}

// rowNewRange scans the cells of row r in the disk of radius c but not in that of radius prev
// (when the row was searched at prev at all). It returns the radius to search the next rows to,
// and whether the disk reached row r at all: rows beyond one it misses are farther still.
func (ix *Index) rowNewRange(qx, qy, prev, c float64, r int, searched bool, scan func(lo, hi int32) float64) (float64, bool) {
	l := &ix.Layout
	c0, c1, in := l.colSpan(qx, qy, c, r)
	if c0 > c1 {
		return c, in
	}
	start := ix.Start[r*l.Cols : (r+1)*l.Cols+1]
	if start[c0] == start[c1+1] {
		return c, true // no samples: no need to know which cells are new
	}
	o0, o1 := 0, -1
	if searched {
		o0, o1, _ = l.colSpan(qx, qy, prev, r)
	}
	need := math.Inf(1)
	switch {
	case o0 > o1:
		need = scan(start[c0], start[c1+1])
	case c0 < o0 && o1 < c1:
		scan(start[c0], start[o0])
		need = scan(start[o1+1], start[c1+1])
	case c0 < o0:
		need = scan(start[c0], start[o0])
	case o1 < c1:
		need = scan(start[o1+1], start[c1+1])
	}
	return min(c, l.inflate(math.Sqrt(need))), true
}

// rowRange is the rows of the grid that the disk of radius c around a query at height qy meets.
func (l *Layout) rowRange(qy, c float64) (r0, r1 int) {
	r0 = max(floorCell((qy-c-l.MinY)*l.InvCell, l.Rows), 0)
	r1 = min(floorCell((qy+c-l.MinY)*l.InvCell, l.Rows), l.Rows-1)
	return r0, r1
}

// colSpan is the columns of row r that the disk of radius c around (qx,qy) meets; c0 > c1 when
// none. in says whether the disk reaches the row's band at all.
func (l *Layout) colSpan(qx, qy, c float64, r int) (c0, c1 int, in bool) {
	lo := l.MinY + float64(r)*l.Cell
	hi := lo + l.Cell
	dy := 0.0
	if qy < lo {
		dy = lo - qy
	} else if qy > hi {
		dy = qy - hi
	}
	h2 := (c - dy) * (c + dy)
	if !(h2 >= 0) {
		return 0, -1, false
	}
	h := math.Sqrt(h2)
	c0 = max(floorCell((qx-h-l.MinX)*l.InvCell, l.Cols), 0)
	c1 = min(floorCell((qx+h-l.MinX)*l.InvCell, l.Cols), l.Cols-1)
	return c0, c1, true
}
