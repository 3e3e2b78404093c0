package tiles

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/parts"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Facts are the facts of the whole job that every tile shares.
type Facts struct {
	// N is the number of samples.
	N int `json:"n"`
	// Rel is the samples' box relative to the local origin (xmin ymin xmax ymax), as the
	// index computes it; Bounds the same box absolute, as sample.Samples.Bounds computes it.
	Rel    [4]float64 `json:"rel"`
	Bounds [4]float64 `json:"bounds"`
	// The local origin, and the samples' form: compact with these quanta, or plain (0).
	OriginX  float64 `json:"origin_x"`
	OriginY  float64 `json:"origin_y"`
	QuantumX float64 `json:"quantum_x"`
	QuantumY float64 `json:"quantum_y"`
}

// Job returns the interp.Job of a tile of this job under rule, whose samples are those
// strictly inside region (nil: all of them).
func (f *Facts) Job(rule Rule, region *[4]float64) *interp.Job {
	j := &interp.Job{N: f.N, Bounds: f.Bounds, Rel: f.Rel, Partial: region != nil}
	if region != nil {
		j.Region = *region
	}
	if rule.Layout {
		l := grid.NewLayout(f.Rel[0], f.Rel[1], f.Rel[2], f.Rel[3], f.N)
		j.Layout = &l
	}
	return j
}

// check fails unless s has the job's origin and form: then its coordinates are those the
// in-memory run computes.
func (f *Facts) check(s *sample.Samples) error {
	if s.Len() == 0 {
		return nil
	}
	if s.OriginX != f.OriginX || s.OriginY != f.OriginY || s.QuantumX != f.QuantumX || s.QuantumY != f.QuantumY {
		return fmt.Errorf("a tile's samples came out with origin %v,%v and quanta %v,%v, the job's with %v,%v and %v,%v: inputs whose points are not all on one lattice cannot be tiled exactly",
			s.OriginX, s.OriginY, s.QuantumX, s.QuantumY, f.OriginX, f.OriginY, f.QuantumX, f.QuantumY)
	}
	return nil
}

// Source gives the samples of a job: those strictly inside a region, in canonical order
// (or, once told to leave them unsorted, see unsortable, compact samples in the order read),
// relative to the job's origin.
type Source interface {
	// Load returns the samples strictly inside region (nil: all of them).
	Load(ctx context.Context, region *[4]float64) (*sample.Samples, error)
}

// unsortable is a Source that can leave compact samples in the order read
// (sample.Samples.InputOrder) rather than in canonical order.
type unsortable interface {
	leaveUnsorted()
}

// Config is a tiled run.
type Config struct {
	Target raster.Target
	Alg    interp.Algorithm
	// Engines compute the tiles, each one tile at a time, taking them from one queue (the GPUs
	// of a host); nil: the CPU engine with Threads workers.
	Engines []interp.Engine
	Threads int
	// Progress, when set, is told the fraction of nodes done.
	Progress func(float64)
	// Plan is the run's memory plan (NewPlan, PlanFor): the halo rule, and whether and how a
	// global form streams its samples; nil: NewPlan's, every sample of a global form loaded.
	Plan *MemoryPlan
}

// Computer computes the tiles of one job.
type Computer struct {
	cfg    Config
	facts  *Facts
	plan   *MemoryPlan
	rule   Rule
	src    Source
	nbands int
	// Loads counts the loads of samples (a tile takes one, or more when its halo grows);
	// Loaded the samples they gave.
	Loads, Loaded atomic.Int64
	// global, during a RunWindow of a global form, holds what every tile shares.
	global *globalShare
	// far is global AIDW's far field of a streamed job, built once (prepareFar) or read from
	// a plan (LoadFar); farBuilds counts its builds.
	far       *interp.AIDWFar
	farBuilds atomic.Int64
	// constant is the bands of a streamed form whose value is the same at every node, once a
	// tile has streamed the job (nil before): the other tiles take it.
	constant []float64
}

// globalShare is what the tiles of a global form share within a run: every tile needs every
// sample, so they are loaded once, and each engine prepares them once (its index, and AIDW's
// far field).
type globalShare struct {
	once    sync.Once
	samples *sample.Samples
	err     error
	mu      sync.Mutex
	preps   map[interp.Engine]interp.Prepared
}

