package interp

// This file holds what gdal_grid's algorithms share: reading their options as gdal_grid 3.6
// does (alg/gdalgrid.cpp, ParseAlgorithmAndOptions), the search ellipse, the per-quadrant
// selection, and the order in which gdal_grid's quadtree returns samples, which decides its
// ties. References to "gdal" below are to GDAL 3.6.2's alg/gdalgrid.cpp.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// gdalQuadtreeThreshold is GDAL_GRID_POINT_COUNT_THRESHOLD's default: gdal indexes the samples
// with its quadtree only above this many samples, and nearest and average_distance_pts then
// follow a different rule (the quadtree's square, see searchArea.Square).
const gdalQuadtreeThreshold = 100

// Every search of a node goes through without, knn or within with the sample to leave out
// (-1 for none), so that a node computed with a sample held out (see holdOut) never sees that
// sample; samples at the same place as the held-out one stay, as they would in a copy of the
// samples without it.

// without removes sample skip (-1: none) from a search result, keeping the order of the rest.
func without(nb []grid.Neighbor, skip int32) []grid.Neighbor {
	if skip < 0 {
		return nb
	}
	for i, n := range nb {
		if n.ID == skip {
			return append(nb[:i], nb[i+1:]...)
		}
	}
	return nb
}

// knn is ix.KNN, into sc.nb's room, without sample skip (-1: none): it asks for one more
// neighbour, so that k remain. The index orders by distance and then ID, so the k left are
// those that a search of the samples without the held-out one finds.
func (sc *scratch) knn(ix *grid.Index, x, y float64, k int, maxD2 float64, skip int32) []grid.Neighbor {
	var nb []grid.Neighbor
	if skip < 0 || k == math.MaxInt {
		nb = without(ix.KNN(x, y, k, maxD2, sc.nb), skip)
	} else {
		nb = without(ix.KNN(x, y, k+1, maxD2, sc.nb), skip)
		nb = nb[:min(len(nb), k)]
	}
	if len(nb) == k {
		sc.reached(nb[k-1].D2)
	} else {
		sc.reached(maxD2) // fewer than asked: every sample within maxD2 was seen
	}
	return nb
}

// within is ix.Within, into sc.nb's room, without sample skip (-1: none).
func (sc *scratch) within(ix *grid.Index, x, y, r2 float64, skip int32) []grid.Neighbor {
	sc.reached(r2)
	return without(ix.Within(x, y, r2, sc.nb), skip)
}

// reached widens the node's reach (see Block.Reach) to the squared distance d2.
func (sc *scratch) reached(d2 float64) {
	sc.reach2 = max(sc.reach2, d2)
}

// gdalOptions reads one gdal_grid algorithm's key=value options with the defaults and ranges
// of its declaration (gdal's). Values gdal would take but that make no sense (a negative radius
// or power, a fractional count) are errors here; the first is kept in kv.err.
type gdalOptions struct{ kv *keyValues }

// has says whether key was given at all, as gdal's CSLFetchNameValue != nullptr.
func (o gdalOptions) has(key string) bool { _, ok := o.kv.values[key]; return ok }

func (o gdalOptions) fail(format string, args ...any) { o.kv.fail(fmt.Errorf(format, args...)) }

// number returns a finite number, or def when key is absent (no range check).
func (o gdalOptions) number(key string, def float64) float64 {
	v := o.kv.floatOr(key, def)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		o.fail("%s=%v: must be a finite number", key, v)
		return def
	}
	return v
}

// float returns key's value, or its default: finite (unless declared NonFinite, as nodata)
// and within the declared range.
func (o gdalOptions) float(key string) float64 {
	opt := o.kv.option(key)
	def := opt.defaultFloat()
	if opt.NonFinite {
		return o.kv.Float(key)
	}
	v := o.number(key, def)
	if msg := opt.outOfRange(v); msg != "" {
		o.fail("%s", msg)
		return def
	}
	return v
}

// count returns a point count, or def when absent: gdal truncates any number to an unsigned
// integer; here it must be a whole number >= 0 ("12.0" is accepted, as QGIS writes such values).
func (o gdalOptions) count(key string, def int) int {
	v := o.number(key, float64(def))
	if v < 0 || v != math.Trunc(v) || v > math.MaxUint32 {
		o.fail("%s=%v: must be a whole number >= 0", key, v)
		return def
	}
	return int(v)
}

