package interp

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/fastmath"
	"github.com/aidw/aidw/internal/weigh"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// AIDW is Adaptive Inverse Distance Weighting (Lu & Wong 2008): inverse distance weighting whose
// power adapts at each node to how clustered the samples around it are. The mean distance r_obs
// to the K nearest samples, against the distance r_exp expected of n random samples over the
// study area, gives the statistic R = r_obs/r_exp; R is mapped onto mu in [0,1] by a cosine
// ramp between RMin and RMax, and mu onto the power alpha by a piecewise-linear ramp through
// the five levels Alphas. The node's value is the weighted mean of the samples with weights
// d^-alpha: over all samples (the papers' global form) unless MaxPoints or Radius bound the
// weighting neighbourhood.
type AIDW struct {
	K           int        // nearest samples that give r_obs (clamped to n)
	Area        float64    // study area for r_exp; 0 derives it (see StudyArea)
	RMin, RMax  float64    // R at which mu reaches 0 and 1
	Alphas      [5]float64 // power levels a1..a5
	MaxPoints   int        // weigh only the MaxPoints nearest samples; 0 weighs all
	Radius      float64    // weigh only samples within Radius; 0 is unbounded
	MinPoints   int        // nodes with fewer samples to weigh are NodataValue
	NodataValue float64
	// Diagnostics adds bands after the value that explain it: alpha, r_obs, R and the number
	// of samples weighted (see AIDWNode and BandNames).
	Diagnostics bool
	// FarField lets the global form of a large raster sum distant samples by interp/farfield's
	// expansion (see farField) instead of one by one.
	FarField bool
	// farFieldAt, when set, replaces farFieldFrom's thresholds (tests).
	farFieldAt *farFieldThresholds
}

// exactHitD2 is gdal_grid's squared distance (smoothing included, for invdist) under which a
// node takes a sample's value as is; every algorithm here uses it.
const exactHitD2 = 1e-13

// muKnots are the mu at which alpha equals each level; alpha is linear in between.
var muKnots = [5]float64{0.1, 0.3, 0.5, 0.7, 0.9}

// aidwDeclaration is aidw's options; unknown keys and invalid values are errors (see Validate,
// which checks the ranges declared here).
var aidwDeclaration = Declaration{
	Name: "aidw",
	Help: "adaptive IDW (Lu & Wong 2008): the power adapts to how clustered the samples are",
	Options: []Option{
		{Name: "k", Type: TypeInt, Default: "15", Min: limit(1), Field: "K",
			Help: "nearest samples whose mean distance r_obs measures the local density (clamped to n)"},
		{Name: "area", Type: TypeFloat, Default: "0", Min: limit(0), Field: "Area",
			Help: "study area for the expected distance r_exp; 0 takes the samples' bounding box"},
		{Name: "rmin", Type: TypeFloat, Default: "0", Field: "RMin",
			Help: "R at which mu is 0 and the power a1"},
		{Name: "rmax", Type: TypeFloat, Default: "2", Field: "RMax",
			Help: "R at which mu is 1 and the power a5; must exceed rmin"},
		{Name: "alphas", Type: TypeFloatList, Default: "1.5,2,2.5,3,3.5", Min: limit(0), Field: "Alphas",
			Help: "the five power levels a1..a5, from clustered to dispersed samples"},
		{Name: "max_points", Type: TypeInt, Default: "0", Min: limit(0), Field: "MaxPoints",
			Help: "weigh only the max_points nearest samples; 0 weighs all"},
		{Name: "radius", Type: TypeFloat, Default: "0", Min: limit(0), Field: "Radius",
			Help: "weigh only the samples within radius; 0 is unbounded"},
		{Name: "min_points", Type: TypeInt, Default: "0", Min: limit(0), Field: "MinPoints",
			Help: "nodes with fewer samples to weigh are nodata"},
		nodataOption(),
		{Name: "diagnostics", Type: TypeYesNo, Default: "no", Field: "Diagnostics",
			Help: "yes adds the bands alpha, r_obs, R and the neighbour count after the value"},
		{Name: "farfield", Type: TypeYesNo, Default: "yes", Field: "FarField",
			Help: "the global form of a large raster sums distant samples by a far-field expansion: on the CPU from 10,000 samples and 2e9 sample-node pairs, within 1e-9 of the exact sum; on the GPU from its own sizes, within 1e-6; no sums every sample exactly"},
	},
	GPU: &GPUForm{Accuracy: GPUWithin1e5,
		Forms: "every form but diagnostics=yes (k and max_points up to the GPU's limit): max_points and radius forms within 1e-12, the global form in float32 within 1e-5 (AIDW_GPU_FLOAT64=1: within 1e-12)"},
	parse: parseAIDW,
}