// load loads every sample, once.
func (g *globalShare) load(ctx context.Context, src Source) (*sample.Samples, error) {
	g.once.Do(func() { g.samples, g.err = src.Load(ctx, nil) })
	return g.samples, g.err
}

// close releases the engines' preparations.
func (g *globalShare) close() {
	for _, p := range g.preps {
		p.Close()
	}
}

// load loads the samples of region (nil: all, shared by a global form's tiles).
func (c *Computer) load(ctx context.Context, region *[4]float64) (*sample.Samples, error) {
	if region == nil && c.global != nil {
		return c.global.load(ctx, c.src)
	}
	return c.src.Load(ctx, region)
}

// prepare prepares problem p on engine eng, once per engine for a global form's tiles; release
// frees what is not shared.
func (c *Computer) prepare(ctx context.Context, eng interp.Engine, p *interp.Problem) (prep interp.Prepared, release func(), err error) {
	g := c.global
	if g == nil || p.Job.Partial {
		if prep, err = eng.Prepare(ctx, p); err != nil {
			return nil, nil, err
		}
		return prep, func() { prep.Close() }, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if prep = g.preps[eng]; prep == nil {
		if prep, err = eng.Prepare(ctx, p); err != nil {
			return nil, nil, err
		}
		g.preps[eng] = prep
	}
	return prep, func() {}, nil
}

// NewComputer checks that the algorithm can be tiled and returns the computer of the job.
func NewComputer(cfg Config, facts *Facts, src Source) (*Computer, error) {
	if facts.N == 0 {
		return nil, fmt.Errorf("no usable samples")
	}
	if err := cfg.Target.Validate(); err != nil {
		return nil, err
	}
	plan := cfg.Plan
	if plan == nil {
		plan = NewPlan(cfg.Target, facts, cfg.Alg)
	}
	if plan.Chunk > 0 && plan.Rule.Family == Global {
		if plan.Stream == nil {
			return nil, fmt.Errorf("%w: its %d samples must all be in memory at once", plan.streamErr, facts.N)
		}
		// one tile at a time, each streaming the whole survey: several would each hold a chunk
		cfg.Engines = []interp.Engine{&interp.CPU{Threads: cfg.Threads}}
	}
	if len(cfg.Engines) == 0 {
		cfg.Engines = []interp.Engine{&interp.CPU{Threads: cfg.Threads}}
	}
	if u, ok := src.(unsortable); ok && takeUnsorted(cfg.Engines, cfg.Alg) {
		u.leaveUnsorted()
	}
	return &Computer{cfg: cfg, facts: facts, plan: plan, rule: plan.Rule, src: src, nbands: len(interp.BandNames(cfg.Alg))}, nil
}

// takeUnsorted says whether every engine orders compact samples itself (interp.OrdersCompact)
// and tells their reach: a tile's samples then need no canonical order, neither for the
// engine nor for a search of the host's (knnReach).
func takeUnsorted(engines []interp.Engine, alg interp.Algorithm) bool {
	for _, e := range engines {
		if !interp.OrdersCompact(e, alg) || !interp.TellsReach(e, alg) {
			return false
		}
	}
	return true
}

// Algorithm is the job's algorithm.
func (c *Computer) Algorithm() interp.Algorithm { return c.cfg.Alg }

// Rule is the job's halo rule.
func (c *Computer) Rule() Rule { return c.rule }

// Bands is the number of bands the algorithm computes per node.
func (c *Computer) Bands() int { return c.nbands }

// loaded is the outcome of a load of samples.
type loaded struct {
	s   *sample.Samples
	err error
}

// prefetch starts loading the samples of tile tl's first region, to be handed to compute
// while the tile before it is computed: the load's serial work (reading, sorting) then uses
// a core the computation leaves idle.
func (c *Computer) prefetch(ctx context.Context, tl Tile) <-chan loaded {
	if c.streams() {
		return nil // a streamed tile loads its halo, if any, and chunks as it goes
	}
	ch := make(chan loaded, 1)
	go func() {
		s, err := c.load(ctx, c.Region(tl))
		ch <- loaded{s, err}
	}()
	return ch
}

// tileArrays are the arrays of a tile's computation, kept by an engine from tile to tile:
// fresh ones, of millions of nodes each, would fault their pages in again every tile.
type tileArrays struct {
	bands   [][]float64
	pending []bool
	reach   []float64
}

// resized returns v with n elements, in its own array when that holds them.
func resized[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, n)
	}
	return v[:n]
}

