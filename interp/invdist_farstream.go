package interp

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/raster"
)

// farStream is the far-field tree's sums (see farTree) streaming past a tile's nodes: each
// box of the tile (its nodes' leaves and their ancestors) keeps the row kernel's sums at its
// points over its far samples, and each leaf at the tile's nodes over its near samples, as the
// samples come in input order, which is the order the in-memory tree gathers them in. The
// fields are then made top-down, as fieldOf makes them, and the leaves' values as
// computeLeaf's, so that they have the in-memory bits.
type farStream struct {
	t     *farTree
	units []*farUnit
	boxes []int32 // the tile's boxes, parents first
	parts map[int32]*farLeafPart
	// at is the node of the stream at column c0+i, row r0+j: at[j*cols+i], -1 for none.
	at         []int
	c0, r0, nc int
	// takes says that every sample so far is one the tree takes (farTreeSample).
	takes atomic.Bool
	bufs  sync.Pool // of *farSamples
}

// farLeafPart is the part of a leaf that holds the tile's nodes: rows [r0,r1), the batches
// of columns that hold [c0,c1).
type farLeafPart struct {
	l              *farBox
	r0, r1, c0, c1 int
}

// farUnit is a set of sums of a farStream: at a box's points over its far samples, or at a
// leaf's nodes (part) over its near samples, those in the rectangle in but not out, shifted
// by (dx, dy). acc holds the kernel's sums for each batch of 8 points or nodes, rest the
// samples held back (fewer than a block), count the samples so far; sums the sums in the end.
type farUnit struct {
	b       *farBox
	part    *farLeafPart
	in, out [4]float64
	dx, dy  float64
	batches int
	acc     []float64
	rest    run
	count   int
	sums    [][2][batchNodes]float64
}

func newFarStream(t *farTree, nodes StreamNodes) *farStream {
	fs := &farStream{t: t, parts: map[int32]*farLeafPart{}}
	fs.takes.Store(true)
	fs.bufs.New = func() any { return new(farSamples) }
	c0, c1 := slices.Min(nodes.Col), slices.Max(nodes.Col)
	r0, r1 := slices.Min(nodes.Row), slices.Max(nodes.Row)
	fs.c0, fs.r0, fs.nc = c0, r0, c1-c0+1
	fs.at = make([]int, fs.nc*(r1-r0+1))
	for i := range fs.at {
		fs.at[i] = -1
	}
	in := make([]bool, len(t.boxes))
	for i, c := range nodes.Col {
		r := nodes.Row[i]
		fs.at[(r-r0)*fs.nc+c-c0] = i
		id := t.leaves[int(t.leafRow[r])*t.leafCols+int(t.leafCol[c])]
		p := fs.parts[id]
		if p == nil {
			p = &farLeafPart{l: t.boxes[id], r0: r, r1: r + 1, c0: c, c1: c + 1}
			fs.parts[id] = p
		}
		p.r0, p.r1, p.c0, p.c1 = min(p.r0, r), max(p.r1, r+1), min(p.c0, c), max(p.c1, c+1)
		for b := id; b >= 0 && !in[b]; b = t.boxes[b].parent {
			in[b] = true
		}
	}
	w := t.sums.width()
	for id, ok := range in {
		if !ok {
			continue
		}
		b := t.boxes[id]
		fs.boxes = append(fs.boxes, int32(id))
		if !b.direct {
			u := &farUnit{b: b, dx: b.mx, dy: b.my, batches: pointBatches}
			u.in, u.out = t.farIn(b)
			fs.units = append(fs.units, u)
		}
		if p := fs.parts[int32(id)]; p != nil {
			b0, b1 := (p.c0-b.c0)/batchNodes, (p.c1-b.c0+batchNodes-1)/batchNodes
			fs.units = append(fs.units, &farUnit{b: b, part: p, in: t.leafIn(b), out: farNone, batches: (p.r1 - p.r0) * (b1 - b0)})
		}
	}
	for _, u := range fs.units {
		u.acc = make([]float64, u.batches*w)
	}
	return fs
}

// batch is unit u's batch j: its 8 points or nodes, their y.
func (fs *farStream) batch(u *farUnit, j int) (px [batchNodes]float64, y float64) {
	if u.part == nil {
		return pointBatch(u.b, j)
	}
	p := u.part
	b0, b1 := (p.c0-u.b.c0)/batchNodes, (p.c1-u.b.c0+batchNodes-1)/batchNodes
	px, y, _ = fs.t.leafBatch(u.b, p.r0+j/(b1-b0), b0+j%(b1-b0))
	return px, y
}

// add adds a chunk of samples, in order, to every unit: the unit's samples held back and
// those of the chunk in its rectangle, in whole blocks.
func (fs *farStream) add(ctx context.Context, xs, ys, zs []float64, threads int) error {
	for i, x := range xs {
		if !farTreeSample(x, ys[i], zs[i]) {
			fs.takes.Store(false)
		}
	}
	if !fs.takes.Load() {
		return ctx.Err() // the in-memory run takes another form: a pass of it follows
	}
	return forEachRun(ctx, threads, len(fs.units), 1, func(_ *scratch, lo, hi int) {
		g := fs.bufs.Get().(*farSamples)
		defer fs.bufs.Put(g)
		for _, u := range fs.units[lo:hi] {
			g.x, g.y, g.z = append(g.x[:0], u.rest.x...), append(g.y[:0], u.rest.y...), append(g.z[:0], u.rest.z...)
			for i, x := range xs {
				if y := ys[i]; inRect(u.in, x, y) && !inRect(u.out, x, y) {
					g.x, g.y, g.z = append(g.x, x-u.dx), append(g.y, y-u.dy), append(g.z, zs[i])
					u.count++
				}
			}
			fs.sum(u, g, false)
		}
	})
}