// Reach implements Reacher: the global form reaches every sample; the others a node's k
// nearest (its power) and the max_points nearest or those within radius (its weights).
func (a *AIDW) Reach(n int) Reach {
	if !a.local() {
		return Reach{Kind: ReachGlobal}
	}
	k := min(a.K, n)
	r := Reach{Kind: ReachNearest, K: k}
	if a.MaxPoints > 0 {
		r.K = max(k, min(a.MaxPoints, n))
	} else {
		r.Extra = a.Radius
	}
	return r
}

// streamForm implements streamer: the global form streams each node's lanes of sums, its
// power (AIDWPowers) coming from its tile and halo; by the far field when it pays.
func (a *AIDW) streamForm(n int, rasterNodes float64) (StreamForm, bool) {
	if a.local() {
		return StreamForm{}, false
	}
	f := StreamForm{kind: streamAIDW, NodeBytes: float64(unsafe.Sizeof(weigh.Lanes{})),
		Local: &AIDWPowers{AIDW: a}, LocalK: min(a.K, n)}
	if a.farFieldFor(n, rasterNodes) {
		f.far = a
	}
	return f, true
}

// DeviceParams implements DeviceAlgorithm: the global form, or the MaxPoints nearest within
// Radius, or every sample within Radius; the value band only (not the diagnostics).
func (a *AIDW) DeviceParams(p *Problem, b Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Adaptive: true, K: a.K, RMin: a.RMin, RMax: a.RMax, Alphas: a.Alphas,
		MaxPoints: a.MaxPoints, Radius: a.Radius, MinPoints: a.MinPoints, NoData: a.NodataValue,
		ExactHit: exactHitD2, FarField: a.FarField}
	switch {
	case a.MaxPoints > 0:
		d.Form = DeviceNearest
	case a.Radius > 0:
		d.Form = DeviceRadius
	}
	if a.Diagnostics {
		return d, false, "aidw's diagnostics bands are computed on the CPU only"
	}
	if p == nil {
		return d, true, ""
	}
	if err := a.Validate(); err != nil {
		return d, false, "aidw: " + err.Error()
	}
	n := p.sampleCount()
	d.K = min(a.K, n)
	d.Area = a.studyArea(b, p.Target)
	if p.Job != nil {
		d.Area = p.studyArea(a) // a tile of a larger job: the job's
	}
	if !(d.Area > 0) || math.IsInf(d.Area, 0) {
		return d, false, fmt.Sprintf("aidw: study area %g is not a positive finite number", d.Area)
	}
	d.RExp = ExpectedDistance(n, d.Area)
	return d, true, ""
}

// studyArea is StudyArea with the samples' bounding box given.
func (a *AIDW) studyArea(b Bounds, t raster.Target) float64 {
	if a.Area > 0 {
		return a.Area
	}
	if area := (b.MaxX - b.MinX) * (b.MaxY - b.MinY); area > 0 {
		return area
	}
	minX, minY, maxX, maxY := t.Extent()
	return (maxX - minX) * (maxY - minY)
}