// bandsOf returns nb bands for tile tl's nodes, holding what the tile before left: a tile sets
// every node of its bands (computed, or nodata where the mask skips it).
func (a *tileArrays) bandsOf(tl Tile, nb int) [][]float64 {
	a.bands = resized(a.bands, nb)
	for k := range a.bands {
		a.bands[k] = resized(a.bands[k], tl.Rows*tl.Cols)
	}
	return a.bands
}

// nodesOf returns tile tl's pending flags and, when it checks them, its nodes' reach, holding
// what the tile before left: a tile sets its flags first, and the reach of the nodes it
// computes before it reads it.
func (a *tileArrays) nodesOf(tl Tile, reached bool) ([]bool, []float64) {
	a.pending = resized(a.pending, tl.Rows*tl.Cols)
	if !reached {
		return a.pending, nil
	}
	a.reach = resized(a.reach, tl.Rows*tl.Cols)
	return a.pending, a.reach
}

// fillWith sets every element of v to x, doubling what is set with copy: a tile's millions of
// flags at memmove's speed.
func fillWith[T any](v []T, x T) {
	if len(v) == 0 {
		return
	}
	v[0] = x
	for n := 1; n < len(v); n *= 2 {
		copy(v[n:], v[:n])
	}
}

// compute computes tile tl with engine eng into its bands out, the samples of its first region
// from first when non-nil, in arrays (nil: fresh ones); progress is told how many of its nodes
// are left after each round.
func (c *Computer) compute(ctx context.Context, eng interp.Engine, tl Tile, out [][]float64, arrays *tileArrays, first <-chan loaded, progress func(left int)) error {
	if c.streams() {
		return c.computeStreamed(ctx, tl, out, progress)
	}
	if arrays == nil {
		arrays = &tileArrays{}
	}
	pending, reach := arrays.nodesOf(tl, c.rule.Family == Nearest)
	t := c.cfg.Target
	fillWith(pending, true)
	nd := c.cfg.Alg.NoData()
	if t.Mask != nil {
		if err := c.mask(tl, pending); err != nil {
			return err
		}
		for i, p := range pending {
			if !p {
				for _, band := range out {
					band[i] = nd
				}
			}
		}
	}
	return c.settle(ctx, eng, tl, out, pending, reach, c.Region(tl), first, true, progress)
}

// settle computes the tile's nodes pending from the samples of region (nil: every sample), the
// first of them from first when non-nil, and again, from the regions that the halo check
// asks for, those that it leaves pending, until none is; progress is told how many of the
// tile's nodes are left after each round. With split, the nodes left after the first round
// (near the tile's edges) go by edge (settleEdges).
func (c *Computer) settle(ctx context.Context, eng interp.Engine, tl Tile, out [][]float64, pending []bool, reach []float64, region *[4]float64, first <-chan loaded, split bool, progress func(left int)) error {
	nearest := c.rule.Family == Nearest
	for left := len(pending); left > 0; {
		var s *sample.Samples
		var err error
		if first != nil {
			l := <-first
			s, err, first = l.s, l.err, nil
		} else {
			s, err = c.load(ctx, region)
		}
		if err != nil {
			return err
		}
		if err := c.facts.check(s); err != nil {
			return err
		}
		c.Loads.Add(1)
		c.Loaded.Add(int64(s.Len()))
		if nearest && region != nil && s.Len() < c.rule.K && !c.rule.Triangles {
			// too few for a node's search: every sample is needed
			region, first = nil, nil
			continue
		}
		r := reach
		if region == nil {
			r = nil // every sample loaded: nothing to check
		}
		err = c.computeNodes(ctx, eng, tl, s, c.facts.Job(c.rule, region), pending, out, r, region)
		if errors.Is(err, errTieOrder) && region != nil {
			// a tie between samples of a quadtree leaf that reaches past the region: the
			// whole job's samples might split it, so the nodes go again from a wider region
			region = c.widen(*region)
			continue
		}
		if err != nil {
			return err
		}
		var next *[4]float64
		if nearest && region != nil {
			next = c.checkNodes(tl, *region, pending, reach)
		} else {
			clear(pending)
		}
		left = count(pending)
		progress(left)
		if split && left > 0 && next != nil && !c.rule.Triangles {
			return c.settleEdges(ctx, eng, tl, out, pending, reach, *region, *next, progress)
		}
		region = next
	}
	return nil
}

