package farfield

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// A survey larger than memory streams its samples past a Field instead of holding them: a
// Builder takes them in input order, chunk by chunk, into each leaf's charges (the same
// arithmetic, sample by sample, in the same order within each leaf as upward's, so that the
// charges and every far field have the in-memory Field's bits), and a target's near field
// comes from a Near, the samples of the leaves around a tile's targets that the tile loads.

// streamedSamples stands for the samples of a plan that does not hold them: their number and
// box (xmin ymin xmax ymax, in the samples' coordinates).
type streamedSamples struct {
	n   int
	box [4]float64
}

// NewStreamPlan is NewPlan for n samples that stream past it (see Builder): box is their
// bounding box, exactly as the samples' coordinates give it.
func NewStreamPlan(n int, box [4]float64, opts Options) (*Plan, error) {
	if n <= 0 {
		return nil, errors.New("farfield: no samples")
	}
	pl, err := NewPlan(nil, nil, nil, opts)
	if err != nil {
		return nil, err
	}
	pl.streamed = &streamedSamples{n: n, box: box}
	return pl, nil
}

// Builder accumulates the charges of a streamed plan's Field from its samples, in input order.
type Builder struct {
	pl    *Plan
	t     *tree
	inv   float64
	count []int32 // samples per leaf (row-major), then t.start
	seen  int
}

// TreeBytes is the memory of the tree of Field(box, nt) (its charges, far fields and
// direct's points; maxTreeBytes at most), which a run held to a budget must afford.
func (pl *Plan) TreeBytes(box [4]float64, nt int) float64 {
	t := pl.geometry(box, nt)
	return pl.treeBytes(t.d, t.fields) + 4*float64(int(1)<<(2*t.d))*2
}

// NewBuilder starts the Field of a streamed plan over box for about nt targets, as Field.
func (pl *Plan) NewBuilder(box [4]float64, nt int) (*Builder, error) {
	if pl.streamed == nil {
		return nil, errors.New("farfield: a Builder needs a plan of streamed samples (NewStreamPlan)")
	}
	t := pl.geometry(box, nt)
	pl.allocate(t)
	b := &Builder{pl: pl, t: t, inv: float64(int(1)<<t.d) / t.sd, count: make([]int32, 1<<(2*t.d)+1)}
	return b, nil
}

