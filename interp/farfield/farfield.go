package farfield

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/internal/fastmath"
)

// ExactHitD2 is gdal_grid's squared distance under which a target takes a sample's value.
const ExactHitD2 = 1e-13

// Options sets a Plan's accuracy and resources; zero fields take their defaults.
type Options struct {
	// Tol is the relative error allowed in den[j] and in num[j] against sum_i w_ij |z_i|
	// (default 1e-9; at least 1e-13).
	Tol float64
	// AlphaMin and AlphaMax bound the powers that Sums is given (default 1.5 and 3.5; equal
	// for one power, as invdist's).
	AlphaMin, AlphaMax float64
	// Threads is the number of workers (default runtime.GOMAXPROCS(0)).
	Threads int
	// LeafSize, if positive, is the most samples per leaf box on average (default: the depth
	// of least estimated time).
	LeafSize int
	// Order and AlphaOrder override the Chebyshev points per dimension of a box and the
	// number of powers interpolated between (0: chosen from Tol, see doc.go).
	Order, AlphaOrder int
}

// Plan holds the samples and the far-field operators for one tolerance and power range.
type Plan struct {
	sx, sy, sz []float64
	o          Options
	p, q       int
	cheb, bw   []float64 // p Chebyshev points on [0,1], barycentric weights
	anode, abw []float64 // q Chebyshev points on [AlphaMin, AlphaMax], weights
	// s2[h] is the parent's basis at child half h's points: s2[h][a*p+k] = L_a((h+c_k)/2).
	s2 [2][]float64
	// ops[off] is the far operator of offset off = (dx+2nearR+1)*span + dy+2nearR+1 (source box minus target
	// box, in boxes), nil where |dx|,|dy| <= 1: ops[off][(m*p2+ab)*p2+kl] =
	// (|t_ab - s_kl|/r0)^-alpha_m in box units.
	ops [span * span][]float64
}

// r0 is the geometric mean of the shortest (1) and the longest (4 sqrt 2) distance of a far
// pair in box units: kernels are taken relative to it, which centres ln(d/r0) on 0.
var r0 = math.Sqrt(nearR * (2*nearR + 2) * math.Sqrt2)

// nearR is the near field's reach in boxes: samples in the (2 nearR + 1)^2 leaves around a
// target's are summed directly; a box's interaction list is the children of its parent's
// near boxes that are not its own, offsets up to 2 nearR + 1.
const nearR = 2

// span is the number of offsets per dimension, 4 nearR + 3.
const span = 4*nearR + 3

// NewPlan returns the plan for the samples (sx[i], sy[i]) with values sz[i].
func NewPlan(sx, sy, sz []float64, opts Options) (*Plan, error) {
	if len(sy) != len(sx) || len(sz) != len(sx) {
		return nil, errors.New("farfield: sample slices differ in length")
	}
	if opts.Tol == 0 {
		opts.Tol = 1e-9
	}
	if opts.AlphaMin == 0 && opts.AlphaMax == 0 {
		opts.AlphaMin, opts.AlphaMax = 1.5, 3.5
	}
	if opts.Threads <= 0 {
		opts.Threads = runtime.GOMAXPROCS(0)
	}
	switch {
	case !(opts.Tol >= 1e-13 && opts.Tol < 1):
		return nil, fmt.Errorf("farfield: tolerance %g outside [1e-13, 1)", opts.Tol)
	case !(opts.AlphaMin > 0 && opts.AlphaMax >= opts.AlphaMin && opts.AlphaMax <= 16):
		return nil, fmt.Errorf("farfield: powers [%g, %g] not within (0, 16]", opts.AlphaMin, opts.AlphaMax)
	}
	for i := range sx {
		if math.IsNaN(sx[i]+sy[i]+sz[i]) || math.IsInf(sx[i]+sy[i]+sz[i], 0) {
			return nil, fmt.Errorf("farfield: sample %d is not finite", i)
		}
	}
	pl := &Plan{sx: sx, sy: sy, sz: sz, o: opts}
	pl.p, pl.q = opts.Order, opts.AlphaOrder
	if pl.q <= 0 {
		pl.q = alphaOrderFor(opts.Tol, opts.AlphaMin, opts.AlphaMax)
	}
	if pl.p <= 0 {
		pl.p = orderFor(opts.Tol, opts.AlphaMin, opts.AlphaMax, pl.q)
	}
	pl.cheb, pl.bw = chebyshev(pl.p, 0, 1)
	pl.anode, pl.abw = chebyshev(pl.q, opts.AlphaMin, opts.AlphaMax)
	p := pl.p
	for h := range 2 {
		pl.s2[h] = make([]float64, p*p)
		l := make([]float64, p)
		for k := range p {
			basis(pl.cheb, pl.bw, (float64(h)+pl.cheb[k])/2, l)
			for a := range p {
				pl.s2[h][a*p+k] = l[a]
			}
		}
	}
	pl.makeOps()
	return pl, nil
}