// settleEdges computes the nodes left pending after a tile's first round from region: the few
// whose neighbourhood reaches past it, along the tile's edges. Their union (next) spans the
// tile, whose samples would all be loaded again for them: each edge's nodes (those nearest to
// it) go from the union of their own reaches, a strip along it, unless the strips are no
// smaller than next.
func (c *Computer) settleEdges(ctx context.Context, eng interp.Engine, tl Tile, out [][]float64, pending []bool, reach []float64, region, next [4]float64, progress func(left int)) error {
	var edges [4][]bool
	var boxes [4]*[4]float64
	for i, p := range pending {
		if !p {
			continue
		}
		r, k := i/tl.Cols, i%tl.Cols
		e, d := 0, k // west, east, north, south
		for j, dj := range [3]int{tl.Cols - 1 - k, r, tl.Rows - 1 - r} {
			if dj < d {
				e, d = j+1, dj
			}
		}
		if edges[e] == nil {
			edges[e] = make([]bool, len(pending))
		}
		edges[e][i] = true
	}
	area := func(b [4]float64) float64 { return (b[2] - b[0]) * (b[3] - b[1]) }
	strips := 0.0
	for e, do := range edges {
		if do == nil {
			continue
		}
		// the check of region again: every node of the edge stays pending, and the box
		// returned holds their reaches
		if boxes[e] = c.checkNodes(tl, region, slices.Clone(do), reach); boxes[e] == nil {
			strips = math.Inf(1)
			break
		}
		strips += area(*boxes[e])
	}
	if !(strips < area(next)) {
		return c.settle(ctx, eng, tl, out, pending, reach, &next, nil, false, progress)
	}
	for e, do := range edges {
		if do == nil {
			continue
		}
		for i, p := range do {
			if p {
				pending[i] = false
			}
		}
		if err := c.settle(ctx, eng, tl, out, do, reach, boxes[e], nil, false, func(int) {}); err != nil {
			return err
		}
		progress(count(pending))
	}
	return nil
}

// count is the number of nodes pending.
func count(pending []bool) int {
	n := 0
	for _, p := range pending {
		if p {
			n++
		}
	}
	return n
}

// Region is the region whose samples a tile loads first: the box of its nodes grown by the
// halo (for the nearest family a first guess, grown where a node needs more), or nil when
// the tile needs every sample.
func (c *Computer) Region(tl Tile) *[4]float64 {
	box := tl.Box(c.cfg.Target)
	switch c.rule.Family {
	case Radius:
		r := Grow(box, c.rule.Halo*(1+1e-6)+tiny(box))
		return &r
	case Nearest:
		r := Grow(box, c.rule.firstHalo(c.facts.density())*(1+1e-6)+tiny(box))
		return &r
	}
	return nil
}

// edgeDistance is the distance from (ax, ay) inside region to the region's edge.
func edgeDistance(ax, ay float64, region [4]float64) float64 {
	return min(ax-region[0], region[2]-ax, ay-region[1], region[3]-ay)
}

// tiny is a margin that keeps a box's edge strictly away from the samples a halo must hold.
func tiny(b [4]float64) float64 {
	return 1e-9 * (1 + math.Max(math.Max(math.Abs(b[0]), math.Abs(b[2])), math.Max(math.Abs(b[1]), math.Abs(b[3]))))
}