// int is count with the declared default.
func (o gdalOptions) int(key string) int { return o.count(key, int(o.kv.option(key).defaultFloat())) }

// nodata returns the nodata value; unlike the other options it may be NaN or infinite.
func (o gdalOptions) nodata() float64 { return o.float("nodata") }

// radii reads radius1 and radius2, both set by radius when it is given (gdal 3.6 reads
// "radius" first for average, nearest, invdist and the data metrics).
func (o gdalOptions) radii() (r1, r2 float64) {
	if o.has("radius") {
		r := o.float("radius")
		return r, r
	}
	return o.float("radius1"), o.float("radius2")
}

// warnUnknown adds gdal's warning for every given key that is not among the declared ones, as
// gdal 3.6 does after parsing (its list, which for invdist lacks "radius" although invdist
// reads it: see Option.Ignored).
func (o gdalOptions) warnUnknown() {
	known := o.kv.decl.knownGDALKeys()
	for i, k := range o.kv.order {
		if !slices.Contains(known, k) {
			o.kv.warnings = append(o.kv.warnings, fmt.Sprintf("Option %s ignored", o.kv.given[i]))
		}
	}
}

// QuadrantLimits are gdal 3.6's min_points_per_quadrant and max_points_per_quadrant (0: unset).
type QuadrantLimits struct{ MinPerQuadrant, MaxPerQuadrant int }

func (q QuadrantLimits) active() bool { return q.MinPerQuadrant > 0 || q.MaxPerQuadrant > 0 }

func (o gdalOptions) quadrants() QuadrantLimits {
	return QuadrantLimits{o.int("min_points_per_quadrant"), o.int("max_points_per_quadrant")}
}

// checkQuadrantSearch is gdal's condition for a per-quadrant search: a positive radius in both
// directions and no rotation (its own error texts).
func checkQuadrantSearch(r1, r2, angle float64) error {
	if !(r1 > 0) || !(r2 > 0) {
		return fmt.Errorf("Radius value should be strictly positive when per quadrant parameters are specified")
	}
	if angle != 0 {
		return fmt.Errorf("angle != 0 not supported when per quadrant parameters are specified")
	}
	return nil
}

// toRadiansGDAL is gdal's TO_RADIANS (M_PI / 180.0 in double arithmetic).
const toRadiansGDAL = float64(math.Pi) / 180

// searchArea is gdal's search ellipse: semi-axes R1 along x and R2 along y, rotated by Angle
// degrees counter-clockwise, tested exactly as gdal tests it. Square says that gdal searches
// its quadtree (see usesQuadtree), which first restricts candidates to the square of half-side
// max(R1,R2) around the node: that matters only when one radius is 0 and the ellipse is a line.
type searchArea struct {
	R1, R2, Angle float64
	Square        bool
}

// all says that no radius is set: gdal then takes every sample.
func (a searchArea) all() bool { return a.R1 == 0 && a.R2 == 0 }

// UsesQuadtree is gdal's condition (GDALGridContextCreate) for searching its quadtree with an
// ellipse, for average, nearest and the data metrics without per-quadrant options.
func UsesQuadtree(n int, r1, r2, angle float64) bool {
	return n > gdalQuadtreeThreshold && angle == 0 && (r1 > 0 || r2 > 0)
}

// half is the half-side of gdal's quadtree search square.
func (a searchArea) half() float64 { return max(a.R1, a.R2) }

// find appends to dst[:0] the samples in the area around (x,y), ascending by ID, D2 the
// squared distance.
func (a searchArea) find(ix *grid.Index, x, y float64, dst []grid.Neighbor) []grid.Neighbor {
	if !a.Square || (a.R1 > 0 && a.R2 > 0) {
		return ix.Ellipse(x, y, a.R1, a.R2, a.Angle, dst)
	}
	dst = a.collect(ix, x, y, dst)
	slices.SortFunc(dst, func(p, q grid.Neighbor) int { return cmp.Compare(p.ID, q.ID) })
	return dst
}

