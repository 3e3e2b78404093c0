package farfield

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/internal/fastmath"
	"github.com/aidw/aidw/internal/weigh"
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
	// Order and AlphaOrder override the Chebyshev points per dimension of a box (of both
	// its far operators and direct's) and the number of powers interpolated between (0:
	// chosen from Tol, see doc.go).
	Order, AlphaOrder int
	// Leaves overrides how the leaves' far field is summed (LeavesAuto: as the cost model
	// finds cheaper).
	Leaves Leaves
}

// Leaves is how the leaves' level of the far field is summed (see doc.go).
type Leaves int

const (
	// LeavesAuto: the cheaper of the two for the job, by Plan.depth's cost model.
	LeavesAuto Leaves = iota
	// LeavesDirect: each target sums its leaf's interaction list from the list's charges.
	LeavesDirect
	// LeavesOperators: each leaf gets far fields by the far operators, as the boxes above.
	LeavesOperators
)

// Plan holds the samples and the far-field operators for one tolerance and power range.
type Plan struct {
	sx, sy, sz []float64
	o          Options
	p, q       int
	cheb, bw   []float64 // p Chebyshev points on [0,1], barycentric weights
	// pd is direct's Chebyshev points per dimension, chebD and bwD those points and weights.
	pd         int
	chebD, bwD []float64
	anode, abw []float64 // q Chebyshev points on [AlphaMin, AlphaMax], weights
	// s2[h] is the parent's basis at child half h's points: s2[h][a*p+k] = L_a((h+c_k)/2).
	s2 [2][]float64
	// ops[off] is the far operator of offset off = (dx+2nearR+1)*span + dy+2nearR+1 (source box minus target
	// box, in boxes), nil where |dx|,|dy| <= 1: ops[off][(m*p2+ab)*p2+kl] =
	// (|t_ab - s_kl|/r0)^-alpha_m in box units.
	ops [span * span][]float64
	// opsMu guards ops, built once by farOps: NewPlan has no context, and a cancelled
	// run must not wait for them (seconds on a busy machine)
	opsMu    sync.Mutex
	opsBuilt bool
	// streamed, for a plan whose samples are not in memory (NewStreamPlan), stands for them.
	streamed *streamedSamples
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

// NewPlan returns the plan for the samples (sx[i], sy[i]) with values sz[i]. Its far
// operators are built by the first Sums or Field, which can be cancelled.
func NewPlan(sx, sy, sz []float64, opts Options) (*Plan, error) {
	pl, err := newPlan(sx, sy, sz, opts)
	if err != nil {
		return nil, err
	}
	return pl, nil
}

// newPlan is NewPlan without the far operators, the plan's largest part.
func newPlan(sx, sy, sz []float64, opts Options) (*Plan, error) {
	pl, err := checkedPlan(sx, sy, sz, opts)
	if err != nil {
		return nil, err
	}
	opts = pl.o
	pl.p, pl.q = opts.Order, opts.AlphaOrder
	if pl.q <= 0 {
		pl.q = alphaOrderFor(opts.Tol, opts.AlphaMin, opts.AlphaMax)
	}
	if pl.p <= 0 {
		pl.p = orderFor(opts.Tol, opts.AlphaMin, opts.AlphaMax, pl.q)
	}
	pl.pd = opts.Order
	if pl.pd <= 0 {
		pl.pd = directOrderFor(opts.Tol, opts.AlphaMax)
	}
	pl.setPoints()
	return pl, nil
}

// checkedPlan checks the samples and the options, and fills in the options' defaults.
func checkedPlan(sx, sy, sz []float64, opts Options) (*Plan, error) {
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
	return &Plan{sx: sx, sy: sy, sz: sz, o: opts}, nil
}

// setPoints sets the Chebyshev points and weights of the plan's orders, and the parent's
// basis at its children's points.
func (pl *Plan) setPoints() {
	pl.cheb, pl.bw = chebyshev(pl.p, 0, 1)
	pl.chebD, pl.bwD = chebyshev(pl.pd, 0, 1)
	pl.anode, pl.abw = chebyshev(max(pl.q, 1), pl.o.AlphaMin, pl.o.AlphaMax)
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

// farOps builds the plan's far operators at its Chebyshev powers, pl.ops, unless built.
func (pl *Plan) farOps(ctx context.Context) error {
	pl.opsMu.Lock()
	defer pl.opsMu.Unlock()
	if pl.opsBuilt {
		return nil
	}
	ops, err := pl.operators(ctx, pl.anode)
	if err != nil {
		return err
	}
	pl.ops, pl.opsBuilt = ops, true
	return nil
}

// operators returns the far operators at the given powers (see Plan.ops), or ctx's error
// once it ends: each goroutine checks it per row block of p^3 weights.
func (pl *Plan) operators(ctx context.Context, powers []float64) (ops [span * span][]float64, err error) {
	p, q := pl.p, len(powers)
	p2 := p * p
	var wg sync.WaitGroup
	const o = 2*nearR + 1
	for dx := -o; dx <= o; dx++ {
		for dy := -o; dy <= o; dy++ {
			if max(abs(dx), abs(dy)) <= nearR {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ctx.Err() != nil {
					return
				}
				// made here, not before: hundreds of MB that a cancelled run need not clear
				op := make([]float64, q*p2*p2)
				ops[(dx+o)*span+dy+o] = op
				for m, alpha := range powers {
					c := -alpha / 2
					for a := range p {
						if ctx.Err() != nil {
							return
						}
						for b := range p {
							row := op[(m*p2+a*p+b)*p2:][:p2]
							for k := range p {
								ex := pl.cheb[a] - pl.cheb[k] - float64(dx)
								for l := range p {
									ey := pl.cheb[b] - pl.cheb[l] - float64(dy)
									row[k*p+l] = weight((ex*ex+ey*ey)/(r0*r0), c)
								}
							}
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	return ops, ctx.Err()
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
// at (ox, oy) that holds samples and targets; a box is named by its level and its Morton code.
type tree struct {
	d          int
	ox, oy, sd float64
	// samples sorted by leaf, leaves in row-major order so that a row of leaves is one run:
	// leaf (ix, iy) holds [start[iy<<d+ix], start[iy<<d+ix+1]). one is 1 for every sample
	// (the charge of the denominator's sums).
	x, y, z, one []float64
	id           []int32
	start        []int32
	cnt          [][]int32   // cnt[l][code]: the samples in box code of level l
	mp           [][]float64 // mp[l][(code*2+c)*p2 + kl]: charges z (c=0) and 1 (c=1)
	loc          [][]float64 // loc[l][((code*2+c)*q+m)*p2 + ab], levels 2 to fields
	// fields is the deepest level with far fields, d or d-1 (Plan.depth decides). With d-1,
	// the leaves' level is summed at each target from its interaction list's charges
	// directly (see direct): px, py, pz and p1 hold each leaf's Chebyshev points and their
	// charges z and 1, pp a leaf (pd^2 padded with charges of 0 to a whole number of
	// vectors).
	fields         int
	px, py, pz, p1 []float64
	pp             int
	// power[l][code] is k >= 0 when every target in box code of level l has the one power
	// single[k] (as a Sums call's targets, or a Field's Powers, tell): its far field is then
	// computed at that power alone, by sops[k], into the first power's place. Else (-1, or
	// power nil) it is mixed: the q Chebyshev powers, interpolated between at each target.
	power  [][]int8
	single []float64
	sops   [][span * span][]float64
	// fast says whether weigh.Pairs sums every pair that the tree sums directly exactly
	// (within its 1e-14): their weights stay above its floor of 2^-1000.
	fast bool
}

// powerOf returns the power index of box code of level l (see tree.power), -1 for mixed.
func (t *tree) powerOf(l, code int) int {
	if t.power == nil {
		return -1
	}
	return int(t.power[l][code])
}

// hasPower says whether every box above leaf with a single power has power alpha.
func (t *tree) hasPower(leaf int, alpha float64) bool {
	if t.power == nil {
		return true
	}
	ix, iy := unspread(leaf), unspread(leaf>>1)
	for l := 2; l <= t.fields; l++ {
		if k := t.power[l][morton(ix>>(t.d-l), iy>>(t.d-l))]; k >= 0 && t.single[k] != alpha {
			return false
		}
	}
	return true
}

// direct says whether the leaves' level is summed by direct.
func (t *tree) direct() bool { return t.d >= 2 && t.fields < t.d }

// leafOf returns the leaf column and row of (x,y).
func (t *tree) leafOf(x, y float64) (int, int) {
	n := 1 << t.d
	fx, fy := (x-t.ox)/t.sd*float64(n), (y-t.oy)/t.sd*float64(n)
	return min(max(int(fx), 0), n-1), min(max(int(fy), 0), n-1)
}

// boxOf returns the code of the box of level l that holds (x,y).
func (t *tree) boxOf(x, y float64, l int) int {
	ix, iy := t.leafOf(x, y)
	return morton(ix>>(t.d-l), iy>>(t.d-l))
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
	t, err := pl.newTree(ctx, tx, ty)
	if err != nil {
		return err
	}
	nl := 1 << (2 * t.d)
	tstart, order := t.sortTargets(tx, ty)
	if t.d >= 2 {
		if err := pl.upward(ctx, t); err != nil {
			return err
		}
		if err := pl.setSingles(ctx, t, t.onePowers(tstart, order, alpha)); err != nil {
			return err
		}
		if err := pl.m2l(ctx, t, tstart); err != nil {
			return err
		}
	}
	return run(ctx, pl.o.Threads, nl, 16, func(lo, hi int) {
		w := pl.newWork()
		for k := lo; k < hi; k++ {
			for i, j := range order[tstart[k]:tstart[k+1]] {
				if i%targetsPerCheck == targetsPerCheck-1 && ctx.Err() != nil {
					return
				}
				nu, de, h := pl.near(t, k, tx[j], ty[j], alpha[j])
				if t.d >= 2 {
					dn, dd := pl.direct(t, k, tx[j], ty[j], alpha[j])
					fn, fd := pl.far(t, w, k, tx[j], ty[j], alpha[j])
					nu, de = nu+dn+fn, de+dd+fd
				}
				num[j], den[j] = nu, de
				if hit != nil {
					hit[j] = h
				}
			}
		}
	})
}

// targetsPerCheck is how many targets a worker sums between looks at its context: tens of
// milliseconds at most on a busy core.
const targetsPerCheck = 256

// sortTargets sorts the targets by leaf, leaves in Morton order: leaf k's are order[tstart[k]:
// tstart[k+1]].
func (t *tree) sortTargets(tx, ty []float64) (tstart, order []int32) {
	nl := 1 << (2 * t.d)
	tstart = make([]int32, nl+1)
	tleaf := make([]int32, len(tx))
	for j := range tx {
		ix, iy := t.leafOf(tx[j], ty[j])
		k := morton(ix, iy)
		tleaf[j] = int32(k)
		tstart[k+1]++
	}
	for k := range nl {
		tstart[k+1] += tstart[k]
	}
	order = make([]int32, len(tx))
	fill := append([]int32(nil), tstart[:nl]...)
	for j, k := range tleaf {
		order[fill[k]] = int32(j)
		fill[k]++
	}
	return tstart, order
}

// maxSingles is the most single powers a tree computes far fields at, and minSingleBoxes the
// least boxes of level fields that must have one for its operators (96 p^4 weights, 18 ms and
// 30 MB at p = 14) to pay: each such box saves (q - 1) 150 p^4 multiply-adds, 2 ms.
const (
	maxSingles     = 4
	minSingleBoxes = 16
)

// onePowers returns, for each box of level fields, the one power its targets have, NaN
// for several, -Inf for none: a Sums call's targets (sorted by sortTargets).
func (t *tree) onePowers(tstart, order []int32, alpha []float64) []float64 {
	shift := 2 * (t.d - t.fields)
	one := make([]float64, 1<<(2*t.fields))
	for code := range one {
		one[code] = math.Inf(-1)
		for _, j := range order[tstart[code<<shift]:tstart[(code+1)<<shift]] {
			one[code] = addPower(one[code], alpha[j])
		}
	}
	return one
}

// addPower is a box's one power (see onePowers) after a target of power a.
func addPower(one, a float64) float64 {
	switch {
	case math.IsInf(one, -1):
		return a
	case a != one:
		return math.NaN()
	}
	return one
}

// setSingles sets t.power from one (see onePowers): boxes whose targets all have one power
// (AIDW's powers stay at their highest or lowest level wherever samples are spread evenly or
// clustered) get their far fields at that power alone, q times fewer far operators and no
// interpolation in the power, for the maxSingles powers most boxes of level fields have.
func (pl *Plan) setSingles(ctx context.Context, t *tree, one []float64) error {
	if pl.q == 1 || t.fields < 2 {
		return nil
	}
	d := t.fields
	boxes := map[float64]int{}
	for _, a := range one {
		if !math.IsNaN(a) && !math.IsInf(a, -1) {
			boxes[a]++
		}
	}
	for a, n := range boxes {
		if n >= minSingleBoxes {
			t.single = append(t.single, a)
		}
	}
	slices.SortFunc(t.single, func(a, b float64) int { return cmp.Or(cmp.Compare(boxes[b], boxes[a]), cmp.Compare(a, b)) })
	t.single = t.single[:min(len(t.single), maxSingles)]
	if len(t.single) == 0 {
		return nil
	}
	t.power = make([][]int8, d+1)
	t.power[d] = make([]int8, len(one))
	const none = -2 // no targets: no say in the parent's power
	for code, a := range one {
		t.power[d][code] = int8(slices.Index(t.single, a)) // -1 for mixed or another power
		if math.IsInf(a, -1) {
			t.power[d][code] = none
		}
	}
	for l := d - 1; l >= 2; l-- {
		t.power[l] = make([]int8, 1<<(2*l))
		for code := range t.power[l] {
			k := int8(none)
			for c := range 4 {
				switch ck := t.power[l+1][code*4+c]; {
				case ck == none:
				case k == none:
					k = ck
				case ck != k:
					k = -1
				}
			}
			t.power[l][code] = k
		}
	}
	for l := 2; l <= d; l++ {
		for code, k := range t.power[l] {
			if k == none {
				t.power[l][code] = -1
			}
		}
	}
	t.sops = make([][span * span][]float64, len(t.single))
	for k, a := range t.single {
		var err error
		if t.sops[k], err = pl.operators(ctx, []float64{a}); err != nil {
			return err
		}
	}
	return nil
}

// Powers is the powers of a Field's targets, box by box, gathered before the Field is built
// (Plan.Powers): with them the Field computes the far field of a box whose targets all have
// one power at that power alone (see setSingles).
type Powers struct {
	t   *tree // the Field's square, depth and fields
	one []float64
}

// Powers returns an empty gathering of the powers of the targets of Field(box, nt).
func (pl *Plan) Powers(box [4]float64, nt int) *Powers {
	return newPowers(pl.geometry(box, nt))
}

func newPowers(t *tree) *Powers {
	one := make([]float64, 1<<(2*t.fields))
	for i := range one {
		one[i] = math.Inf(-1)
	}
	return &Powers{t, one}
}

// Empty returns an empty gathering for the same Field, to Merge into p.
func (p *Powers) Empty() *Powers { return newPowers(p.t) }

// Add adds a target at (x, y) with power alpha. A Field built from the Powers must be asked
// only at its targets with their powers.
func (p *Powers) Add(x, y, alpha float64) {
	code := p.t.boxOf(x, y, p.t.fields)
	p.one[code] = addPower(p.one[code], alpha)
}

// Merge adds o's targets (a gathering of the same Field's) to p's.
func (p *Powers) Merge(o *Powers) {
	for code, a := range o.one {
		if !math.IsInf(a, -1) {
			p.one[code] = addPower(p.one[code], a)
		}
	}
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
// about nt targets, and the far fields of all its boxes; with powers (nil: none), those of
// boxes whose targets all have one power at that power alone.
func (pl *Plan) Field(ctx context.Context, box [4]float64, nt int, powers *Powers) (*Field, error) {
	t, err := pl.newTreeBox(ctx, box, nt)
	if err != nil {
		return nil, err
	}
	if t.d >= 2 {
		if err := pl.upward(ctx, t); err != nil {
			return nil, err
		}
	}
	return pl.fieldOf(ctx, t, powers)
}

// fieldOf is the Field of tree t, whose charges are summed: the far fields of all its boxes,
// at their single powers where powers (nil: none) tell them.
func (pl *Plan) fieldOf(ctx context.Context, t *tree, powers *Powers) (*Field, error) {
	if t.d >= 2 {
		if powers != nil {
			if err := pl.setSingles(ctx, t, powers.one); err != nil {
				return nil, err
			}
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
	if !t.hasPower(k, alpha) {
		// not a target the field's Powers told of: every sample, exactly
		return t.samples(0, int32(len(t.x)), x, y, -alpha/2, -1)
	}
	num, den, hit = f.pl.near(t, k, x, y, alpha)
	if t.d >= 2 {
		dn, dd := f.pl.direct(t, k, x, y, alpha)
		fn, fd := f.pl.far(t, s.w, k, x, y, alpha)
		num, den = num+dn+fn, den+dd+fd
	}
	return num, den, hit
}

// maxTreeBytes bounds the memory of a tree's charges and far fields.
const maxTreeBytes = 1 << 30

// newTree chooses the depth and sorts the samples into the leaves, over the box of the
// samples and targets.
func (pl *Plan) newTree(ctx context.Context, tx, ty []float64) (*tree, error) {
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i, x := range tx {
		box = [4]float64{min(box[0], x), min(box[1], ty[i]), max(box[2], x), max(box[3], ty[i])}
	}
	return pl.newTreeBox(ctx, box, len(tx))
}

// geometry returns a tree with the square, depth and fields of newTreeBox, and nothing in it.
func (pl *Plan) geometry(box [4]float64, nt int) *tree {
	ns := len(pl.sx)
	if st := pl.streamed; st != nil {
		box = [4]float64{min(box[0], st.box[0]), min(box[1], st.box[1]), max(box[2], st.box[2]), max(box[3], st.box[3])}
		ns = st.n
	}
	t := pl.square(box)
	t.d, t.fields = pl.depth(ns, nt, t.sd)
	return t
}

// square returns a tree with the square that holds box and the samples, and nothing in it.
func (pl *Plan) square(box [4]float64) *tree {
	var mu sync.Mutex
	run(context.Background(), pl.o.Threads, len(pl.sx), 1<<18, func(lo, hi int) {
		b := box
		for i := lo; i < hi; i++ {
			x, y := pl.sx[i], pl.sy[i]
			b = [4]float64{min(b[0], x), min(b[1], y), max(b[2], x), max(b[3], y)}
		}
		mu.Lock()
		box = [4]float64{min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])}
		mu.Unlock()
	})
	t := &tree{}
	t.ox, t.oy, t.sd = squareOf(box)
	return t
}

// squareOf returns the corner and side of the square over box, its side padded so that every
// point of box falls strictly inside.
func squareOf(box [4]float64) (ox, oy, side float64) {
	minx, miny, maxx, maxy := box[0], box[1], box[2], box[3]
	side = max(maxx-minx, maxy-miny)
	side += side*1e-9 + 1e-9*max(math.Abs(minx), math.Abs(miny), math.Abs(maxx), math.Abs(maxy)) + 1e-300
	return minx, miny, side
}

// newTreeBox is newTree over box grown to hold the samples, for nt targets.
func (pl *Plan) newTreeBox(ctx context.Context, box [4]float64, nt int) (*tree, error) {
	t := pl.geometry(box, nt)
	if err := pl.sortSamples(ctx, t); err != nil {
		return nil, err
	}
	t.boxCounts()
	pl.allocate(t)
	return t, nil
}

// count turns t.start's counts (leaf k's at k+1, leaves in row-major order) into the leaves'
// starts, and sets the counts of every box, t.cnt.
func (t *tree) count() {
	for k := range 1 << (2 * t.d) {
		t.start[k+1] += t.start[k]
	}
	t.boxCounts()
}

// boxCounts sets the counts of every box, t.cnt, from the leaves' starts.
func (t *tree) boxCounts() {
	d := t.d
	nl := 1 << (2 * d)
	t.cnt = make([][]int32, d+1)
	t.cnt[d] = make([]int32, nl)
	for k := range nl {
		t.cnt[d][morton(k&(1<<d-1), k>>d)] = t.start[k+1] - t.start[k]
	}
	for l := d - 1; l >= 0; l-- {
		t.cnt[l] = make([]int32, 1<<(2*l))
		for code := range t.cnt[l] {
			for j := range 4 {
				t.cnt[l][code] += t.cnt[l+1][code*4+j]
			}
		}
	}
}

// allocate sets t.fast and makes the room of t's charges, far fields and direct's points.
func (pl *Plan) allocate(t *tree) {
	p2, q := pl.p*pl.p, pl.q
	d := t.d
	nl := 1 << (2 * d)
	pl.setFast(t)
	if d >= 2 {
		t.mp = make([][]float64, d+1)
		t.loc = make([][]float64, d+1)
		for l := 2; l <= d; l++ {
			t.mp[l] = make([]float64, (1<<(2*l))*2*p2)
			if l <= t.fields {
				t.loc[l] = make([]float64, (1<<(2*l))*2*q*p2)
			}
		}
		if t.direct() {
			t.pp = (pl.pd*pl.pd + 7) &^ 7
			t.px, t.py, t.pz, t.p1 = make([]float64, nl*t.pp), make([]float64, nl*t.pp), make([]float64, nl*t.pp), make([]float64, nl*t.pp)
		}
	}
}

// setFast sets t.fast: the direct sums meet squared distances up to 2 (2 nearR + 2)^2
// leaves^2 (a far leaf's point) and from ExactHitD2 (whose weight is at most 2^346 for powers
// up to 16).
func (pl *Plan) setFast(t *tree) {
	w := t.sd / float64(int(1)<<t.d)
	t.fast = pl.o.AlphaMax/2*math.Log2(2*(2*nearR+2)*(2*nearR+2)*w*w) <= -fastmath.MinExp2
}

// sortSamples sorts the samples into t's leaves, leaves in row-major order and samples in
// input order within a leaf: a counting sort whose workers count and then place each its own
// share of the samples, in order, so that the order is the serial one.
func (pl *Plan) sortSamples(ctx context.Context, t *tree) error {
	ns, d := len(pl.sx), t.d
	nl := 1 << (2 * d)
	// each worker's counts are a leaf's worth of int32s: at most 64 MB of them
	workers := max(1, min(pl.o.Threads, ns/(1<<16), (1<<24)/nl))
	share := func(w int) (int, int) { return w * ns / workers, (w + 1) * ns / workers }
	leaf := make([]int32, ns)
	counts := make([][]int32, workers)
	// each worker's share, a block of samples at a time between looks at ctx
	parallel := func(f func(w, lo, hi int)) error {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				lo, hi := share(w)
				for ; lo < hi && ctx.Err() == nil; lo += samplesPerCheck {
					f(w, lo, min(lo+samplesPerCheck, hi))
				}
			})
		}
		wg.Wait()
		return ctx.Err()
	}
	for w := range counts {
		counts[w] = make([]int32, nl)
	}
	err := parallel(func(w, lo, hi int) {
		c := counts[w]
		for i := lo; i < hi; i++ {
			ix, iy := t.leafOf(pl.sx[i], pl.sy[i])
			k := iy<<d + ix
			leaf[i] = int32(k)
			c[k]++
		}
	})
	if err != nil {
		return err
	}
	// counts[w][k] becomes where worker w's first sample of leaf k goes
	t.start = make([]int32, nl+1)
	for k := range nl {
		at := t.start[k]
		for _, c := range counts {
			at, c[k] = at+c[k], at
		}
		t.start[k+1] = at
	}
	t.x, t.y, t.z, t.one, t.id = make([]float64, ns), make([]float64, ns), make([]float64, ns), make([]float64, ns), make([]int32, ns)
	return parallel(func(w, lo, hi int) {
		at := counts[w]
		for i := lo; i < hi; i++ {
			k := leaf[i]
			f := at[k]
			at[k]++
			t.x[f], t.y[f], t.z[f], t.one[f], t.id[f] = pl.sx[i], pl.sy[i], pl.sz[i], 1, int32(i)
		}
	})
}

// samplesPerCheck is how many samples a worker of the tree's build takes between looks at
// its context: about a millisecond of work.
const samplesPerCheck = 1 << 14

// depth returns the tree's depth for ns samples and nt targets in a square of side sd, and
// the deepest level whose boxes get far fields (from 2 to d: the levels below it are
// summed by direct): with Options.LeafSize, the least depth whose leaves hold at most
// LeafSize samples on average; else the one of least estimated time (cost model below).
// Either way leaves stay wider than 1e-5 (far above the exact-hit distance) and the tree
// within maxTreeBytes.
func (pl *Plan) depth(ns, nt int, sd float64) (d, fields int) {
	p2, q := float64(pl.p*pl.p), float64(pl.q)
	pp := float64((pl.pd*pl.pd + 7) &^ 7)
	bestCost := math.Inf(1)
	for dd := 0; dd <= 15; dd++ {
		nl := float64(int(1) << (2 * dd))
		if dd > 0 && sd/float64(int(1)<<dd) < 1e-5 {
			break
		}
		if pl.o.LeafSize > 0 {
			f := dd - 1
			if pl.o.Leaves == LeavesOperators {
				f = dd
			}
			if pl.treeBytes(dd, f) > maxTreeBytes {
				break
			}
			d, fields = dd, f
			if float64(ns) <= float64(pl.o.LeafSize)*nl {
				break
			}
			continue
		}
		for _, f := range []int{dd - 1, dd} {
			if dd < 2 && f != dd || pl.treeBytes(dd, f) > maxTreeBytes ||
				dd >= 2 && (pl.o.Leaves == LeavesDirect && f == dd || pl.o.Leaves == LeavesOperators && f < dd) {
				continue
			}
			// Seconds on one core (measured on the 2-core AMD EPYC of
			// bench/results/farfield-cpu.md): far operators (m2lW a multiply-add: the boxes of
			// levels 2..f times their interaction lists, num and den, q powers); direct weights
			// (weighW each: 25 leaves of samples, and below level f the leaf's interaction
			// list of points); the far fields' interpolation at the targets (levels 2..f:
			// 2 q p^2 multiply-adds, m2lW each, and 2 p^2 at 0.5 ns).
			boxes := 0.0
			for l := 2; l <= f; l++ {
				boxes += float64(int(1) << (2 * l))
			}
			pairs := float64((2*nearR+1)*(2*nearR+1)) * float64(ns) / nl
			if f < dd {
				pairs += float64(listLen) * pp
			}
			levels := float64(max(f-1, 0))
			cost := m2lW()*boxes*float64(listLen)*2*q*p2*p2 +
				weighW()*float64(nt)*pairs +
				float64(nt)*levels*(m2lW()*2*q*p2+0.5e-9*2*p2)
			if cost < bestCost {
				d, fields, bestCost = dd, f, cost
			}
		}
	}
	return d, max(fields, 1)
}

// treeBytes is the memory of a tree of depth d with far fields down to level fields: charges
// at levels 2..d, far fields at 2..fields, direct's points and charges below.
func (pl *Plan) treeBytes(d, fields int) float64 {
	p2, q := float64(pl.p*pl.p), float64(pl.q)
	bytes := 0.0
	for l := 2; l <= d; l++ {
		bytes += float64(int(1)<<(2*l)) * 2 * p2 * 8
		if l <= fields {
			bytes += float64(int(1)<<(2*l)) * 2 * p2 * q * 8
		}
	}
	if fields < d && d >= 2 {
		bytes += float64(int(1)<<(2*d)) * float64((pl.pd*pl.pd+7)&^7) * 4 * 8
	}
	return bytes
}

// m2lW is the seconds a far operator's multiply-add takes on one core (matvec2). With AVX2,
// AVX-512's scaled by their BenchmarkMatvec2x2 (0.033 ns against 0.019: the L2-resident
// microbenchmark is faster than the tree's sums, for both).
func m2lW() float64 {
	switch {
	case haveAVX512:
		return 0.045e-9
	case haveAVX2FMA:
		return 0.08e-9
	}
	return 0.25e-9
}

// weighW is the seconds a direct weight takes on one core (internal/weigh's BenchmarkPairs).
func weighW() float64 {
	switch weigh.Kernel {
	case "avx512":
		return 0.95e-9
	case "avx2":
		return 1.9e-9
	}
	return 5e-9
}

// listLen is the most boxes in an interaction list.
const listLen = (4*nearR+2)*(4*nearR+2) - (2*nearR+1)*(2*nearR+1)

// upward computes the charges at every box's Chebyshev points: the samples' own at the
// leaves (the Lagrange basis at each sample), then each parent's from its children's; and
// the leaves' points for direct.
func (pl *Plan) upward(ctx context.Context, t *tree) error {
	p := pl.p
	p2 := p * p
	d := t.d
	inv := float64(int(1)<<d) / t.sd
	err := run(ctx, pl.o.Threads, 1<<(2*d), 64, func(lo, hi int) {
		lx, ly := make([]float64, p), make([]float64, p)
		dx, dy := make([]float64, pl.pd), make([]float64, pl.pd)
		for k := lo; k < hi; k++ {
			s, e := t.start[k], t.start[k+1]
			if s == e {
				continue
			}
			ix, iy := k&(1<<d-1), k>>d
			code := morton(ix, iy)
			qz := t.mp[d][code*2*p2:][:p2]
			q1 := t.mp[d][(code*2+1)*p2:][:p2]
			for i := s; i < e; i++ {
				if (i-s)%samplesPerCheck == samplesPerCheck-1 && ctx.Err() != nil {
					return
				}
				pl.charge(t, inv, ix, iy, code, qz, q1, t.x[i], t.y[i], t.z[i], lx, ly, dx, dy)
			}
			if t.direct() {
				pl.proxies(t, code, ix, iy)
			}
		}
	})
	if err != nil {
		return err
	}
	return pl.parents(ctx, t)
}

// charge adds the sample (x, y) of value z to the charges of its leaf (ix, iy), Morton code
// code, whose charges z and 1 are qz and q1, and to the charges of direct's points; inv is
// the leaves per unit length, lx, ly, dx and dy room for the bases.
func (pl *Plan) charge(t *tree, inv float64, ix, iy, code int, qz, q1 []float64, x, y, z float64, lx, ly, dx, dy []float64) {
	p := pl.p
	basis(pl.cheb, pl.bw, (x-t.ox)*inv-float64(ix), lx)
	basis(pl.cheb, pl.bw, (y-t.oy)*inv-float64(iy), ly)
	for a, va := range lx {
		rz, r1 := qz[a*p:][:p], q1[a*p:][:p]
		for b, vb := range ly {
			v := va * vb
			rz[b] += v * z
			r1[b] += v
		}
	}
	if !t.direct() {
		return
	}
	basis(pl.chebD, pl.bwD, (x-t.ox)*inv-float64(ix), dx)
	basis(pl.chebD, pl.bwD, (y-t.oy)*inv-float64(iy), dy)
	o := code * t.pp
	for a, va := range dx {
		rz, r1 := t.pz[o+a*pl.pd:][:pl.pd], t.p1[o+a*pl.pd:][:pl.pd]
		for b, vb := range dy {
			v := va * vb
			rz[b] += v * z
			r1[b] += v
		}
	}
}

// parents computes the charges of every box above the leaves from its children's.
func (pl *Plan) parents(ctx context.Context, t *tree) error {
	p := pl.p
	p2 := p * p
	for l := t.d - 1; l >= 2; l-- {
		err := run(ctx, pl.o.Threads, 1<<(2*l), 64, func(lo, hi int) {
			tmp := make([]float64, p2)
			for code := lo; code < hi; code++ {
				if t.cnt[l][code] == 0 {
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

// proxies sets leaf (ix, iy)'s points for direct, whose charges upward sums: those of the
// padding stay 0, at the first point (any point at which weights are finite).
func (pl *Plan) proxies(t *tree, code, ix, iy int) {
	p := pl.pd
	w := t.sd / float64(int(1)<<t.d)
	o := code * t.pp
	px, py := t.px[o:][:t.pp], t.py[o:][:t.pp]
	for a := range p {
		for b := range p {
			px[a*p+b] = t.ox + (float64(ix)+pl.chebD[a])*w
			py[a*p+b] = t.oy + (float64(iy)+pl.chebD[b])*w
		}
	}
	for k := p * p; k < t.pp; k++ {
		px[k], py[k] = px[0], py[0]
	}
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

// m2l computes, at every level from 2 to fields, the far field of each box that holds targets (every box
// when tstart is nil) at its
// Chebyshev points and powers: the sum of its interaction list's charges (the children of
// its parent's neighbours that are not its own neighbours) through ops.
func (pl *Plan) m2l(ctx context.Context, t *tree, tstart []int32) error {
	if err := pl.farOps(ctx); err != nil {
		return err
	}
	p2, q := pl.p*pl.p, pl.q
	for l := 2; l <= t.fields; l++ {
		n := 1 << l
		shift := 2 * (t.d - l)
		// a box's far field is tens of millions of multiply-adds: a few boxes at a time, and
		// a look at ctx before each offset's (a millisecond or so)
		const chunk = 8
		err := run(ctx, pl.o.Threads, 1<<(2*l), chunk, func(lo, hi int) {
			src := make([]int32, hi-lo) // source box code per target box, -1 none
			// target and source boxes of one offset: those of mixed powers, and those of
			// each single power
			var mixed [][2]int
			single := make([][][2]int, len(t.single))
			for off, op := range pl.ops {
				if op == nil || ctx.Err() != nil {
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
					if t.cnt[l][sc] == 0 {
						continue
					}
					src[code-lo] = int32(sc)
					any = true
				}
				if !any {
					continue
				}
				mixed = mixed[:0]
				for k := range single {
					single[k] = single[k][:0]
				}
				for code := lo; code < hi; code++ {
					if sc := src[code-lo]; sc >= 0 {
						if k := t.powerOf(l, code); k >= 0 {
							single[k] = append(single[k], [2]int{code, int(sc)})
						} else {
							mixed = append(mixed, [2]int{code, int(sc)})
						}
					}
				}
				for m := range q {
					pl.apply(t, l, op[m*p2*p2:][:p2*p2], m, mixed)
				}
				for k, pairs := range single {
					pl.apply(t, l, t.sops[k][off], 0, pairs)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// apply adds operator op times the charges of each pair's source box to the far field of
// power m of its target box, at level l.
func (pl *Plan) apply(t *tree, l int, op []float64, m int, pairs [][2]int) {
	p2, q := pl.p*pl.p, pl.q
	mp, loc := t.mp[l], t.loc[l]
	// two boxes at a time share each read of the operator
	for i := 0; i < len(pairs); i += 2 {
		code, sc := pairs[i][0], pairs[i][1]
		qz, q1 := mp[sc*2*p2:][:p2], mp[(sc*2+1)*p2:][:p2]
		lz, l1 := loc[((code*2)*q+m)*p2:][:p2], loc[((code*2+1)*q+m)*p2:][:p2]
		if i+1 == len(pairs) {
			matvec2(op, qz, q1, lz, l1)
			continue
		}
		code2, sc2 := pairs[i+1][0], pairs[i+1][1]
		matvec2x2(op, qz, q1, mp[sc2*2*p2:][:p2], mp[(sc2*2+1)*p2:][:p2],
			lz, l1, loc[((code2*2)*q+m)*p2:][:p2], loc[((code2*2+1)*q+m)*p2:][:p2])
	}
}

// matvec2x2 is matvec2 of x1, u1 into y1, v1 and of x2, u2 into y2, v2, in assembly where
// the CPU has AVX-512 (four rows at a time) or AVX2 and FMA (two rows), each read of the
// operator serving both.
func matvec2x2(a, x1, u1, x2, u2, y1, v1, y2, v2 []float64) {
	n, rows := len(x1), len(y1)
	if !(haveAVX512 && rows >= 4 || haveAVX2FMA && rows >= 2) || n == 0 {
		matvec2(a, x1, u1, y1, v1)
		matvec2(a, x2, u2, y2, v2)
		return
	}
	_, _, _, _ = a[rows*n-1], u1[n-1], x2[n-1], u2[n-1]
	_, _, _ = v1[rows-1], y2[rows-1], v2[rows-1]
	r := 0
	if haveAVX512 {
		for ; r+3 < rows; r += 4 {
			matvec4x2AVX512(&a[r*n], n, &x1[0], &u1[0], &x2[0], &u2[0], n, &y1[r], &v1[r], &y2[r], &v2[r])
		}
	} else {
		for ; r+1 < rows; r += 2 {
			matvec2x2AVX2(&a[r*n], n, &x1[0], &u1[0], &x2[0], &u2[0], n, &y1[r], &v1[r], &y2[r], &v2[r])
		}
	}
	if r < rows {
		matvec2(a[r*n:], x1, u1, y1[r:], v1[r:])
		matvec2(a[r*n:], x2, u2, y2[r:], v2[r:])
	}
}

// matvec2 adds a*x to y and a*u to v, a of len(y) rows of len(x), row-major. Four rows at
// a time: each x[k], u[k] loaded serves four rows, eight multiply-adds per six loads (in
// assembly where the CPU has AVX-512, 8 columns at a time, or AVX2 and FMA, 4).
func matvec2(a, x, u, y, v []float64) {
	n := len(x)
	u = u[:n]
	v = v[:len(y)]
	r := 0
	if (haveAVX512 || haveAVX2FMA) && n > 0 && len(y) >= 4 {
		_ = a[len(y)*n-1]
		for ; r+3 < len(y); r += 4 {
			if haveAVX512 {
				matvec4AVX512(&a[r*n], n, &x[0], &u[0], n, &y[r], &v[r])
			} else {
				matvec4AVX2(&a[r*n], n, &x[0], &u[0], n, &y[r], &v[r])
			}
		}
	}
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

// near sums the samples of the (2 nearR + 1)^2 leaves around the target's directly, a row of
// leaves at a time.
func (pl *Plan) near(t *tree, leaf int, x, y, alpha float64) (num, den float64, hit int32) {
	hit = -1
	c := -alpha / 2
	n := 1 << t.d
	ix, iy := unspread(leaf), unspread(leaf>>1)
	x0, x1 := max(ix-nearR, 0), min(ix+nearR, n-1)
	for jy := max(iy-nearR, 0); jy <= min(iy+nearR, n-1); jy++ {
		var nu, de float64
		nu, de, hit = t.samples(t.start[jy<<t.d+x0], t.start[jy<<t.d+x1+1], x, y, c, hit)
		num, den = num+nu, den+de
	}
	return num, den, hit
}

// samples sums the tree's samples [s, e) at (x, y) directly, with weights d2^c, and returns the
// first exact hit in input order of them and hit (-1 for none).
func (t *tree) samples(s, e int32, x, y, c float64, hit int32) (num, den float64, first int32) {
	num, den, d2 := t.pairs(t.x[s:e], t.y[s:e], t.z[s:e], t.one[s:e], x, y, c)
	if d2 < ExactHitD2 {
		for i := s; i < e; i++ {
			dx, dy := t.x[i]-x, t.y[i]-y
			if id := t.id[i]; dx*dx+dy*dy < ExactHitD2 && (hit < 0 || id < hit) {
				hit = id
			}
		}
	}
	return num, den, hit
}

// direct sums the far field of the leaf's interaction list at the target from the list's
// Chebyshev points and charges, with the target's own power: the finest level's share of
// the far field, which would otherwise need a box's worth of far operators per leaf.
func (pl *Plan) direct(t *tree, leaf int, x, y, alpha float64) (num, den float64) {
	if !t.direct() {
		return 0, 0
	}
	c := -alpha / 2
	n := 1 << t.d
	ix, iy := unspread(leaf), unspread(leaf>>1)
	for sx := max(2*(ix>>1-nearR), 0); sx <= min(2*(ix>>1+nearR)+1, n-1); sx++ {
		for sy := max(2*(iy>>1-nearR), 0); sy <= min(2*(iy>>1+nearR)+1, n-1); sy++ {
			code := morton(sx, sy)
			if abs(sx-ix) <= nearR && abs(sy-iy) <= nearR || t.cnt[t.d][code] == 0 {
				continue
			}
			o := code * t.pp
			nu, de, _ := t.pairs(t.px[o:][:t.pp], t.py[o:][:t.pp], t.pz[o:][:t.pp], t.p1[o:][:t.pp], x, y, c)
			num, den = num+nu, den+de
		}
	}
	return num, den
}

// pairs is weigh.Pairs with the exact-hit distance, where the tree allows it (tree.fast), and
// else the same sums with weight's.
func (t *tree) pairs(xs, ys, as, bs []float64, x, y, c float64) (sa, sb, minD2 float64) {
	if t.fast {
		return weigh.Pairs(xs, ys, as, bs, x, y, c, ExactHitD2)
	}
	ys, as, bs = ys[:len(xs)], as[:len(xs)], bs[:len(xs)]
	minD2 = math.Inf(1)
	for i := range xs {
		dx, dy := xs[i]-x, ys[i]-y
		d2 := dx*dx + dy*dy
		minD2 = min(minD2, d2)
		if d2 < ExactHitD2 {
			continue
		}
		w := weight(d2, c)
		sa, sb = sa+w*as[i], sb+w*bs[i]
	}
	return sa, sb, minD2
}

// work is a worker's scratch for far.
type work struct{ lx, ly, la, gz, g1 []float64 }

func (pl *Plan) newWork() *work {
	p2 := pl.p * pl.p
	return &work{make([]float64, pl.p), make([]float64, pl.p), make([]float64, pl.q), make([]float64, p2), make([]float64, p2)}
}

// combine sets gz and g1 to the sums over m of la[m] times the m-th len(gz) values of fz and
// of f1: a box's far fields at the target's power.
func combine(la, fz, f1, gz, g1 []float64) {
	n := len(gz)
	if (haveAVX512 || haveAVX2FMA) && n > 0 {
		_, _, _ = fz[len(la)*n-1], f1[len(la)*n-1], g1[n-1]
		if haveAVX512 {
			combineAVX512(&la[0], len(la), &fz[0], &f1[0], n, &gz[0], &g1[0])
		} else {
			combineAVX2(&la[0], len(la), &fz[0], &f1[0], n, &gz[0], &g1[0])
		}
		return
	}
	clear(gz)
	clear(g1)
	for m, v := range la {
		rz, r1 := fz[m*n:][:n], f1[m*n:][:n]
		for k := range gz {
			gz[k] += v * rz[k]
			g1[k] += v * r1[k]
		}
	}
}

// far interpolates the far fields of the leaf and its ancestors (levels 2 to fields) at (x, y)
// and alpha.
func (pl *Plan) far(t *tree, w *work, leaf int, x, y, alpha float64) (num, den float64) {
	p, q := pl.p, pl.q
	p2 := p * p
	basis(pl.anode, pl.abw, alpha, w.la)
	ix, iy := unspread(leaf), unspread(leaf>>1)
	for l := 2; l <= t.fields; l++ {
		s := t.d - l
		bx, by := ix>>s, iy>>s
		code := morton(bx, by)
		wl := t.sd / float64(int(1)<<l)
		basis(pl.cheb, pl.bw, (x-t.ox)/wl-float64(bx), w.lx)
		basis(pl.cheb, pl.bw, (y-t.oy)/wl-float64(by), w.ly)
		lz := t.loc[l][code*2*q*p2:][:q*p2]
		l1 := t.loc[l][(code*2+1)*q*p2:][:q*p2]
		gz, g1 := w.gz[:p2], w.g1[:p2]
		if t.powerOf(l, code) >= 0 {
			gz, g1 = lz[:p2], l1[:p2] // the box's one power, the target's
		} else {
			combine(w.la, lz, l1, gz, g1)
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