// mask clears pending for the tile's nodes that the target's mask skips.
func (c *Computer) mask(tl Tile, pending []bool) error {
	t := c.cfg.Target
	skip := make([]bool, tl.Rows*t.Cols)
	if err := t.Mask(tl.Row0, tl.Rows, skip); err != nil {
		return fmt.Errorf("reading mask rows %d-%d: %w", tl.Row0, tl.Row0+tl.Rows-1, err)
	}
	for r := range tl.Rows {
		for k := range tl.Cols {
			if skip[r*t.Cols+tl.Col0+k] {
				pending[r*tl.Cols+k] = false
			}
		}
	}
	return nil
}

// checkNodes is the nearest family's halo check, after the nodes were computed from the
// samples of region: a node is done when its reach (the distance within which lie the samples
// its searches found, see interp.Block.Reach) is strictly shorter than its distance to the
// region's edge, for then no sample outside could have changed it. It clears pending for
// those, and returns the region that holds the reach of every other node (nil: everything),
// from which they are computed again.
func (c *Computer) checkNodes(tl Tile, region [4]float64, pending []bool, reach []float64) *[4]float64 {
	t := c.cfg.Target
	// rows at a time on every core: a tile's millions of nodes would otherwise leave the
	// other cores idle between its computation and the next tile's
	type part struct {
		grow [4]float64
		all  bool
	}
	workers := min(c.threads(), tl.Rows)
	parts := make([]part, workers)
	margin := tiny(region)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range parts {
		wg.Go(func() {
			p := part{grow: [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}}
			for r := int(next.Add(1) - 1); r < tl.Rows; r = int(next.Add(1) - 1) {
				for k := range tl.Cols {
					i := r*tl.Cols + k
					if !pending[i] {
						continue
					}
					ax, ay := t.Node(tl.Col0+k, tl.Row0+r, 0, 0)
					edge := edgeDistance(ax, ay, region)
					if reach[i] < edge-margin {
						pending[i] = false
						continue
					}
					if math.IsInf(reach[i], 1) {
						p.all = true
						continue
					}
					d := reach[i]*(1+1e-6) + margin
					if c.rule.Triangles {
						// A triangle's circle is wide where the loaded samples end (a sliver on
						// their hull) and narrows as more are loaded: grow by doubling, not to
						// the reach.
						d = math.Min(d, 2*edge)
					}
					g := p.grow
					p.grow = [4]float64{math.Min(g[0], ax-d), math.Min(g[1], ay-d), math.Max(g[2], ax+d), math.Max(g[3], ay+d)}
				}
			}
			parts[w] = p
		})
	}
	wg.Wait()
	grow := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	all := false
	for _, p := range parts {
		g := p.grow
		grow = [4]float64{math.Min(grow[0], g[0]), math.Min(grow[1], g[1]), math.Max(grow[2], g[2]), math.Max(grow[3], g[3])}
		all = all || p.all
	}
	b := c.facts.Bounds
	if all || c.rule.Triangles && grow[0] < b[0] && grow[1] < b[1] && grow[2] > b[2] && grow[3] > b[3] {
		// every sample (a region around them all loads them all, and its nodes' reach, which
		// need not shrink, could grow it for ever)
		return nil
	}
	return &grow
}