// collect is find in no particular order, for the algorithms that do not depend on it: it
// saves the sort, which costs more than the search.
func (a searchArea) collect(ix *grid.Index, x, y float64, dst []grid.Neighbor) []grid.Neighbor {
	bounded := a.R1 > 0 && a.R2 > 0 || a.Square
	if !bounded || a.all() {
		return ix.Ellipse(x, y, a.R1, a.R2, a.Angle, dst)
	}
	t := newEllipseTest(a)
	h := a.half()
	dst = dst[:0]
	eachCellRange(ix, x, y, h, func(lo, hi int32) {
		for j := lo; j < hi; j++ {
			sx, sy := ix.At(j)
			dx, dy := sx-x, sy-y
			if t.inside(dx, dy) && (!a.Square || math.Abs(dx) <= h && math.Abs(dy) <= h) {
				dst = append(dst, grid.Neighbor{ID: ix.Order[j], D2: float64(dx*dx) + float64(dy*dy)})
			}
		}
	})
	return dst
}

// ellipseTest is gdal's test of a sample at (dx,dy) from the node against the search ellipse,
// operation for operation.
type ellipseTest struct {
	r1s, r2s, r12s float64
	rotated        bool
	cos, sin       float64
}

func newEllipseTest(a searchArea) ellipseTest {
	t := ellipseTest{r1s: a.R1 * a.R1, r2s: a.R2 * a.R2}
	t.r12s = t.r1s * t.r2s
	if ang := toRadiansGDAL * a.Angle; ang != 0 {
		t.rotated, t.cos, t.sin = true, math.Cos(ang), math.Sin(ang)
	}
	return t
}

func (t ellipseTest) inside(dx, dy float64) bool {
	if t.rotated {
		dx, dy = float64(dx*t.cos)+float64(dy*t.sin), float64(dy*t.cos)-float64(dx*t.sin)
	}
	return float64(t.r2s*dx*dx)+float64(t.r1s*dy*dy) <= t.r12s
}

// eachCellRange calls scan with the range of the index's sample order for each row of cells
// that meets the square of half-side h around (x,y) (widened against rounding).
func eachCellRange(ix *grid.Index, x, y, h float64, scan func(lo, hi int32)) {
	l := &ix.Layout
	h = h*(1+1e-9) + l.Cell*1e-6
	c0 := cellIndex((x-h-l.MinX)*l.InvCell, l.Cols)
	c1 := cellIndex((x+h-l.MinX)*l.InvCell, l.Cols)
	r0 := cellIndex((y-h-l.MinY)*l.InvCell, l.Rows)
	r1 := cellIndex((y+h-l.MinY)*l.InvCell, l.Rows)
	for r := r0; r <= r1; r++ {
		if lo, hi := ix.Start[r*l.Cols+c0], ix.Start[r*l.Cols+c1+1]; lo < hi {
			scan(lo, hi)
		}
	}
}

// cellIndex is the cell holding the scaled coordinate f, clamped to the n cells.
func cellIndex(f float64, n int) int {
	switch {
	case !(f >= 0):
		return 0
	case f >= float64(n-1):
		return n - 1
	}
	return int(f)
}

// inSquare says whether the sample lies in the square of half-side h around (x,y), as gdal's
// quadtree search keeps it.
func inSquare(s *sample.Samples, id int32, x, y, h float64) bool {
	sx, sy := s.XY(id)
	return math.Abs(sx-x) <= h && math.Abs(sy-y) <= h
}

// quadrant is gdal's quadrant index of a sample at (dx,dy) from the node: bit 0 set for
// dx >= 0, bit 1 for dy >= 0.
func quadrant(dx, dy float64) int {
	q := 0
	if dx >= 0 {
		q = 1
	}
	if dy >= 0 {
		q |= 2
	}
	return q
}

// quadrantPick is gdal's per-quadrant selection: the candidates of each quadrant in order of
// distance (ties in gdal's quadtree order), taken in turn from quadrants 0,1,2,3,0,... until
// every quadrant is exhausted or holds MaxPerQuadrant, or maxPoints (when > 0) are taken.
type quadrantPick struct {
	// Order holds the picked candidates' positions in the sorted candidate list, in the order
	// gdal takes them.
	Order []int32
	// PerQuadrant counts the picks of each quadrant.
	PerQuadrant [4]int
}