// DefaultAIDW returns AIDW with every option at its default.
func DefaultAIDW() AIDW {
	a, _, err := ParseAlgorithm("aidw")
	if err != nil {
		panic(err)
	}
	return *a.(*AIDW)
}

func parseAIDW(kv *keyValues) (Algorithm, error) {
	a := AIDW{}
	a.K = kv.Int("k")
	a.Area = kv.Float("area")
	a.RMin = kv.Float("rmin")
	a.RMax = kv.Float("rmax")
	alphas := kv.Floats("alphas")
	a.MaxPoints = kv.Int("max_points")
	a.Radius = kv.Float("radius")
	a.MinPoints = kv.Int("min_points")
	a.NodataValue = kv.Float("nodata")
	a.Diagnostics = kv.YesNo("diagnostics")
	a.FarField = kv.YesNo("farfield")
	if kv.err != nil {
		return nil, kv.err
	}
	if err := kv.unknownError(); err != nil {
		return nil, err
	}
	if len(alphas) != len(a.Alphas) {
		return nil, fmt.Errorf("alphas=%s: need exactly %d numbers, got %d", formatFloats(alphas), len(a.Alphas), len(alphas))
	}
	copy(a.Alphas[:], alphas)
	if err := a.validate(kv.decl); err != nil {
		return nil, err
	}
	return &a, nil
}

// Validate checks every option, naming the one at fault: the ranges that aidwDeclaration
// declares, then the rules between options.
func (a *AIDW) Validate() error { return a.validate(&aidwDeclaration) }

// validate is Validate with the declaration passed in (parseAIDW's, which cannot name
// aidwDeclaration without an initialization cycle).
func (a *AIDW) validate(d *Declaration) error {
	if err := d.checkFields(a); err != nil {
		return err
	}
	switch {
	case a.RMax <= a.RMin:
		return fmt.Errorf("rmax=%g: must be a finite number greater than rmin=%g", a.RMax, a.RMin)
	case a.MaxPoints > 0 && a.MinPoints > a.MaxPoints:
		return fmt.Errorf("min_points=%d exceeds max_points=%d: every node would be nodata", a.MinPoints, a.MaxPoints)
	}
	return nil
}

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = fmt.Sprint(f)
	}
	return strings.Join(s, ",")
}

// Name implements Algorithm.
func (a *AIDW) Name() string { return "aidw" }

// NoData implements Algorithm.
func (a *AIDW) NoData() float64 { return a.NodataValue }

// BandNames names aidw's bands when Diagnostics asks for more than the value (see BandNames):
// the value, alpha, r_obs, R and the number of samples weighted.
func (a *AIDW) BandNames() []string {
	if !a.Diagnostics {
		return nil
	}
	return []string{"value", "alpha", "r_obs", "R", "neighbours"}
}

// local says whether the weighting neighbourhood is bounded (else every sample is weighted).
func (a *AIDW) local() bool { return a.MaxPoints > 0 || a.Radius > 0 }

// StudyArea is the area A behind r_exp: Area if set, else the area of the samples' bounding
// box, else (samples on a line or a point) the area of the target's extent.
func (a *AIDW) StudyArea(s *sample.Samples, t raster.Target) float64 {
	if a.Area > 0 {
		return a.Area
	}
	minX, minY, maxX, maxY := s.Bounds()
	if area := (maxX - minX) * (maxY - minY); area > 0 {
		return area
	}
	minX, minY, maxX, maxY = t.Extent()
	return (maxX - minX) * (maxY - minY)
}

// ExpectedDistance is r_exp, the mean nearest-neighbour distance of n samples spread at random
// over an area: 1 / (2 sqrt(n/area)).
func ExpectedDistance(n int, area float64) float64 {
	return 1 / (2 * math.Sqrt(float64(n)/area))
}