// sum adds the whole blocks of g to u's sums and holds back the rest; last ends the sums.
func (fs *farStream) sum(u *farUnit, g *farSamples, last bool) {
	s := fs.t.sums
	w := s.width()
	n := len(g.x) / s.block() * s.block()
	if last {
		u.sums = make([][2][batchNodes]float64, u.batches)
	}
	for j := range u.batches {
		px, y := fs.batch(u, j)
		acc := u.acc[j*w : (j+1)*w]
		s.add(g.x[:n], g.y[:n], g.z[:n], &px, y, acc)
		if last {
			s.end(g.x[n:], g.y[n:], g.z[n:], &px, y, acc, &u.sums[j][0], &u.sums[j][1])
		}
	}
	u.rest = run{append(u.rest.x[:0], g.x[n:]...), append(u.rest.y[:0], g.y[n:]...), append(u.rest.z[:0], g.z[n:]...)}
}

// end computes the tile's nodes into value, once every sample has come: those that the
// leaves' sums leave to gdal's loop are returned. takes false says that the in-memory run
// does not take the tree for these samples.
func (fs *farStream) end(value []float64) (left []int, takes bool) {
	if !fs.takes.Load() {
		return nil, false
	}
	t := fs.t
	g := new(farSamples)
	for _, u := range fs.units {
		if u.count == 0 {
			continue
		}
		g.x, g.y, g.z = append(g.x[:0], u.rest.x...), append(g.y[:0], u.rest.y...), append(g.z[:0], u.rest.z...)
		// padded as gather pads, and shifted as addFar shifts
		for t.sums.power2 && len(g.x)%8 != 0 {
			g.x, g.y, g.z = append(g.x, farPad-u.dx), append(g.y, farPad-u.dy), append(g.z, 0)
		}
		fs.sum(u, g, true)
		u.acc = nil
	}
	points, near := map[int32]*farUnit{}, map[int32]*farUnit{}
	for _, u := range fs.units {
		if u.part == nil {
			points[u.b.id] = u
		} else {
			near[u.b.id] = u
		}
	}
	fields := map[int32][]float64{}
	for _, id := range fs.boxes {
		b := t.boxes[id]
		fields[id] = t.field(b, fields[b.parent], func(f []float64) {
			if u := points[id]; u.count > 0 {
				t.addPoints(b, f, func(j int, _ *[batchNodes]float64, _ float64, num, den *[batchNodes]float64) {
					*num, *den = u.sums[j][0], u.sums[j][1]
				})
			}
		})
		u := near[id]
		if u == nil {
			continue
		}
		p := u.part
		b0, b1 := (p.c0-b.c0)/batchNodes, (p.c1-b.c0+batchNodes-1)/batchNodes
		sums := func(r, bi int, _ *[batchNodes]float64, _ float64, num, den *[batchNodes]float64) {
			*num, *den = [batchNodes]float64{}, [batchNodes]float64{}
			if u.count > 0 {
				s := u.sums[(r-p.r0)*(b1-b0)+bi-b0]
				*num, *den = s[0], s[1]
			}
		}
		t.leafValues(b, fields[id], p.r0, p.r1, p.c0, p.c1, sums, func(c, r int, v float64, ok bool) {
			c, r = c-fs.c0, r-fs.r0
			if c < 0 || c >= fs.nc || r < 0 || r*fs.nc+c >= len(fs.at) {
				return
			}
			if i := fs.at[r*fs.nc+c]; i >= 0 {
				if ok {
					value[i] = v
				} else {
					left = append(left, i)
				}
			}
		})
	}
	return left, true
}

// farStreamBytes bounds what a farStream holds for a tile of side x side nodes of raster t
// besides what its nodes hold: the sums at the points of the tile's boxes (the leaves that
// its nodes touch and their ancestors, counted depth by depth) and their fields.
func farStreamBytes(s farSums, t raster.Target, side int) float64 {
	leafMax := farLeaf
	for (t.Cols/leafMax+1)*(t.Rows/leafMax+1) > farMaxLeaves {
		leafMax *= 2
	}
	dx, dy := depth(t.Cols, leafMax), depth(t.Rows, leafMax)
	boxes := 0
	for d := range max(dx, dy) + 1 {
		kx, ky := min(d, dx), min(d, dy)
		// boxes at depth d have at least cols>>kx columns and rows>>ky rows
		bc, br := max(t.Cols>>kx, 1), max(t.Rows>>ky, 1)
		boxes += min((side+bc-1)/bc+1, 1<<kx) * min((side+br-1)/br+1, 1<<ky)
	}
	perBox := pointBatches*s.width() + pointBatches*2*batchNodes + 2*farPoints*farPoints
	return 8 * float64(boxes) * float64(perBox)
}