// threads is how many goroutines the run's CPU work takes: Threads, else every core.
func (c *Computer) threads() int {
	if c.cfg.Threads > 0 {
		return c.cfg.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// computeNodes computes the nodes do of the tile from samples s with engine eng; reach, when
// non-nil, receives each node's reach (see interp.Block.Reach) for the halo check against
// region. An engine that does not tell reach computes while the host searches the nodes' k
// nearest for it, on every core (knnReach): the engine's work hides under the search.
func (c *Computer) computeNodes(ctx context.Context, eng interp.Engine, tl Tile, s *sample.Samples, job *interp.Job, do []bool, out [][]float64, reach []float64, region *[4]float64) error {
	if !slices.Contains(do, true) {
		return nil
	}
	p := &interp.Problem{Samples: s, Target: c.cfg.Target, Alg: c.cfg.Alg, Job: job}
	var err error
	switch {
	case reach == nil || interp.TellsReach(eng, c.cfg.Alg):
		err = c.computeBlocks(ctx, eng, p, tl, do, out, reach)
	case c.rule.Triangles:
		// nothing but the triangles tells a node's reach for linear, and only the CPU engine
		// tells it: the CPU computes these tiles
		err = c.computeBlocks(ctx, &interp.CPU{Threads: c.cfg.Threads}, p, tl, do, out, reach)
	default:
		err = both(ctx, func(ctx context.Context) error {
			return c.knnReach(ctx, tl, s, do, reach, *region)
		}, func(ctx context.Context) error {
			return c.computeBlocks(ctx, eng, p, tl, do, out, nil)
		})
	}
	if err != nil {
		return err
	}
	if job.OrderNeeded() {
		return fmt.Errorf("tile (col %d, row %d): %w", tl.Col0, tl.Row0, errTieOrder)
	}
	return nil
}

// both runs f and g at the same time and returns the first error of either (or of ctx),
// which stops the other.
func both(ctx context.Context, f, g func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f(ctx); err != nil {
			cancel(err)
		}
	}()
	if err := g(ctx); err != nil {
		cancel(err)
	}
	<-done
	return context.Cause(ctx)
}

// computeBlocks computes the nodes do of tile tl for problem p with engine eng, in blocks of
// the tile's rows over its own columns (nodes lie where the in-memory run puts them: the
// block's window of the target); reach, when non-nil, receives each node's reach.
func (c *Computer) computeBlocks(ctx context.Context, eng interp.Engine, p *interp.Problem, tl Tile, do []bool, out [][]float64, reach []float64) error {
	prep, release, err := c.prepare(ctx, eng, p)
	if err != nil {
		return err
	}
	defer release()
	step := blockRows(tl)
	var skip []bool
	if slices.Contains(do, false) { // else a tile's first round: its blocks skip no node
		skip = make([]bool, step*tl.Cols)
	}
	for r0 := 0; r0 < tl.Rows; r0 += step {
		lo, hi := r0*tl.Cols, min(r0+step, tl.Rows)*tl.Cols
		b := &interp.Block{Row0: tl.Row0 + r0, Rows: min(step, tl.Rows-r0), Col0: tl.Col0, Cols: tl.Cols,
			Values: out[0][lo:hi]}
		for _, band := range out[1:] {
			b.Extra = append(b.Extra, band[lo:hi])
		}
		if reach != nil {
			b.Reach = reach[lo:hi]
		}
		if skip != nil {
			b.Skip = skip[:hi-lo]
			for i, d := range do[lo:hi] {
				b.Skip[i] = !d
			}
		}
		if err := prep.Compute(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// errTieOrder says that a node broke a tie by gdal's quadtree order between samples whose
// order the tile's own samples do not prove (interp.Job.OrderNeeded).
var errTieOrder = errors.New("a node breaks a tie by gdal's quadtree order between samples of a leaf that the samples beyond the tile's region might split")

// widen is region grown to twice its width and height, or nil (every sample) once that holds
// the whole job's box.
func (c *Computer) widen(region [4]float64) *[4]float64 {
	r := Grow(region, max(region[2]-region[0], region[3]-region[1])/2)
	if b := c.facts.Bounds; r[0] < b[0] && r[1] < b[1] && r[2] > b[2] && r[3] > b[3] {
		return nil
	}
	return &r
}

// Run computes every tile of the job in turn and hands the rows of each row of tiles to sink,
// in order: the whole raster, band by band as interp.BandSink.
func Run(ctx context.Context, c *Computer, side int, sink interp.BandSink) error {
	t := c.cfg.Target
	return RunWindow(ctx, c, Tile{Cols: t.Cols, Rows: t.Rows}, side, sink)
}

// RunWindow is Run on a window of the target's nodes: sink gets the window's rows (row0
// counted from the window's first), win.Cols values a row. Each engine computes one tile at a
// time, taking them in order from one queue, and reads the samples of the next it takes while
// it computes; rows of tiles go to sink in order, whichever engine finishes first.
func RunWindow(ctx context.Context, c *Computer, win Tile, side int, sink interp.BandSink) error {
	tiles, err := win.Split(side)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if c.streams() && c.far == nil && c.plan.Stream.FarField() {
		// the far field's build is about as long as the tiles: half the progress
		whole := c.cfg.Progress
		if whole != nil {
			c.cfg.Progress = func(f float64) { whole(0.5 + 0.5*f) }
			defer func() { c.cfg.Progress = whole }()
		}
		if err := c.prepareFar(ctx, side, func(f float64) {
			if whole != nil {
				whole(0.5 * f)
			}
		}); err != nil {
			return err
		}
	}
	if c.rule.Family == Global && !c.streams() {
		c.global = &globalShare{preps: map[interp.Engine]interp.Prepared{}}
		defer func() { c.global.close(); c.global = nil }()
	}
	w := &windowRun{c: c, win: win, tiles: tiles, sink: sink, rows: map[int]*tileRow{},
		total: float64(win.Cols) * float64(win.Rows)}
	for _, tl := range tiles {
		r := w.rows[tl.Row0]
		if r == nil {
			r = &tileRow{rows: tl.Rows}
			w.rows[tl.Row0] = r
			w.order = append(w.order, tl.Row0)
		}
		r.left++
	}
	w.ready = sync.NewCond(&w.mu)
	written := make(chan error, 1)
	go func() { written <- w.write(ctx) }()
	var wg sync.WaitGroup
	for _, eng := range c.cfg.Engines {
		wg.Go(func() {
			if err := w.work(ctx, eng); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	w.mu.Lock()
	w.computed = true
	w.ready.Broadcast()
	w.mu.Unlock()
	if err := <-written; err != nil {
		cancel(err)
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// windowRun is the state RunWindow's engines share.
type windowRun struct {
	c     *Computer
	win   Tile
	tiles []Tile
	sink  interp.BandSink
	total float64

	mu       sync.Mutex
	next     int              // the next tile to take
	rows     map[int]*tileRow // by first row
	order    []int            // the rows of tiles' first rows, in order
	complete int              // rows of tiles complete, in order (those before are written or being written)
	written  int              // rows of tiles the writer took
	done     float64          // nodes finished
	// ready tells the writer that a row of tiles is complete or that the engines stopped, and
	// an engine that the writer took the row before its own; computed: the engines stopped;
	// failed: the writer stopped.
	ready    *sync.Cond
	computed bool
	failed   bool
}

// tileRow is a row of tiles being assembled: its bands, and how many tiles are missing.
type tileRow struct {
	rows  int
	bands [][]float64
	left  int
}

// take returns the next tile of the queue.
func (w *windowRun) take() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next == len(w.tiles) {
		return 0, false
	}
	w.next++
	return w.next - 1, true
}

// work computes tiles with eng until the queue is empty.
func (w *windowRun) work(ctx context.Context, eng interp.Engine) error {
	c := w.c
	i, ok := w.take()
	if !ok {
		return nil
	}
	first := c.prefetch(ctx, w.tiles[i])
	var arrays tileArrays
	for {
		j, more := w.take()
		var next <-chan loaded
		if more {
			next = c.prefetch(ctx, w.tiles[j])
		}
		tl := w.tiles[i]
		out := arrays.bandsOf(tl, c.nbands)
		before := tl.Rows * tl.Cols
		err := c.compute(ctx, eng, tl, out, &arrays, first, func(left int) {
			w.progress(float64(before - left))
			before = left
		})
		if err != nil {
			return fmt.Errorf("tile at column %d, row %d: %w", tl.Col0, tl.Row0, err)
		}
		w.place(ctx, tl, out)
		if !more {
			return nil
		}
		i, first = j, next
	}
}

// progress adds nodes to those finished and tells the run's progress.
func (w *windowRun) progress(nodes float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done += nodes
	if p := w.c.cfg.Progress; p != nil {
		p(w.done / w.total)
	}
}

// place puts a finished tile into its row of tiles, and marks every row that is complete and
// next in order for the writer. A row of tiles is written while the next is computed: an
// engine that completes a row waits until the writer took the one before, so that at most two
// rows of tiles are held (one written, one assembled), as the memory plan counts.
func (w *windowRun) place(ctx context.Context, tl Tile, out [][]float64) {
	w.mu.Lock()
	r := w.rows[tl.Row0]
	if r.bands == nil {
		r.bands = make([][]float64, len(out))
		for k := range r.bands {
			r.bands[k] = make([]float64, r.rows*w.win.Cols)
		}
	}
	w.mu.Unlock()
	// rows at a time on every core, beside the other engines' tiles: the copy faults in the
	// row's fresh pages (a tile of 21 million nodes took 0.11-0.14 s on one core of an H200 host)
	at := tl.Col0 - w.win.Col0
	parts.Each(tl.Rows, min(w.c.threads(), tl.Rows), func(_, r0, r1 int) {
		for row := r0; row < r1; row++ {
			for k := range out {
				copy(r.bands[k][row*w.win.Cols+at:][:tl.Cols], out[k][row*tl.Cols:][:tl.Cols])
			}
		}
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	r.left--
	for w.complete < len(w.order) && w.rows[w.order[w.complete]].left == 0 {
		w.complete++
		w.ready.Broadcast()
	}
	for w.written < w.complete-1 && !w.failed && ctx.Err() == nil {
		w.ready.Wait()
	}
}

// write hands the complete rows of tiles to the sink in order, one at a time, until every row
// is written, the engines stopped or ctx is done (whose cause the run returns).
func (w *windowRun) write(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.written < len(w.order) {
		if ctx.Err() != nil {
			w.failed = true // no engine waits for a row to be taken
			w.ready.Broadcast()
			return nil
		}
		if w.written == w.complete {
			if w.computed {
				return nil // an engine failed: the run stops
			}
			w.ready.Wait()
			continue
		}
		row0 := w.order[w.written]
		r := w.rows[row0]
		delete(w.rows, row0)
		w.written++
		w.ready.Broadcast()
		w.mu.Unlock()
		err := w.sink(row0-w.win.Row0, r.rows, r.bands)
		w.mu.Lock()
		if err != nil {
			w.failed = true
			w.ready.Broadcast()
			return err
		}
	}
	return nil
}

// knnReach sets the reach of the nodes do of tile tl from samples s as the CPU engine tells it
// for the nearest family: the distance of the K-th nearest sample (at least Extra), +Inf when
// there are fewer; computed on every core. A node that the cells' counts alone prove far
// enough inside region for the halo check (checkNodes) gets that bound instead, which passes
// the check as its reach would: most of a tile's nodes, whose k nearest then need no search.
// It fails when ctx is done, the reach then incomplete.
func (c *Computer) knnReach(ctx context.Context, tl Tile, s *sample.Samples, do []bool, reach []float64, region [4]float64) error {
	t := c.cfg.Target
	ix, err := grid.Of(ctx, s)
	if err != nil {
		return err
	}
	margin := tiny(region)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range c.threads() {
		wg.Go(func() {
			var nb []grid.Neighbor
			for ctx.Err() == nil {
				r := int(next.Add(1) - 1)
				if r >= tl.Rows {
					return
				}
				for k := range tl.Cols {
					i := r*tl.Cols + k
					if !do[i] {
						continue
					}
					x, y := t.Node(tl.Col0+k, tl.Row0+r, s.OriginX, s.OriginY)
					ax, ay := t.Node(tl.Col0+k, tl.Row0+r, 0, 0)
					limit := edgeDistance(ax, ay, region) - margin
					if b, ok := ix.KNNBound(x, y, c.rule.K, limit); ok && c.rule.Extra < limit {
						reach[i] = math.Max(b, c.rule.Extra)
						continue
					}
					nb = ix.KNN(x, y, c.rule.K, math.Inf(1), nb)
					reach[i] = math.Inf(1)
					if len(nb) == c.rule.K {
						reach[i] = math.Max(math.Sqrt(nb[c.rule.K-1].D2), c.rule.Extra)
					}
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// SetProgress sets the function told the fraction of the job done.
func (c *Computer) SetProgress(f func(float64)) { c.cfg.Progress = f }