// MuFromR maps the statistic R onto mu in [0,1]: 0 up to rmin, 1 from rmax, a half cosine
// wave in between.
func MuFromR(R, rmin, rmax float64) float64 {
	switch {
	case R <= rmin:
		return 0
	case R >= rmax:
		return 1
	}
	return 0.5 - 0.5*math.Cos(math.Pi*(R-rmin)/(rmax-rmin))
}

// AlphaFromMu maps mu onto the power: a1 up to mu = 0.1, a5 from mu = 0.9, linear between
// consecutive levels over each step of 0.2 (Lu & Wong's equation as written, which is
// continuous; their published code uses a1 for a2 in the third piece).
func AlphaFromMu(mu float64, alphas [5]float64) float64 {
	if mu <= muKnots[0] {
		return alphas[0]
	}
	for i := 1; i < len(muKnots); i++ {
		if mu <= muKnots[i] {
			u := mu - muKnots[i-1]
			return alphas[i-1]*(1-5*u) + 5*alphas[i]*u
		}
	}
	return alphas[len(alphas)-1]
}

// AIDWNode is what AIDW finds at one node; diagnostics report its fields.
type AIDWNode struct {
	Value float64
	Alpha float64 // the adaptive power
	RObs  float64 // mean distance to the k nearest samples
	R     float64 // RObs / r_exp
	// Count is the number of samples weighted: 1 at an exact hit, and when below MinPoints
	// (or 0) the node is nodata.
	Count int
}

// aidwEvaluator is AIDW bound to one problem; it is read-only, so workers share it.
type aidwEvaluator struct {
	a    *AIDW
	s    *sample.Samples
	t    raster.Target
	ix   *grid.Index
	n    int     // samples a node is computed from
	k    int     // K clamped to n
	nq   int     // neighbours asked of the index per node: r_obs's and, for MaxPoints, the weighted
	rExp float64 // expected nearest-neighbour distance
	r2   float64 // squared weighting radius; +Inf when unbounded
	// box gives the samples' bounding box without a held-out one (bound for n-1 samples,
	// when the study area is derived from the box).
	box *boxWithout
	// ff, when set, sums the global form at the nodes inside its square (see farField).
	ff *farfield.Field
}

// farFieldThresholds are the least numbers of samples and of sample-node pairs at which the
// far field is used.
type farFieldThresholds struct {
	samples int
	pairs   float64
}

// farFieldFrom are the thresholds from which the far field is faster than the exact sums,
// whichever loop (weigh.Kernel) runs them: on the 2-core AMD EPYC, 12,800 samples onto 500 x
// 500 nodes (3.2e9 pairs) took 0.75 s with the far field and 1.46 s exactly with AVX-512
// (0.82 s and 2.64 s with AVX2), 25,600 onto 200 x 200 (1e9) 0.37 s and 0.46 s, and 12,800
// onto 200 x 200 (5e8) 0.43 s either way with AVX2.
func farFieldFrom() farFieldThresholds { return farFieldThresholds{10_000, 2e9} }

// farField builds the far field of the global form for nodeCount nodes (the raster's, or the
// samples' when each is predicted at its place without itself: the far field leaves it out of
// its sums as an exact hit), over the samples' box and the raster's extent, when the
// algorithm allows it and it pays (farFieldFrom). It is told every node's power first (see
// nodePowers): node(i) is node i's place and the sample it leaves out (-1: none). Its tree
// depends on those boxes, counts and powers alone, so every node's value is the same
// whichever block, tile or engine computes it.
func (e *aidwEvaluator) farField(ctx context.Context, p *Problem, nodeCount int, node func(i int) (x, y float64, skip int32)) error {
	n, nodes := e.s.Len(), float64(nodeCount)
	if !e.a.farFieldFor(n, nodes) {
		return nil
	}
	s := e.s // plain: the global form's
	pl, err := farfield.NewPlan(s.X, s.Y, s.Z, farfield.Options{
		AlphaMin: slices.Min(e.a.Alphas[:]), AlphaMax: slices.Max(e.a.Alphas[:])})
	if err != nil {
		return fmt.Errorf("aidw: %w", err)
	}
	xmin, ymin, xmax, ymax := p.Target.Extent()
	box := [4]float64{xmin - s.OriginX, ymin - s.OriginY, xmax - s.OriginX, ymax - s.OriginY}
	powers, err := e.nodePowers(ctx, nodeCount, node, pl.Powers(box, nodeCount))
	if err != nil {
		return err
	}
	if e.ff, err = pl.Field(ctx, box, int(nodes), powers); err != nil {
		return fmt.Errorf("aidw: %w", err)
	}
	return nil
}