// ok says whether every quadrant holds min_points_per_quadrant.
func (p *quadrantPick) ok(minPer int) bool {
	for _, c := range p.PerQuadrant {
		if c < minPer {
			return false
		}
	}
	return true
}

// pickQuadrants sorts nb (candidates around (x,y) with their keys in D2) by quadrant, key and
// gdal's order, and picks from them into sc.ids as gdal does.
func pickQuadrants(sc *scratch, nb []grid.Neighbor, s *sample.Samples, x, y float64, lim QuadrantLimits,
	maxPoints int, order *gdalOrder) quadrantPick {
	quad := func(n grid.Neighbor) int {
		sx, sy := s.XY(n.ID)
		return quadrant(sx-x, sy-y)
	}
	slices.SortFunc(nb, func(a, b grid.Neighbor) int {
		if c := cmp.Compare(quad(a), quad(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.D2, b.D2)
	})
	var bounds [5]int
	for i, n := range nb {
		bounds[quad(n)+1] = i + 1
	}
	for q := 1; q < 5; q++ {
		bounds[q] = max(bounds[q], bounds[q-1])
	}
	for q := 0; q < 4; q++ {
		order.sortTies(nb[bounds[q]:bounds[q+1]])
	}
	pick := quadrantPick{Order: sc.ids[:0]}
	next := [4]int{bounds[0], bounds[1], bounds[2], bounds[3]}
	done := 0
	for q := 0; ; q = (q + 1) % 4 {
		if next[q] == bounds[q+1] || lim.MaxPerQuadrant > 0 && pick.PerQuadrant[q] >= lim.MaxPerQuadrant {
			if done |= 1 << q; done == 15 {
				break
			}
			continue
		}
		pick.Order = append(pick.Order, int32(next[q]))
		next[q]++
		pick.PerQuadrant[q]++
		if maxPoints > 0 && len(pick.Order) >= maxPoints {
			break
		}
	}
	sc.ids = pick.Order
	return pick
}

// gdalOrder is the order in which gdal's quadtree returns samples; gdal breaks every tie in
// that order (its multimaps keep equal keys in insertion order, its nearest search keeps the
// last of equal distances). It is built the first time a tie needs it, since ties are rare
// but the build touches every sample.
type gdalOrder struct {
	s    *sample.Samples
	once sync.Once
	rank []int32
	// job is a Partial job, told when a comparison is not sure (see compare); unsure marks,
	// for its samples, the leaves whose samples' order the whole job's may differ from.
	job    *Job
	leaf   []int32
	unsure []bool
}

func newGDALOrder(s *sample.Samples) *gdalOrder { return &gdalOrder{s: s} }

// build makes the quadtree once: over the samples, or for a Partial job over its samples
// within the whole job's root.
func (o *gdalOrder) build() {
	o.once.Do(func() {
		if o.job == nil {
			o.rank = gdalQuadtreeRanks(o.s)
			return
		}
		b := o.job.Bounds
		o.rank, o.leaf, o.unsure = gdalQuadtreeIn(o.s, &quadRect{b[0], b[1], b[2], b[3]}, &o.job.Region)
	})
}

// ranks returns each sample's position in gdal's quadtree order; a Partial job is told that
// its order was needed, whatever the samples compared.
func (o *gdalOrder) ranks() []int32 {
	if o.job != nil {
		o.job.orderNeeded.Store(true)
	}
	o.build()
	return o.rank
}

// compare orders samples a and b as gdal's quadtree returns them. In a Partial job it tells
// the job when they share a leaf that the whole job's samples might split, at two places: the
// leaves' own order is the whole job's (a leaf's place in the tree depends only on the
// splits above it, which the tile's samples prove), and so is the order of samples at one
// place (they stay in one leaf, in input order, which a tile keeps).
func (o *gdalOrder) compare(a, b int32) int {
	o.build()
	if o.unsure != nil && o.leaf[a] == o.leaf[b] && o.unsure[o.leaf[a]] {
		ax, ay := o.s.XY(a)
		bx, by := o.s.XY(b)
		if ax != bx || ay != by {
			o.job.orderNeeded.Store(true)
		}
	}
	return cmp.Compare(o.rank[a], o.rank[b])
}

// sortTies reorders each run of equal D2 in nb (sorted by D2) into gdal's order.
func (o *gdalOrder) sortTies(nb []grid.Neighbor) {
	for i := 0; i+1 < len(nb); {
		j := i + 1
		for j < len(nb) && nb[j].D2 == nb[i].D2 {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(nb[i:j], func(a, b grid.Neighbor) int { return o.compare(a.ID, b.ID) })
		}
		i = j
	}
}

// gdal's quadtree (port/cpl_quad_tree.cpp) as GDALGridContextCreateQuadTree fills it: the
// samples' bounding box as root, samples inserted in input order, buckets of 8, nodes split
// into four overlapping quarters (split ratio 0.55) when a full bucket gets a sample that fits
// one of them. A search returns, node by node in pre-order, each node's samples in insertion
// order, so every search result is in the order of one global pre-order walk: its rank.
const (
	quadBucket     = 8
	quadSplitRatio = 0.55
)

type quadRect struct{ minX, minY, maxX, maxY float64 }

func (r quadRect) contains(x, y float64) bool {
	return x >= r.minX && x <= r.maxX && y >= r.minY && y <= r.maxY
}

func (r quadRect) same(o quadRect) bool {
	return math.Float64bits(r.minX) == math.Float64bits(o.minX) && math.Float64bits(r.minY) == math.Float64bits(o.minY) &&
		math.Float64bits(r.maxX) == math.Float64bits(o.maxX) && math.Float64bits(r.maxY) == math.Float64bits(o.maxY)
}

// split is CPLQuadTreeSplitBounds: two overlapping halves across the longer side.
func (r quadRect) split() (a, b quadRect) {
	a, b = r, r
	if r.maxX-r.minX > r.maxY-r.minY {
		w := r.maxX - r.minX
		a.maxX = r.minX + float64(w*quadSplitRatio)
		b.minX = r.maxX - float64(w*quadSplitRatio)
	} else {
		h := r.maxY - r.minY
		a.maxY = r.minY + float64(h*quadSplitRatio)
		b.minY = r.maxY - float64(h*quadSplitRatio)
	}
	return a, b
}

// gdalQuadtreeRanks builds gdal's quadtree over the samples in absolute coordinates, as gdal
// sees them, and returns each sample's rank in its pre-order walk.
func gdalQuadtreeRanks(s *sample.Samples) []int32 {
	rank, _, _ := gdalQuadtreeIn(s, nil, nil)
	return rank
}

// gdalQuadtreeIn is gdalQuadtreeRanks with root, when given, the whole job's box, of which the
// samples are those strictly inside region (absolute): the tree then also gives each sample's
// leaf, and marks unsure the leaves that the job's other samples might split. A node splits
// when a ninth sample reaches it, and where a sample goes depends on its place alone, so the
// tree is the whole job's but for leaves of at most a bucket that reach outside region.
func gdalQuadtreeIn(s *sample.Samples, root *quadRect, region *[4]float64) (rank, leaf []int32, unsure []bool) {
	n := s.Len()
	items := quadItems{id: make([]int32, n), x: make([]float64, n), y: make([]float64, n)}
	for i := range n {
		x, y := s.XY(int32(i))
		items.id[i], items.x[i], items.y[i] = int32(i), x+s.OriginX, y+s.OriginY
	}
	if root == nil {
		root = &quadRect{items.x[0], items.y[0], items.x[0], items.y[0]}
		for i := 1; i < n; i++ {
			root.minX, root.maxX = min(root.minX, items.x[i]), max(root.maxX, items.x[i])
			root.minY, root.maxY = min(root.minY, items.y[i]), max(root.maxY, items.y[i])
		}
	}
	b := newQuadBuild(n, region)
	tmp := quadItems{id: make([]int32, n), x: make([]float64, n), y: make([]float64, n)}
	b.build(*root, items, tmp, make([]uint8, n))
	return b.rank, b.leaf, b.unsure
}
