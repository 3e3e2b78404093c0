package interp

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/fastmath"
	"github.com/aidw/aidw/internal/weigh"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Stream computes the global form of an algorithm (every sample weighed or counted at every
// node) at a set of nodes from samples that come in chunks, in the job's order: a survey
// larger than memory streams past each tile's nodes. Each node keeps its sums between chunks
// exactly as the in-memory loop keeps them between samples (weigh.Lanes for AIDW's vector
// lanes, the kernels' sums for invdist, see invDistStream), so that the values are the
// in-memory run's bit for bit. For AIDW only the sums stream: what a node's neighbourhood
// decides (its power, an exact hit) comes from its tile and halo (see AIDWPowers); invdist's
// exact hits come from the stream, in a second pass where a form needs one (see Again).
type Stream struct {
	kind  streamKind
	alg   Algorithm
	n     int // the job's samples
	seen  int // samples added so far
	nodes StreamNodes
	// average, minimum, maximum, range and count: one value for every node
	sum, lo, hi float64
	// average_distance: each node's sum of distances
	dist []float64
	// average_distance_pts: the pass's block of rows, and the rows of the passes before it
	// summed
	pairs     pairRows
	pairsDone float64
	// aidw: each node's lanes, and the samples (fewer than weigh.LanesAlign) held back
	// from the last chunk, so that every chunk but the last adds whole lanes
	aidw  *AIDW
	lanes []weigh.Lanes
	// invdist: its batches' or nodes' sums
	invdist *invDistStream
	// the samples (fewer than a block of the kernel) held back from the last chunk, so that
	// every chunk but the last adds whole blocks
	carryX, carryY, carryZ []float64
}

// StreamNodes are the nodes of a Stream and the facts of the job they belong to.
type StreamNodes struct {
	// N is the job's number of samples; RasterNodes the number of its raster's nodes (AIDW's
	// choice of the far field depends on both).
	N           int
	RasterNodes float64
	// X and Y are the nodes' places relative to the job's origin (raster.Target.Node).
	X, Y []float64
	// Local is, for AIDW, the bands of AIDWPowers at each node (Local[band][node]).
	Local [][]float64
	// PairRows is, for average_distance_pts, how many samples a pass pairs with every sample
	// after them (0: all): the samples stream past once for each block of that many.
	PairRows int
	// Target is the raster the nodes belong to, Col and Row their column and row in it, and
	// OriginX, OriginY the job's origin: invdist computes the nodes of a row in batches fixed
	// by their columns, with nodes that need not be among these.
	Target           *raster.Target
	Col, Row         []int
	OriginX, OriginY float64
}

type streamKind int

const (
	streamAverage streamKind = iota
	streamMinMax
	streamCount
	streamDistance
	streamPairs
	streamAIDW
	streamInvDist
)

// StreamForm is how an algorithm's global form streams its samples past a tile's nodes, and
// what that costs: the algorithm declares it in its own file (streamForm), and NewStream, the
// memory plan and the tiles ask it (StreamFormOf).
type StreamForm struct {
	kind streamKind
	alg  Algorithm
	// NodeBytes is what a streamed node holds for its sums.
	NodeBytes float64
	// SampleBytes is what a streamed sample costs besides its load: average_distance_pts
	// holds a pass's block of rows, as many as a chunk's samples.
	SampleBytes float64
	// tileBytes, when set, is what a tile of side x side nodes of raster t holds besides its
	// nodes: invdist's far-field tree's sums at the points of the tile's boxes.
	tileBytes func(t raster.Target, side int) float64
	// Local, when set, is the algorithm whose bands at each node, computed from the node's
	// tile and halo, the sums need (StreamNodes.Local: AIDW's powers); LocalK is how many
	// nearest samples they reach.
	Local  Algorithm
	LocalK int
	// far, when set, is global AIDW computed by the far field: it streams through AIDWFar,
	// not a Stream.
	far *AIDW
}

// TileBytes is what the form holds for a tile of side x side nodes of raster t besides what
// its nodes hold (NodeBytes).
func (f *StreamForm) TileBytes(t raster.Target, side int) float64 {
	if f.tileBytes == nil {
		return 0
	}
	return f.tileBytes(t, side)
}

// Passes is how many times the n samples stream past a tile's nodes when average_distance_pts
// pairs pairRows rows a pass (StreamNodes.PairRows); invdist's second pass for exact hits,
// which progress does not count, is not among them.
func (f *StreamForm) Passes(n, pairRows int) int {
	if f.kind != streamPairs || pairRows <= 0 {
		return 1
	}
	return (n + pairRows - 1) / pairRows
}

// FarField says whether the form streams through the far field (NewFar), not a Stream.
func (f *StreamForm) FarField() bool { return f.far != nil }

// NewFar starts the form's far field for a job of n samples whose box relative to its origin
// (originX, originY) is rel, onto target t.
func (f *StreamForm) NewFar(n int, rel [4]float64, t raster.Target, originX, originY float64) (*AIDWFar, error) {
	if f.far == nil {
		return nil, fmt.Errorf("%s: the job's global form does not use the far field", f.alg.Name())
	}
	return newAIDWFar(f.far, n, rel, t, originX, originY)
}

// LoadFar is NewFar's far field, built, read from r as AIDWFar.Save wrote it for the same job:
// a plan's tiles take it instead of building it again.
func (f *StreamForm) LoadFar(ctx context.Context, r io.Reader, n int, rel [4]float64, t raster.Target, originX, originY float64) (*AIDWFar, error) {
	far, err := f.NewFar(n, rel, t, originX, originY)
	if err != nil {
		return nil, err
	}
	if far.f, err = far.pl.LoadField(ctx, r, far.box, far.nodes); err != nil {
		return nil, fmt.Errorf("aidw: %w", err)
	}
	far.powers = nil
	return far, nil
}

// FarSize is what the form's far field needs (see NewFar): the bytes of its operators and
// tree, which stay for the whole run, and how far beyond a tile's nodes the samples of their
// near fields reach; zero without a far field.
func (f *StreamForm) FarSize(n int, rel [4]float64, t raster.Target, originX, originY float64) (bytes, halo float64, err error) {
	if f.far == nil {
		return 0, 0, nil
	}
	return aidwFarSize(f.far, n, rel, t, originX, originY)
}

// NewStream starts streaming alg's global form past the nodes.
func NewStream(alg Algorithm, nodes StreamNodes) (*Stream, error) {
	form, err := StreamFormOf(alg, nodes.N, nodes.RasterNodes)
	if err != nil {
		return nil, err
	}
	if form.FarField() {
		return nil, fmt.Errorf("%s: the far field streams through AIDWFar", alg.Name())
	}
	kind := form.kind
	if len(nodes.X) != len(nodes.Y) {
		return nil, fmt.Errorf("stream: %d node x for %d y", len(nodes.X), len(nodes.Y))
	}
	s := &Stream{kind: kind, alg: alg, n: nodes.N, nodes: nodes, lo: math.MaxFloat64, hi: -math.MaxFloat64}
	switch kind {
	case streamDistance:
		s.dist = make([]float64, len(nodes.X))
	case streamPairs:
		s.startPass(0)
	case streamAIDW:
		s.aidw = alg.(*AIDW)
		if len(nodes.Local) != len(aidwPowersBands) {
			return nil, fmt.Errorf("stream: aidw needs the %d bands of its powers, got %d", len(aidwPowersBands), len(nodes.Local))
		}
		s.lanes = make([]weigh.Lanes, len(nodes.X))
	case streamInvDist:
		if s.invdist, err = newInvDistStream(alg.(*InvDist), nodes); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Constant says whether the form's value is the same at every node (the statistics without
// radius but average_distance): one stream then serves every tile of the job.
func (s *Stream) Constant() bool {
	return s.kind == streamAverage || s.kind == streamMinMax || s.kind == streamCount || s.kind == streamPairs
}

// startPass starts average_distance_pts's pass over the rows from the job's sample first.
func (s *Stream) startPass(first int) {
	rows := s.nodes.PairRows
	if rows <= 0 {
		rows = s.n
	}
	rows = min(rows, s.n-first)
	s.pairs = pairRows{first: first, x: make([]float64, 0, rows), y: make([]float64, 0, rows), sum: make([]float64, rows)}
	s.seen = 0
}

// pairsAgain ends a pass of average_distance_pts's rows and says whether another block of
// rows is left.
func (s *Stream) pairsAgain() bool {
	if s.pairs.sum == nil {
		return false // the last pass has ended
	}
	s.pairsDone = s.pairs.total(s.pairsDone)
	if next := s.pairs.first + len(s.pairs.sum); next < s.n {
		s.startPass(next)
		return true
	}
	s.pairs = pairRows{}
	return false
}

// Add streams the next chunk of samples (in the job's order, relative to its origin) past
// the nodes, on threads workers; ctx stops it within a fraction of a second.
func (s *Stream) Add(ctx context.Context, chunk *sample.Samples, threads int) error {
	if threads <= 0 {
		threads = 1
	}
	m := chunk.Len()
	if m == 0 {
		return ctx.Err()
	}
	at := s.seen
	s.seen += m
	switch s.kind {
	case streamAverage:
		for _, z := range chunk.Z {
			s.sum += z
		}
	case streamMinMax:
		for _, z := range chunk.Z {
			s.lo, s.hi = min(s.lo, z), max(s.hi, z)
		}
	case streamDistance:
		xs, ys := chunk.Coords()
		return forEachRun(ctx, threads, len(s.dist), runFor(m), func(_ *scratch, lo, hi int) {
			for i := lo; i < hi; i++ {
				x, y, sum := s.nodes.X[i], s.nodes.Y[i], s.dist[i]
				for j, sx := range xs {
					dx, dy := sx-x, ys[j]-y
					sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
				}
				s.dist[i] = sum
			}
		})
	case streamPairs:
		// the chunk's samples among the pass's rows join them before their pairs are summed
		xs, ys := chunk.Coords()
		r := &s.pairs
		if lo, hi := max(r.first, at), min(r.first+len(r.sum), at+m); lo < hi {
			r.x, r.y = append(r.x, xs[lo-at:hi-at]...), append(r.y, ys[lo-at:hi-at]...)
		}
		return r.add(ctx, threads, xs, ys, at)
	case streamAIDW:
		return s.addAIDW(ctx, chunk, threads)
	case streamInvDist:
		runs, rest := s.whole(chunk, s.invdist.block())
		err := s.invdist.add(ctx, runs, threads, m)
		s.hold(rest)
		return err
	}
	return ctx.Err()
}

// run is a run of samples.
type run struct{ x, y, z []float64 }

// whole splits a chunk into runs of whole blocks of align samples: the samples held back from
// the chunk before, completed from this one (while they make a block), and the chunk's whole
// blocks after them, which may be none; rest is what to hold back (see hold) once they are
// added.
func (s *Stream) whole(chunk *sample.Samples, align int) (runs []run, rest run) {
	xs, ys := chunk.Coords()
	zs := chunk.Z
	if c := len(s.carryX); c > 0 {
		k := min(align-c, len(xs))
		s.carryX, s.carryY, s.carryZ = append(s.carryX, xs[:k]...), append(s.carryY, ys[:k]...), append(s.carryZ, zs[:k]...)
		xs, ys, zs = xs[k:], ys[k:], zs[k:]
		if len(s.carryX) < align {
			return nil, run{s.carryX, s.carryY, s.carryZ}
		}
		runs = append(runs, run{s.carryX, s.carryY, s.carryZ})
	}
	body := len(xs) / align * align
	return append(runs, run{xs[:body], ys[:body], zs[:body]}), run{xs[body:], ys[body:], zs[body:]}
}

// hold keeps r back for the next chunk.
func (s *Stream) hold(r run) {
	s.carryX = append(s.carryX[:0], r.x...)
	s.carryY = append(s.carryY[:0], r.y...)
	s.carryZ = append(s.carryZ[:0], r.z...)
}

// runFor is how many nodes a worker takes at a time from a chunk of m samples: few enough
// that an interrupt is seen within a few tens of milliseconds.
func runFor(m int) int { return max(1, min(chunkNodes, (1<<22)/max(m, 1))) }

// addAIDW adds a chunk's whole lanes to every node's lanes (see whole).
func (s *Stream) addAIDW(ctx context.Context, chunk *sample.Samples, threads int) error {
	runs, rest := s.whole(chunk, weigh.LanesAlign)
	err := forEachRun(ctx, threads, len(s.lanes), runFor(chunk.Len()), func(_ *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			hit, c, c0 := s.weights(i)
			if hit {
				continue
			}
			x, y := s.nodes.X[i], s.nodes.Y[i]
			for _, r := range runs {
				s.lanes[i].Add(r.x, r.y, r.z, x, y, c, c0)
			}
		}
	})
	s.hold(rest)
	return err
}

// weights is node i's exact hit, and else its weights' exponent and shift: (d2/d2min)^(-alpha/2)
// = 2^(c log2(d2) + c0), as aidwEvaluator.node computes them.
func (s *Stream) weights(i int) (hit bool, c, c0 float64) {
	l := s.nodes.Local
	if l[powersHit][i] != 0 {
		return true, 0, 0
	}
	c = -l[powersAlpha][i] / 2
	return false, c, -c * fastmath.Log2Pos(l[powersNearestD2][i])
}

// Again ends a pass of every sample of the job (call it after the pass's last Add) and says
// whether the form needs another pass of them all, from the first: average_distance_pts
// holds a block of rows a pass; invdist's nodes whose batch sums say an exact hit, or close
// to one, take a pass of gdal's own loop. Finish follows the last pass.
func (s *Stream) Again() (bool, error) {
	if s.seen != s.n {
		return false, fmt.Errorf("the stream gave %d samples of the job's %d", s.seen, s.n)
	}
	if s.kind == streamPairs {
		return s.pairsAgain(), nil
	}
	if s.invdist == nil || s.invdist.done {
		return false, nil
	}
	more := s.invdist.again(run{s.carryX, s.carryY, s.carryZ})
	s.hold(run{})
	if more {
		s.seen = 0
	}
	return more, nil
}

// Finish sets the nodes' values, band by band (out[band][node], the algorithm's bands),
// once every sample of the job has streamed past (in as many passes as Again asks).
func (s *Stream) Finish(out [][]float64) error {
	more, err := s.Again()
	if err != nil {
		return err
	}
	if more {
		return fmt.Errorf("%s: the stream needs another pass of the samples (see Stream.Again)", s.alg.Name())
	}
	n := s.n
	fill := func(v float64) {
		for i := range out[0] {
			out[0][i] = v
		}
	}
	switch s.kind {
	case streamAverage:
		a := s.alg.(*Average)
		if n == 0 || n < a.MinPoints {
			fill(a.NodataValue)
		} else {
			fill(s.sum / float64(n))
		}
	case streamMinMax, streamCount:
		m := s.alg.(*Metric)
		switch {
		case n < m.MinPoints || n == 0 && m.Kind != Count:
			fill(m.NodataValue)
		case m.Kind == Count:
			fill(float64(n))
		case m.Kind == Minimum:
			fill(s.lo)
		case m.Kind == Maximum:
			fill(s.hi)
		default:
			fill(s.hi - s.lo)
		}
	case streamPairs:
		fill(s.alg.(*Metric).pairsMean(s.pairsDone, n))
	case streamDistance:
		m := s.alg.(*Metric)
		for i, sum := range s.dist {
			if n < m.MinPoints {
				out[0][i] = m.NodataValue
			} else {
				out[0][i] = sum / float64(n)
			}
		}
	case streamAIDW:
		s.finishAIDW(out)
	case streamInvDist:
		copy(out[0], s.invdist.value)
	}
	return nil
}

// finishAIDW is aidwEvaluator.node's end: an exact hit's value, or the weighted mean.
func (s *Stream) finishAIDW(out [][]float64) {
	a, l := s.aidw, s.nodes.Local
	for i := range s.lanes {
		var nd AIDWNode
		nd.Alpha, nd.RObs, nd.R = l[powersAlpha][i], l[powersRObs][i], l[powersR][i]
		hit, c, c0 := s.weights(i)
		switch {
		case hit:
			nd.Value, nd.Count = l[powersHitValue][i], 1
		default:
			sw, swz := s.lanes[i].Finish(s.carryX, s.carryY, s.carryZ, s.nodes.X[i], s.nodes.Y[i], c, c0)
			nd.Count = s.n
			nd.Value = swz / sw
			if nd.Count == 0 || nd.Count < a.MinPoints {
				nd.Value = a.NodataValue
			}
		}
		out[0][i] = nd.Value
		if len(out) == 5 {
			out[1][i], out[2][i], out[3][i], out[4][i] = nd.Alpha, nd.RObs, nd.R, float64(nd.Count)
		}
	}
}

// AIDWPowers is what a node's neighbourhood decides of global AIDW, as bands: the power from
// its k nearest samples (with r_obs and R), the nearest sample's squared distance, and whether
// a sample is an exact hit, with its value. A tiled run finds these from each tile's samples
// and halo, as for the local forms (the k nearest are checked node by node), and streams the
// whole survey past the nodes for the sums (Stream).
type AIDWPowers struct{ AIDW *AIDW }

// The bands of AIDWPowers.
const (
	powersAlpha = iota
	powersRObs
	powersR
	powersNearestD2
	powersHit
	powersHitValue
)

var aidwPowersBands = []string{"alpha", "r_obs", "R", "nearest_d2", "hit", "hit_value"}

// Name implements Algorithm.
func (a *AIDWPowers) Name() string { return a.AIDW.Name() }

// NoData implements Algorithm.
func (a *AIDWPowers) NoData() float64 { return a.AIDW.NoData() }

// BandNames names the bands (see AIDWPowers).
func (a *AIDWPowers) BandNames() []string { return aidwPowersBands }

func (a *AIDWPowers) bind(p *Problem, ix *grid.Index) (bound, error) {
	f, err := a.bindBands(p, ix)
	if err != nil {
		return nil, err
	}
	return nodeFunc(func(sc *scratch, x, y float64) float64 {
		out := make([]float64, len(aidwPowersBands))
		f(sc, x, y, out)
		return out[0]
	}), nil
}

func (a *AIDWPowers) bindBands(p *Problem, ix *grid.Index) (bandsFunc, error) {
	if a.AIDW.local() {
		return nil, fmt.Errorf("aidw: the powers of the global form, not of max_points or radius")
	}
	e, err := a.AIDW.evaluator(p, ix, p.sampleCount())
	if err != nil {
		return nil, err
	}
	return func(sc *scratch, x, y float64, out []float64) {
		sc.nb = sc.knn(e.ix, x, y, e.nq, math.Inf(1), -1)
		nb := sc.nb
		var nd AIDWNode
		e.power(&nd, nb, -1)
		nearest := nb[0]
		out[powersAlpha], out[powersRObs], out[powersR], out[powersNearestD2] = nd.Alpha, nd.RObs, nd.R, nearest.D2
		out[powersHit], out[powersHitValue] = 0, 0
		if nearest.D2 < exactHitD2 {
			out[powersHit], out[powersHitValue] = 1, e.exactHit(sc, -1, x, y, nearest.ID)
		}
	}, nil
}

// AIDWFar is global AIDW's far field (see aidwEvaluator.farField) over a survey that streams
// past it: the same plan and tree as the in-memory run's, its charges from the samples in
// input order, its powers from every node of the raster, and each tile's near fields from the
// samples of the leaves around its nodes, so that every node has the in-memory value's bits.
type AIDWFar struct {
	a      *AIDW
	n      int
	pl     *farfield.Plan
	box    [4]float64 // the raster's extent, relative to the job's origin
	nodes  int
	b      *farfield.Builder
	powers *farfield.Powers
	f      *farfield.Field
}

// newAIDWFar starts global AIDW's far field for a job of n samples whose box relative to
// its origin (originX, originY) is rel, onto target t.
func newAIDWFar(a *AIDW, n int, rel [4]float64, t raster.Target, originX, originY float64) (*AIDWFar, error) {
	nodes := t.Cols * t.Rows
	if !a.farFieldFor(n, float64(nodes)) {
		return nil, fmt.Errorf("aidw: the job's global form does not use the far field")
	}
	pl, err := farfield.NewStreamPlan(n, rel, aidwFarOptions(a))
	if err != nil {
		return nil, fmt.Errorf("aidw: %w", err)
	}
	xmin, ymin, xmax, ymax := t.Extent()
	box := [4]float64{xmin - originX, ymin - originY, xmax - originX, ymax - originY}
	return &AIDWFar{a: a, n: n, pl: pl, box: box, nodes: nodes, powers: pl.Powers(box, nodes)}, nil
}

// aidwFarSize is what AIDWFar needs for a job of n samples whose box relative to the job's
// origin is rel, onto target t: the bytes of its operators and tree, which stay for the
// whole run, and how far beyond a tile's nodes the samples of their near fields reach (three
// leaves: the two of the near field and the nodes' own).
func aidwFarSize(a *AIDW, n int, rel [4]float64, t raster.Target, originX, originY float64) (bytes, halo float64, err error) {
	xmin, ymin, xmax, ymax := t.Extent()
	box := [4]float64{xmin - originX, ymin - originY, xmax - originX, ymax - originY}
	bytes, leaf, err := farfield.StreamSize(n, rel, aidwFarOptions(a), box, t.Cols*t.Rows)
	return bytes, 3 * leaf, err
}

// aidwFarOptions are the far field's options for AIDW's powers, as farField sets them.
func aidwFarOptions(a *AIDW) farfield.Options {
	return farfield.Options{AlphaMin: slices.Min(a.Alphas[:]), AlphaMax: slices.Max(a.Alphas[:])}
}

// AddPowers tells the far field the powers of nodes (the alpha band of AIDWPowers, Local):
// every node of the raster must be told before Build, once.
func (f *AIDWFar) AddPowers(nodes StreamNodes) {
	for i, x := range nodes.X {
		f.powers.Add(x, nodes.Y[i], nodes.Local[powersAlpha][i])
	}
}

// AddSamples adds the next chunk of the job's samples, in order, to the far field's charges.
func (f *AIDWFar) AddSamples(ctx context.Context, chunk *sample.Samples) error {
	if f.b == nil {
		b, err := f.pl.NewBuilder(f.box, f.nodes)
		if err != nil {
			return err
		}
		f.b = b
	}
	xs, ys := chunk.Coords()
	return f.b.Add(ctx, xs, ys, chunk.Z)
}

// Build builds the far fields once every sample and every node's power was added.
func (f *AIDWFar) Build(ctx context.Context) error {
	if f.b == nil {
		return fmt.Errorf("aidw: no samples streamed to the far field")
	}
	ff, err := f.b.Field(ctx, f.powers)
	if err != nil {
		return fmt.Errorf("aidw: %w", err)
	}
	f.f, f.b, f.powers = ff, nil, nil
	return nil
}

// Save writes the far field, once built, for LoadFar.
func (f *AIDWFar) Save(ctx context.Context, w io.Writer) error {
	if f.f == nil {
		return fmt.Errorf("aidw: the far field is not built")
	}
	return f.f.Save(ctx, w)
}

// NearBox is the box (relative to the job's origin) whose samples, every one of them, the
// near fields of nodes inside box need; load a little beyond it (see NearMargin).
func (f *AIDWFar) NearBox(box [4]float64) [4]float64 { return f.f.NearBox(box) }

// NearMargin is how far beyond NearBox to load: a leaf's samples may lie a rounding beyond
// its edges.
func (f *AIDWFar) NearMargin(box [4]float64) float64 {
	return 1e-6 * math.Max(box[2]-box[0], box[3]-box[1])
}

// Values computes the nodes (their Local bands from AIDWPowers) into out, band by band, from
// near, the job's samples in order around them (NearBox's, and any others), on threads
// workers.
func (f *AIDWFar) Values(ctx context.Context, near *sample.Samples, nearBox [4]float64, nodes StreamNodes, out [][]float64, threads int) error {
	xs, ys := near.Coords()
	nr := f.f.NewNear(nearBox, xs, ys, near.Z)
	a, l := f.a, nodes.Local
	var failed atomic.Int64
	failed.Store(-1)
	err := forEachRun(ctx, max(threads, 1), len(nodes.X), 64, func(sc *scratch, lo, hi int) {
		fs := sc.farScratch(f.f)
		for i := lo; i < hi; i++ {
			var nd AIDWNode
			nd.Alpha, nd.RObs, nd.R = l[powersAlpha][i], l[powersRObs][i], l[powersR][i]
			if l[powersHit][i] != 0 {
				nd.Value, nd.Count = l[powersHitValue][i], 1
			} else {
				swz, sw, _, ok := f.f.AtNear(fs, nr, nodes.X[i], nodes.Y[i], nd.Alpha)
				if !ok {
					failed.CompareAndSwap(-1, int64(i))
					return
				}
				nd.Count = f.n
				nd.Value = swz / sw
				if nd.Count == 0 || nd.Count < a.MinPoints {
					nd.Value = a.NodataValue
				}
			}
			out[0][i] = nd.Value
			if len(out) == 5 {
				out[1][i], out[2][i], out[3][i], out[4][i] = nd.Alpha, nd.RObs, nd.R, float64(nd.Count)
			}
		}
	})
	if err != nil {
		return err
	}
	if i := failed.Load(); i >= 0 {
		return fmt.Errorf("aidw: the far field cannot sum the node at %g, %g from its tile's samples (its power was not among those the field was built for, or the tile's leaves fall short)", nodes.X[i], nodes.Y[i])
	}
	return nil
}