// farFieldFor says whether the global form over n samples onto nodes nodes sums distant
// samples by the far field: the option allows it and it pays (farFieldFrom).
func (a *AIDW) farFieldFor(n int, nodes float64) bool {
	from := farFieldFrom()
	if a.farFieldAt != nil {
		from = *a.farFieldAt
	}
	return !a.local() && a.FarField && n >= from.samples && float64(n)*nodes >= from.pairs
}

// nodePowers tells powers the power of each of the count nodes (node(i): its place and the
// sample it leaves out), chunks of nodes shared out among the cores: where AIDW's powers stay
// at one level, the far field needs only that power's.
func (e *aidwEvaluator) nodePowers(ctx context.Context, count int, node func(i int) (x, y float64, skip int32), powers *farfield.Powers) (*farfield.Powers, error) {
	const chunk = 4096
	workers := runtime.GOMAXPROCS(0)
	parts := make([]*farfield.Powers, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		parts[w] = powers
		if w > 0 {
			parts[w] = powers.Empty()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &scratch{}
			for lo := int(next.Add(chunk) - chunk); lo < count && ctx.Err() == nil; lo = int(next.Add(chunk) - chunk) {
				for i := lo; i < min(lo+chunk, count); i++ {
					x, y, skip := node(i)
					var nd AIDWNode
					e.power(&nd, sc.knn(e.ix, x, y, e.k, math.Inf(1), skip), skip)
					parts[w].Add(x, y, nd.Alpha)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, part := range parts[1:] {
		powers.Merge(part)
	}
	return powers, nil
}

// bind binds AIDW without a far field: leave-one-out binds this way, and predicts samples,
// not the raster the far field would be built for.
func (a *AIDW) bind(p *Problem, ix *grid.Index) (bound, error) {
	return a.bindWith(context.Background(), p, ix, false)
}

// bindContext implements contextBinder for the engine's rasters: with the far field when it
// pays, its build stopped by ctx.
func (a *AIDW) bindContext(ctx context.Context, p *Problem, ix *grid.Index) (bound, error) {
	return a.bindWith(ctx, p, ix, true)
}

func (a *AIDW) bindWith(ctx context.Context, p *Problem, ix *grid.Index, far bool) (bound, error) {
	n := p.sampleCount()
	e, err := a.nodeEvaluator(ctx, p, ix, far)
	if err != nil {
		return nil, err
	}
	less := func(ctx context.Context) (nodeWithout, error) {
		e, err := a.evaluator(p, ix, n-1)
		if err != nil {
			return nil, err
		}
		// leave-one-out predicts each of the n samples at its place
		atSample := func(i int) (float64, float64, int32) { return e.s.X[i], e.s.Y[i], int32(i) }
		if err := e.farField(ctx, p, n, atSample); err != nil {
			return nil, err
		}
		return e.value, nil
	}
	return &skipping{f: e.value, less: less}, nil
}

// bindBands computes the value and the diagnostics bands: alpha, r_obs, R, neighbours.
func (a *AIDW) bindBands(p *Problem, ix *grid.Index) (bandsFunc, error) {
	return a.bindBandsWith(context.Background(), p, ix, false)
}

// bindBandsContext implements contextBinder, as bindContext.
func (a *AIDW) bindBandsContext(ctx context.Context, p *Problem, ix *grid.Index) (bandsFunc, error) {
	return a.bindBandsWith(ctx, p, ix, true)
}

func (a *AIDW) bindBandsWith(ctx context.Context, p *Problem, ix *grid.Index, far bool) (bandsFunc, error) {
	e, err := a.nodeEvaluator(ctx, p, ix, far)
	if err != nil {
		return nil, err
	}
	return func(sc *scratch, x, y float64, out []float64) {
		nd := e.node(sc, -1, x, y)
		out[0], out[1], out[2], out[3], out[4] = nd.Value, nd.Alpha, nd.RObs, nd.R, float64(nd.Count)
	}, nil
}

// nodeEvaluator is the evaluator of the problem's nodes from all its samples, with the far
// field of its raster when far asks for it and it pays.
func (a *AIDW) nodeEvaluator(ctx context.Context, p *Problem, ix *grid.Index, far bool) (*aidwEvaluator, error) {
	e, err := a.evaluator(p, ix, p.sampleCount())
	if err != nil {
		return nil, err
	}
	if far {
		cols := p.Target.Cols
		atNode := func(i int) (float64, float64, int32) {
			x, y := p.NodeXY(i%cols, i/cols)
			return x, y, -1
		}
		if err := e.farField(ctx, p, cols*p.Target.Rows, atNode); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// evaluator binds AIDW to the problem for n samples: all of them, or all but one held out
// (n-1), whose study area, when derived from the samples' box, is then that of the others.
func (a *AIDW) evaluator(p *Problem, ix *grid.Index, n int) (*aidwEvaluator, error) {
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("aidw: %w", err)
	}
	if n <= 0 {
		return nil, fmt.Errorf("aidw: no samples")
	}
	area := p.studyArea(a)
	if !(area > 0) || math.IsInf(area, 0) {
		return nil, fmt.Errorf("aidw: study area %g is not a positive finite number", area)
	}
	e := &aidwEvaluator{a: a, s: p.Samples, t: p.Target, ix: ix, n: n, k: min(a.K, n),
		rExp: ExpectedDistance(n, area), r2: math.Inf(1)}
	if !a.local() {
		e.s = p.Samples.Plain() // weigh.Sum loops over every sample
	}
	if n < p.Samples.Len() && a.Area == 0 {
		e.box = newBoxWithout(p.Samples)
	}
	e.nq = e.k
	if a.MaxPoints > 0 {
		e.nq = max(e.k, min(a.MaxPoints, n))
	}
	if a.Radius > 0 {
		e.r2 = a.Radius * a.Radius
	}
	return e, nil
}

// power sets the node's r_obs, R and power from its k nearest samples, nb (by distance).
func (e *aidwEvaluator) power(nd *AIDWNode, nb []grid.Neighbor, skip int32) {
	for _, n := range nb[:e.k] {
		nd.RObs += math.Sqrt(n.D2)
	}
	nd.RObs /= float64(e.k)
	nd.R = nd.RObs / e.expectedDistance(skip)
	nd.Alpha = AlphaFromMu(MuFromR(nd.R, e.a.RMin, e.a.RMax), e.a.Alphas)
}

// value is node's value.
func (e *aidwEvaluator) value(sc *scratch, skip int32, x, y float64) float64 {
	return e.node(sc, skip, x, y).Value
}

// node computes AIDW at (x,y), relative to the samples' origin, without sample skip (-1:
// none). One index query gives both r_obs and, for MaxPoints, the weighting neighbourhood.
func (e *aidwEvaluator) node(sc *scratch, skip int32, x, y float64) AIDWNode {
	sc.nb = sc.knn(e.ix, x, y, e.nq, math.Inf(1), skip)
	nb := sc.nb
	var nd AIDWNode
	e.power(&nd, nb, skip)
	nearest := nb[0]
	if nearest.D2 < exactHitD2 {
		nd.Value, nd.Count = e.exactHit(sc, skip, x, y, nearest.ID), 1
		return nd
	}
	// Weights relative to the nearest sample's, (d2/d2min)^(-alpha/2) = 2^(c*log2(d2) + c0),
	// give the same mean and never overflow, whatever alpha.
	c := -nd.Alpha / 2
	c0 := -c * fastmath.Log2Pos(nearest.D2)
	var sw, swz float64
	switch {
	case !e.a.local() && e.ff != nil && e.ff.Contains(x, y) && (skip < 0 || e.s.X[skip] == x && e.s.Y[skip] == y):
		// a held-out sample at the node is an exact hit to the far field, which leaves it out
		// absolute weights: far below overflow for any distance past exactHitD2
		swz, sw, _ = e.ff.At(sc.farScratch(e.ff), x, y, nd.Alpha)
		nd.Count = e.n
	case !e.a.local():
		sw, swz = e.weighAll(skip, x, y, c, c0)
		nd.Count = e.n
	case e.a.MaxPoints > 0:
		nb = nb[:min(len(nb), e.a.MaxPoints)]
		for len(nb) > 0 && nb[len(nb)-1].D2 > e.r2 {
			nb = nb[:len(nb)-1]
		}
		sw, swz = weighNeighbors(nb, e.s.Z, c, c0)
		nd.Count = len(nb)
	default:
		sc.nb = sc.within(e.ix, x, y, e.r2, skip)
		sw, swz = weighNeighbors(sc.nb, e.s.Z, c, c0)
		nd.Count = len(sc.nb)
	}
	if nd.Count == 0 || nd.Count < e.a.MinPoints {
		nd.Value = e.a.NodataValue
		return nd
	}
	nd.Value = swz / sw
	return nd
}

// expectedDistance is r_exp for the node: with sample skip held out, that of the n-1 others
// over their own study area.
func (e *aidwEvaluator) expectedDistance(skip int32) float64 {
	if skip < 0 || e.box == nil {
		return e.rExp
	}
	area := e.box.area(skip)
	if !(area > 0) {
		xmin, ymin, xmax, ymax := e.t.Extent()
		area = (xmax - xmin) * (ymax - ymin)
	}
	return ExpectedDistance(e.n, area)
}

// weighAll weighs every sample but skip (-1: none): the loop runs on either side of it, so
// that it never enters the sums (it lies on the node: its weight is infinite, and no later
// subtraction could take it out again).
func (e *aidwEvaluator) weighAll(skip int32, x, y, c, c0 float64) (sw, swz float64) {
	xs, ys, zs := e.s.X, e.s.Y, e.s.Z
	if skip < 0 {
		return weigh.Sum(xs, ys, zs, x, y, c, c0)
	}
	sw, swz = weigh.Sum(xs[:skip], ys[:skip], zs[:skip], x, y, c, c0)
	sw1, swz1 := weigh.Sum(xs[skip+1:], ys[skip+1:], zs[skip+1:], x, y, c, c0)
	return sw + sw1, swz + swz1
}

// exactHit returns the value of the first sample, in input order, within gdal_grid's exact-hit
// distance of (x,y); nearest is one such sample. As in gdal_grid, an exact hit wins over the
// neighbourhood rules.
func (e *aidwEvaluator) exactHit(sc *scratch, skip int32, x, y float64, nearest int32) float64 {
	first := nearest
	sc.nb = sc.within(e.ix, x, y, exactHitD2, skip)
	for _, n := range sc.nb {
		if n.D2 < exactHitD2 && n.ID < first {
			first = n.ID
		}
	}
	return e.s.Z[first]
}

// weighNeighbors is weigh.SumGo over a neighbour list.
func weighNeighbors(nb []grid.Neighbor, zs []float64, c, c0 float64) (sw, swz float64) {
	for _, n := range nb {
		w := fastmath.Exp2(fastmath.FloorExp2(c*fastmath.Log2Pos(n.D2) + c0))
		sw, swz = sw+w, swz+w*zs[n.ID]
	}
	return sw, swz
}