// Order returns the Chebyshev points per dimension and the number of powers interpolated.
func (pl *Plan) Order() (p, q int) { return pl.p, pl.q }

// chebyshev returns the n Chebyshev points of the first kind on [a,b] and their barycentric
// weights; n == 1 gives the midpoint.
func chebyshev(n int, a, b float64) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for k := range n {
		t := float64(2*k+1) * math.Pi / float64(2*n)
		x[k] = (a+b)/2 + (b-a)/2*math.Cos(t)
		w[k] = math.Sin(t)
		if k%2 == 1 {
			w[k] = -w[k]
		}
	}
	return x, w
}

// basis sets out to the Lagrange basis of the points at x (barycentric form).
func basis(nodes, bw []float64, x float64, out []float64) {
	if len(nodes) == 1 {
		out[0] = 1
		return
	}
	s := 0.0
	for k, c := range nodes {
		d := x - c
		if d == 0 {
			clear(out)
			out[k] = 1
			return
		}
		out[k] = bw[k] / d
		s += out[k]
	}
	s = 1 / s
	for k := range out {
		out[k] *= s
	}
}

func (pl *Plan) makeOps() {
	p, q := pl.p, pl.q
	p2 := p * p
	var wg sync.WaitGroup
	const o = 2*nearR + 1
	for dx := -o; dx <= o; dx++ {
		for dy := -o; dy <= o; dy++ {
			if max(abs(dx), abs(dy)) <= nearR {
				continue
			}
			op := make([]float64, q*p2*p2)
			pl.ops[(dx+o)*span+dy+o] = op
			wg.Add(1)
			go func() {
				defer wg.Done()
				for m := range q {
					c := -pl.anode[m] / 2
					for a := range p {
						for b := range p {
							row := op[(m*p2+a*p+b)*p2:][:p2]
							for k := range p {
								ex := pl.cheb[a] - pl.cheb[k] - float64(dx)
								for l := range p {
									ey := pl.cheb[b] - pl.cheb[l] - float64(dy)
									row[k*p+l] = math.Pow((ex*ex+ey*ey)/(r0*r0), c)
								}
							}
						}
					}
				}
			}()
		}
	}
	wg.Wait()
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// spread interleaves the low 16 bits of v with zeros.
func spread(v uint32) uint32 {
	v &= 0xffff
	v = (v | v<<8) & 0x00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f
	v = (v | v<<2) & 0x33333333
	v = (v | v<<1) & 0x55555555
	return v
}

func morton(ix, iy int) int { return int(spread(uint32(ix)) | spread(uint32(iy))<<1) }

// run calls f on chunks [lo,hi) of [0,n) from threads workers until done or ctx ends.
func run(ctx context.Context, threads, n, chunk int, f func(lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(threads, (n+chunk-1)/chunk) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				f(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// tree is one Sums call's boxes: a uniform quadtree of depth d over the square of side side
// at (ox, oy) that holds samples and targets, leaves in Morton order.
type tree struct {
	d          int
	ox, oy, sd float64
	// samples sorted by leaf: leaf k holds [start[k], start[k+1]).
	x, y, z []float64
	id      []int32
	start   []int32
	mp      [][]float64 // mp[l][(code*2+c)*p2 + kl]: charges z (c=0) and 1 (c=1)
	loc     [][]float64 // loc[l][((code*2+c)*q+m)*p2 + ab]
}

// leafOf returns the leaf column and row of (x,y).
func (t *tree) leafOf(x, y float64) (int, int) {
	n := 1 << t.d
	fx, fy := (x-t.ox)/t.sd*float64(n), (y-t.oy)/t.sd*float64(n)
	return min(max(int(fx), 0), n-1), min(max(int(fy), 0), n-1)
}

// Sums computes num[j] = sum_i w_ij z_i and den[j] = sum_i w_ij, w_ij = |t_j - s_i|^-alpha[j],
// for every target t_j = (tx[j], ty[j]), within the plan's tolerance (see doc.go). Samples
// within ExactHitD2 (squared) of t_j are left out of its sums; hit, if not nil, gets the
// first such sample's index in input order, or -1.
func (pl *Plan) Sums(ctx context.Context, tx, ty, alpha, num, den []float64, hit []int32) error {
	n := len(tx)
	if len(ty) != n || len(alpha) != n || len(num) != n || len(den) != n || (hit != nil && len(hit) != n) {
		return errors.New("farfield: target slices differ in length")
	}
	lo, hi := pl.o.AlphaMin*(1-1e-12), pl.o.AlphaMax*(1+1e-12)
	for j := range n {
		if !(alpha[j] >= lo && alpha[j] <= hi) {
			return fmt.Errorf("farfield: power %g of target %d outside [%g, %g]", alpha[j], j, pl.o.AlphaMin, pl.o.AlphaMax)
		}
		if math.IsNaN(tx[j]+ty[j]) || math.IsInf(tx[j]+ty[j], 0) {
			return fmt.Errorf("farfield: target %d is not finite", j)
		}
	}
	if n == 0 {
		return nil
	}
	t := pl.newTree(tx, ty)
	// Targets sorted by leaf.
	nl := 1 << (2 * t.d)
	tstart := make([]int32, nl+1)
	tleaf := make([]int32, n)
	for j := range n {
		ix, iy := t.leafOf(tx[j], ty[j])
		k := morton(ix, iy)
		tleaf[j] = int32(k)
		tstart[k+1]++
	}
	for k := range nl {
		tstart[k+1] += tstart[k]
	}
	order := make([]int32, n)
	fill := append([]int32(nil), tstart[:nl]...)
	for j := range n {
		k := tleaf[j]
		order[fill[k]] = int32(j)
		fill[k]++
	}
	if t.d >= 2 {
		if err := pl.upward(ctx, t); err != nil {
			return err
		}
		if err := pl.m2l(ctx, t, tstart); err != nil {
			return err
		}
	}
	return run(ctx, pl.o.Threads, nl, 16, func(lo, hi int) {
		w := pl.newWork()
		for k := lo; k < hi; k++ {
			for _, j := range order[tstart[k]:tstart[k+1]] {
				nu, de, h := pl.near(t, k, tx[j], ty[j], alpha[j])
				if t.d >= 2 {
					fn, fd := pl.far(t, w, k, tx[j], ty[j], alpha[j])
					nu, de = nu+fn, de+fd
				}
				num[j], den[j] = nu, de
				if hit != nil {
					hit[j] = h
				}
			}
		}
	})
}

// Field is a plan's tree over a fixed square with the far field of every box: the sums at a
// target inside it are computed from the target alone, never from which other targets are
// asked with it, so that a job's nodes may be shared out among blocks, tiles and engines in
// any way and give the same values.
type Field struct {
	pl *Plan
	t  *tree
}

// Field builds the plan's tree over box (xmin ymin xmax ymax, grown to hold every sample) for
// about nt targets, and the far fields of all its boxes.
func (pl *Plan) Field(ctx context.Context, box [4]float64, nt int) (*Field, error) {
	t := pl.newTreeBox(box, nt)
	if t.d >= 2 {
		if err := pl.upward(ctx, t); err != nil {
			return nil, err
		}
		if err := pl.m2l(ctx, t, nil); err != nil {
			return nil, err
		}
	}
	return &Field{pl, t}, nil
}

// Contains says whether (x, y) lies in the field's square, where At may be asked.
func (f *Field) Contains(x, y float64) bool {
	t := f.t
	return x >= t.ox && y >= t.oy && x <= t.ox+t.sd && y <= t.oy+t.sd
}

// Scratch is a worker's room for At.
type Scratch struct{ w *work }

// NewScratch returns a worker's room for At.
func (f *Field) NewScratch() *Scratch { return &Scratch{f.pl.newWork()} }

// At returns the sums of Sums at the target (x, y) inside the field's square with power alpha
// (within the plan's powers): num, den, and the first sample within ExactHitD2 or -1.
func (f *Field) At(s *Scratch, x, y, alpha float64) (num, den float64, hit int32) {
	t := f.t
	ix, iy := t.leafOf(x, y)
	k := morton(ix, iy)
	num, den, hit = f.pl.near(t, k, x, y, alpha)
	if t.d >= 2 {
		fn, fd := f.pl.far(t, s.w, k, x, y, alpha)
		num, den = num+fn, den+fd
	}
	return num, den, hit
}

// maxTreeBytes bounds the memory of a tree's charges and far fields.
const maxTreeBytes = 1 << 30

// newTree chooses the depth and sorts the samples into the leaves, over the box of the
// samples and targets.
func (pl *Plan) newTree(tx, ty []float64) *tree {
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i, x := range tx {
		box = [4]float64{min(box[0], x), min(box[1], ty[i]), max(box[2], x), max(box[3], ty[i])}
	}
	return pl.newTreeBox(box, len(tx))
}

// newTreeBox is newTree over box grown to hold the samples, for nt targets.
func (pl *Plan) newTreeBox(box [4]float64, nt int) *tree {
	minx, miny, maxx, maxy := box[0], box[1], box[2], box[3]
	for i, x := range pl.sx {
		minx, maxx = min(minx, x), max(maxx, x)
		miny, maxy = min(miny, pl.sy[i]), max(maxy, pl.sy[i])
	}
	t := &tree{ox: minx, oy: miny}
	t.sd = max(maxx-minx, maxy-miny)
	t.sd += t.sd*1e-9 + 1e-9*max(math.Abs(minx), math.Abs(miny), math.Abs(maxx), math.Abs(maxy)) + 1e-300
	ns := len(pl.sx)
	p2, q := pl.p*pl.p, pl.q
	t.d = pl.depth(ns, nt, t.sd)
	nl := 1 << (2 * t.d)
	t.start = make([]int32, nl+1)
	leaf := make([]int32, ns)
	for i := range ns {
		ix, iy := t.leafOf(pl.sx[i], pl.sy[i])
		k := morton(ix, iy)
		leaf[i] = int32(k)
		t.start[k+1]++
	}
	for k := range nl {
		t.start[k+1] += t.start[k]
	}
	fill := append([]int32(nil), t.start[:nl]...)
	t.x, t.y, t.z, t.id = make([]float64, ns), make([]float64, ns), make([]float64, ns), make([]int32, ns)
	for i := range ns {
		k := leaf[i]
		f := fill[k]
		fill[k]++
		t.x[f], t.y[f], t.z[f], t.id[f] = pl.sx[i], pl.sy[i], pl.sz[i], int32(i)
	}
	if t.d >= 2 {
		t.mp = make([][]float64, t.d+1)
		t.loc = make([][]float64, t.d+1)
		for l := 2; l <= t.d; l++ {
			t.mp[l] = make([]float64, (1<<(2*l))*2*p2)
			t.loc[l] = make([]float64, (1<<(2*l))*2*q*p2)
		}
	}
	return t
}

// depth returns the tree's depth for ns samples and nt targets in a square of side sd: with
// Options.LeafSize, the least depth whose leaves hold at most LeafSize samples on average;
// else the one of least estimated time (cost model below). Either way leaves stay wider
// than 1e-5 (far above the exact-hit distance) and the tree within maxTreeBytes.
func (pl *Plan) depth(ns, nt int, sd float64) int {
	p2, q := float64(pl.p*pl.p), float64(pl.q)
	best, bestCost := 0, math.Inf(1)
	for d := 0; d <= 15; d++ {
		nl := float64(int(1) << (2 * d))
		bytes := 0.0
		for l := 2; l <= d; l++ {
			bytes += float64(int(1)<<(2*l)) * 2 * p2 * (1 + q) * 8
		}
		if d > 0 && (bytes > maxTreeBytes || sd/float64(int(1)<<d) < 1e-5) {
			break
		}
		if pl.o.LeafSize > 0 {
			best = d
			if float64(ns) <= float64(pl.o.LeafSize)*nl {
				break
			}
			continue
		}
		// Seconds on one core (measured on the 2-core AMD EPYC of bench/results/farfield-cpu.md):
		// far operators (0.15 ns per multiply-add, the boxes of levels 2..d times their
		// interaction lists, num and den, q powers), direct weights (4.5 ns each, 25 leaves),
		// the far fields' interpolation at the targets (0.5 ns per multiply-add).
		near := float64((2*nearR + 1) * (2*nearR + 1))
		cost := 0.15e-9*nl*4/3*float64(listLen)*2*q*p2*p2*b2f(d >= 2) +
			4.5e-9*float64(nt)*near*float64(ns)/nl +
			0.5e-9*float64(nt)*float64(max(d-1, 0))*2*q*p2
		if cost < bestCost {
			best, bestCost = d, cost
		}
	}
	return best
}

// listLen is the most boxes in an interaction list.
const listLen = (4*nearR+2)*(4*nearR+2) - (2*nearR+1)*(2*nearR+1)

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// count returns the number of samples in box code of level l.
func (t *tree) count(l, code int) int32 {
	s := 2 * (t.d - l)
	return t.start[(code+1)<<s] - t.start[code<<s]
}

// upward computes the charges at every box's Chebyshev points: the samples' own at the
// leaves (the Lagrange basis at each sample), then each parent's from its children's.
func (pl *Plan) upward(ctx context.Context, t *tree) error {
	p := pl.p
	p2 := p * p
	d := t.d
	inv := float64(int(1)<<d) / t.sd
	err := run(ctx, pl.o.Threads, 1<<(2*d), 64, func(lo, hi int) {
		lx, ly := make([]float64, p), make([]float64, p)
		for k := lo; k < hi; k++ {
			s, e := t.start[k], t.start[k+1]
			if s == e {
				continue
			}
			ix, iy := unspread(k), unspread(k>>1)
			qz := t.mp[d][k*2*p2:][:p2]
			q1 := t.mp[d][(k*2+1)*p2:][:p2]
			for i := s; i < e; i++ {
				basis(pl.cheb, pl.bw, (t.x[i]-t.ox)*inv-float64(ix), lx)
				basis(pl.cheb, pl.bw, (t.y[i]-t.oy)*inv-float64(iy), ly)
				z := t.z[i]
				for a, va := range lx {
					rz, r1 := qz[a*p:][:p], q1[a*p:][:p]
					for b, vb := range ly {
						v := va * vb
						rz[b] += v * z
						r1[b] += v
					}
				}
			}
		}
	})
	if err != nil {
		return err
	}
	for l := d - 1; l >= 2; l-- {
		err := run(ctx, pl.o.Threads, 1<<(2*l), 64, func(lo, hi int) {
			tmp := make([]float64, p2)
			for code := lo; code < hi; code++ {
				if t.count(l, code) == 0 {
					continue
				}
				for c := range 2 {
					dst := t.mp[l][(code*2+c)*p2:][:p2]
					for j := range 4 {
						src := t.mp[l+1][((code*4+j)*2+c)*p2:][:p2]
						sx, sy := pl.s2[j&1], pl.s2[j>>1]
						// tmp[a*p+l'] = sum_k sx[a,k] src[k,l']
						clear(tmp)
						for a := range p {
							ta := tmp[a*p:][:p]
							for k := range p {
								v := sx[a*p+k]
								sk := src[k*p:][:p]
								for b := range ta {
									ta[b] += v * sk[b]
								}
							}
						}
						for a := range p {
							ta := tmp[a*p:][:p]
							da := dst[a*p:][:p]
							for b := range p {
								syb := sy[b*p:][:p]
								s := 0.0
								for k, v := range syb {
									s += v * ta[k]
								}
								da[b] += s
							}
						}
					}
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// unspread is spread's inverse on the even bits of v.
func unspread(v int) int {
	x := uint32(v) & 0x55555555
	x = (x | x>>1) & 0x33333333
	x = (x | x>>2) & 0x0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff
	x = (x | x>>8) & 0x0000ffff
	return int(x)
}

// m2l computes, at every level l >= 2, the far field of each box that holds targets (every box
// when tstart is nil) at its
// Chebyshev points and powers: the sum of its interaction list's charges (the children of
// its parent's neighbours that are not its own neighbours) through ops.
func (pl *Plan) m2l(ctx context.Context, t *tree, tstart []int32) error {
	p2, q := pl.p*pl.p, pl.q
	for l := 2; l <= t.d; l++ {
		n := 1 << l
		shift := 2 * (t.d - l)
		// a box's far field is tens of millions of multiply-adds: a few boxes at a time, so
		// that a cancelled run stops within a second
		const chunk = 4
		err := run(ctx, pl.o.Threads, 1<<(2*l), chunk, func(lo, hi int) {
			src := make([]int32, hi-lo) // source box code per target box, -1 none
			for off, op := range pl.ops {
				if op == nil {
					continue
				}
				dx, dy := off/span-(2*nearR+1), off%span-(2*nearR+1)
				any := false
				for code := lo; code < hi; code++ {
					src[code-lo] = -1
					if tstart != nil && tstart[(code+1)<<shift] == tstart[code<<shift] {
						continue
					}
					ix, iy := unspread(code), unspread(code>>1)
					sx, sy := ix+dx, iy+dy
					if sx < 0 || sy < 0 || sx >= n || sy >= n || abs(sx>>1-ix>>1) > nearR || abs(sy>>1-iy>>1) > nearR {
						continue
					}
					sc := morton(sx, sy)
					if t.count(l, sc) == 0 {
						continue
					}
					src[code-lo] = int32(sc)
					any = true
				}
				if !any {
					continue
				}
				for m := range q {
					opm := op[m*p2*p2:][:p2*p2]
					for code := lo; code < hi; code++ {
						sc := src[code-lo]
						if sc < 0 {
							continue
						}
						qz := t.mp[l][int(sc)*2*p2:][:p2]
						q1 := t.mp[l][(int(sc)*2+1)*p2:][:p2]
						lz := t.loc[l][((code*2)*q+m)*p2:][:p2]
						l1 := t.loc[l][((code*2+1)*q+m)*p2:][:p2]
						matvec2(opm, qz, q1, lz, l1)
					}
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// matvec2 adds a*x to y and a*u to v, a of len(y) rows of len(x), row-major. Four rows at
// a time: each x[k], u[k] loaded serves four rows, eight multiply-adds per six loads.
func matvec2(a, x, u, y, v []float64) {
	n := len(x)
	u = u[:n]
	v = v[:len(y)]
	r := 0
	for ; r+3 < len(y); r += 4 {
		r0, r1, r2, r3 := a[r*n:][:n], a[(r+1)*n:][:n], a[(r+2)*n:][:n], a[(r+3)*n:][:n]
		var s0, s1, s2, s3, t0, t1, t2, t3 float64
		for k, xk := range x {
			uk := u[k]
			a0, a1, a2, a3 := r0[k], r1[k], r2[k], r3[k]
			s0 += a0 * xk
			s1 += a1 * xk
			s2 += a2 * xk
			s3 += a3 * xk
			t0 += a0 * uk
			t1 += a1 * uk
			t2 += a2 * uk
			t3 += a3 * uk
		}
		y[r], y[r+1], y[r+2], y[r+3] = y[r]+s0, y[r+1]+s1, y[r+2]+s2, y[r+3]+s3
		v[r], v[r+1], v[r+2], v[r+3] = v[r]+t0, v[r+1]+t1, v[r+2]+t2, v[r+3]+t3
	}
	for ; r < len(y); r++ {
		row := a[r*n:][:n]
		var s0, t0 float64
		for k, xk := range x {
			s0 += row[k] * xk
			t0 += row[k] * u[k]
		}
		y[r] += s0
		v[r] += t0
	}
}

// near sums the samples of the leaf's 3 x 3 block directly, in float64.
func (pl *Plan) near(t *tree, leaf int, x, y, alpha float64) (num, den float64, hit int32) {
	hit = -1
	c := -alpha / 2
	var num0, den0, num1, den1 float64
	n := 1 << t.d
	ix, iy := unspread(leaf), unspread(leaf>>1)
	for jx := max(ix-nearR, 0); jx <= min(ix+nearR, n-1); jx++ {
		for jy := max(iy-nearR, 0); jy <= min(iy+nearR, n-1); jy++ {
			k := morton(jx, jy)
			s, e := t.start[k], t.start[k+1]
			xs, ys, zs := t.x[s:e], t.y[s:e], t.z[s:e]
			ys, zs = ys[:len(xs)], zs[:len(xs)]
			i := 0
			// Four samples at a time, logs before exps, so that their long dependency chains
			// overlap; a group with an exact hit or a weight out of exp2's range goes one by one.
			for ; i+3 < len(xs); i += 4 {
				dx0, dy0 := xs[i]-x, ys[i]-y
				dx1, dy1 := xs[i+1]-x, ys[i+1]-y
				dx2, dy2 := xs[i+2]-x, ys[i+2]-y
				dx3, dy3 := xs[i+3]-x, ys[i+3]-y
				d0, d1, d2, d3 := dx0*dx0+dy0*dy0, dx1*dx1+dy1*dy1, dx2*dx2+dy2*dy2, dx3*dx3+dy3*dy3
				if min(d0, d1, d2, d3) < ExactHitD2 {
					break
				}
				t0, t1, t2, t3 := c*fastmath.Log2Pos(d0), c*fastmath.Log2Pos(d1), c*fastmath.Log2Pos(d2), c*fastmath.Log2Pos(d3)
				if min(t0, t1, t2, t3) < -1000 || max(t0, t1, t2, t3) > 1000 {
					break
				}
				w0, w1, w2, w3 := fastmath.Exp2(t0), fastmath.Exp2(t1), fastmath.Exp2(t2), fastmath.Exp2(t3)
				num0 += w0*zs[i] + w1*zs[i+1]
				den0 += w0 + w1
				num1 += w2*zs[i+2] + w3*zs[i+3]
				den1 += w2 + w3
			}
			for ; i < len(xs); i++ {
				dx, dy := xs[i]-x, ys[i]-y
				d2 := dx*dx + dy*dy
				if d2 < ExactHitD2 {
					if id := t.id[int(s)+i]; hit < 0 || id < hit {
						hit = id
					}
					continue
				}
				w := weight(d2, c)
				num += w * zs[i]
				den += w
			}
		}
	}
	num, den = num+num0+num1, den+den0+den1
	return num, den, hit
}

// work is a worker's scratch for far.
type work struct{ lx, ly, la, gz, g1 []float64 }

func (pl *Plan) newWork() *work {
	p2 := pl.p * pl.p
	return &work{make([]float64, pl.p), make([]float64, pl.p), make([]float64, pl.q), make([]float64, p2), make([]float64, p2)}
}

// far interpolates the far fields of the leaf's ancestors at (x, y) and alpha.
func (pl *Plan) far(t *tree, w *work, leaf int, x, y, alpha float64) (num, den float64) {
	p, q := pl.p, pl.q
	p2 := p * p
	basis(pl.anode, pl.abw, alpha, w.la)
	ix, iy := unspread(leaf), unspread(leaf>>1)
	for l := 2; l <= t.d; l++ {
		s := t.d - l
		bx, by := ix>>s, iy>>s
		code := morton(bx, by)
		wl := t.sd / float64(int(1)<<l)
		basis(pl.cheb, pl.bw, (x-t.ox)/wl-float64(bx), w.lx)
		basis(pl.cheb, pl.bw, (y-t.oy)/wl-float64(by), w.ly)
		lz := t.loc[l][code*2*q*p2:][:q*p2]
		l1 := t.loc[l][(code*2+1)*q*p2:][:q*p2]
		gz, g1 := w.gz[:p2], w.g1[:p2]
		clear(gz)
		clear(g1)
		for m, v := range w.la {
			rz, r1 := lz[m*p2:][:p2], l1[m*p2:][:p2]
			for ab := range gz {
				gz[ab] += v * rz[ab]
				g1[ab] += v * r1[ab]
			}
		}
		var sz, s1 float64
		for a, va := range w.lx {
			rz, r1 := gz[a*p:][:p], g1[a*p:][:p]
			var tz, t1 float64
			for b, vb := range w.ly {
				tz += vb * rz[b]
				t1 += vb * r1[b]
			}
			sz += va * tz
			s1 += va * t1
		}
		scale := math.Exp(-alpha * math.Log(wl*r0))
		num += sz * scale
		den += s1 * scale
	}
	return num, den
}