// Add adds the next samples in input order (coordinates as the plan's box), their charges
// computed on every core, each core for its own leaves.
func (b *Builder) Add(ctx context.Context, xs, ys, zs []float64) error {
	if len(ys) != len(xs) || len(zs) != len(xs) {
		return errors.New("farfield: sample slices differ in length")
	}
	if b.seen+len(xs) > b.pl.streamed.n {
		return fmt.Errorf("farfield: more than the plan's %d samples", b.pl.streamed.n)
	}
	b.seen += len(xs)
	t, pl := b.t, b.pl
	d := t.d
	leaves := make([]int32, len(xs))
	for i, x := range xs {
		ix, iy := t.leafOf(x, ys[i])
		leaves[i] = int32(iy<<d + ix)
		b.count[leaves[i]+1]++
	}
	if d < 2 {
		return ctx.Err() // no charges: every target sums every sample
	}
	p2 := pl.p * pl.p
	workers := min(pl.o.Threads, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			lx, ly := make([]float64, pl.p), make([]float64, pl.p)
			dx, dy := make([]float64, pl.pd), make([]float64, pl.pd)
			for i, k := range leaves {
				// every worker looks at ctx, whichever leaves its samples fall in
				if i%samplesPerCheck == 0 && ctx.Err() != nil {
					return
				}
				if int(k)%workers != w {
					continue
				}
				ix, iy := int(k)&(1<<d-1), int(k)>>d
				code := morton(ix, iy)
				qz := t.mp[d][code*2*p2:][:p2]
				q1 := t.mp[d][(code*2+1)*p2:][:p2]
				pl.charge(t, b.inv, ix, iy, code, qz, q1, xs[i], ys[i], zs[i], lx, ly, dx, dy)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// Field finishes the charges once every sample was added and builds the far fields, as
// Plan.Field does with powers (nil: none). The Field's targets' near fields come from a Near.
func (b *Builder) Field(ctx context.Context, powers *Powers) (*Field, error) {
	if b.seen != b.pl.streamed.n {
		return nil, fmt.Errorf("farfield: %d samples streamed of the plan's %d", b.seen, b.pl.streamed.n)
	}
	t, pl := b.t, b.pl
	t.start = b.count
	t.count()
	if t.d >= 2 {
		if t.direct() {
			n := 1 << t.d
			for k := range n * n {
				if k%samplesPerCheck == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if t.start[k+1] > t.start[k] {
					ix, iy := k&(n-1), k>>t.d
					pl.proxies(t, morton(ix, iy), ix, iy)
				}
			}
		}
		if err := pl.parents(ctx, t); err != nil {
			return nil, err
		}
	}
	return pl.fieldOf(ctx, t, powers)
}

// NearBox is the box (in the samples' coordinates) of the leaves whose samples the near
// fields of targets inside box sum: a Near must be made from every sample inside it (and may
// be given more).
func (f *Field) NearBox(box [4]float64) [4]float64 {
	t := f.t
	n := 1 << t.d
	x0, y0 := t.leafOf(box[0], box[1])
	x1, y1 := t.leafOf(box[2], box[3])
	x0, y0 = max(x0-nearR, 0), max(y0-nearR, 0)
	x1, y1 = min(x1+nearR, n-1), min(y1+nearR, n-1)
	w := t.sd / float64(n)
	return [4]float64{t.ox + float64(x0)*w, t.oy + float64(y0)*w, t.ox + float64(x1+1)*w, t.oy + float64(y1+1)*w}
}

// Near is the samples of the leaves around some targets, sorted into the field's leaves as
// the in-memory Field sorts them (input order within a leaf), so that their near fields
// have the in-memory Field's bits.
type Near struct {
	t *tree // the field's tree with these samples in place of all
	// the leaves held in full (row-major): columns x0..x1, rows y0..y1
	x0, y0, x1, y1 int
}

// NewNear makes the Near of the samples (xs, ys, zs), in input order, which hold every sample
// of the field inside box (a NearBox's); samples of other leaves are dropped.
func (f *Field) NewNear(box [4]float64, xs, ys, zs []float64) *Near {
	t := *f.t
	d := t.d
	n := 1 << d
	// the leaves wholly inside box: the leaves of its corners, which NearBox puts on leaf
	// edges, are held only in part when a corner's leaf begins past it
	x0, y0 := t.leafOf(box[0], box[1])
	x1, y1 := t.leafOf(box[2], box[3])
	w := t.sd / float64(n)
	if t.ox+float64(x0)*w < box[0] {
		x0++
	}
	if t.oy+float64(y0)*w < box[1] {
		y0++
	}
	if x1 < n-1 && t.ox+float64(x1+1)*w > box[2] {
		x1--
	}
	if y1 < n-1 && t.oy+float64(y1+1)*w > box[3] {
		y1--
	}
	nr := &Near{x0: x0, y0: y0, x1: x1, y1: y1}
	start := make([]int32, n*n+1)
	leaf := make([]int32, len(xs))
	kept := 0
	for i, x := range xs {
		ix, iy := t.leafOf(x, ys[i])
		leaf[i] = -1
		if ix < x0 || ix > x1 || iy < y0 || iy > y1 {
			continue
		}
		k := iy<<d + ix
		leaf[i] = int32(k)
		start[k+1]++
		kept++
	}
	for k := range n * n {
		start[k+1] += start[k]
	}
	fill := append([]int32(nil), start[:n*n]...)
	t.x, t.y, t.z, t.one, t.id = make([]float64, kept), make([]float64, kept), make([]float64, kept), make([]float64, kept), make([]int32, kept)
	for i, k := range leaf {
		if k < 0 {
			continue
		}
		j := fill[k]
		fill[k]++
		t.x[j], t.y[j], t.z[j], t.one[j], t.id[j] = xs[i], ys[i], zs[i], 1, int32(i)
	}
	t.start = start
	nr.t = &t
	return nr
}

// AtNear is At for a field of streamed samples, the near field from nr, which must hold
// the leaves around the target's; ok is false where the in-memory Field would sum every
// sample exactly (a target whose power its Powers did not tell) or nr falls short.
func (f *Field) AtNear(s *Scratch, nr *Near, x, y, alpha float64) (num, den float64, hit int32, ok bool) {
	t := nr.t
	n := 1 << t.d
	ix, iy := t.leafOf(x, y)
	if max(ix-nearR, 0) < nr.x0 || max(iy-nearR, 0) < nr.y0 || min(ix+nearR, n-1) > nr.x1 || min(iy+nearR, n-1) > nr.y1 {
		return 0, 0, -1, false
	}
	k := morton(ix, iy)
	if !t.hasPower(k, alpha) {
		return 0, 0, -1, false
	}
	num, den, hit = f.pl.near(t, k, x, y, alpha)
	if t.d >= 2 {
		dn, dd := f.pl.direct(t, k, x, y, alpha)
		fn, fd := f.pl.far(t, s.w, k, x, y, alpha)
		num, den = num+dn+fn, den+dd+fd
	}
	return num, den, hit, true
}

// StreamSize is what NewStreamPlan(n, sbox, opts).Field(box, nt, ...) needs, found without
// building it: the bytes of its operators (with those of the single powers a Field may add,
// see setSingles) and tree, and the side of its leaves (a target's near field reaches nearR
// leaves beyond its own).
func StreamSize(n int, sbox [4]float64, opts Options, box [4]float64, nt int) (bytes, leaf float64, err error) {
	pl, err := newPlan(nil, nil, nil, opts)
	if err != nil {
		return 0, 0, err
	}
	pl.streamed = &streamedSamples{n: n, box: sbox}
	p2 := float64(pl.p * pl.p)
	ops := float64(span*span-9) * p2 * p2 * float64(pl.q+maxSingles)
	t := pl.geometry(box, nt)
	return 8*ops + pl.TreeBytes(box, nt), t.sd / float64(int(1)<<t.d), nil
}
