package interp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/internal/fastmath"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// InvDist is gdal_grid's invdist: inverse distance to a power, Z = sum(z_i/r_i^p) / sum(1/r_i^p)
// with r_i^2 = d_i^2 + smoothing^2, over gdal's search ellipse (see searchArea), or over every
// sample when both radii are 0. As in gdal 3.6:
//   - without radii, max_points and min_points are ignored, and the first sample in input order
//     with r^2 < 1e-13 gives its value (with power 2 and smoothing > 0 there is no such test);
//   - with radii, samples are taken in input order (not by distance): the first with
//     r^2 < 1e-13 gives its value, and the sum stops after max_points+1 samples;
//   - fewer than min_points samples, or none, give nodata.
type InvDist struct {
	Power, Smoothing        float64
	Radius1, Radius2, Angle float64
	MaxPoints, MinPoints    int
	NodataValue             float64
	// FarField lets leave-one-out of the all-samples form sum distant samples by
	// interp/farfield's expansion (see invDistAll.holdOut) instead of one by one.
	FarField bool
	// farFieldAt, when positive, replaces invDistFarFieldFrom (tests).
	farFieldAt int
}

// InvDistNN is gdal_grid's invdistnn: the same weights over the max_points nearest samples
// (ordered by r^2 = d^2 + smoothing^2) within Radius, with gdal 3.6's per-quadrant options:
//   - the first sample in gdal's quadtree order with r^2 < 1e-13 within the square of half-side
//     Radius gives its value;
//   - with min/max_points_per_quadrant, the nearest samples are taken from the four quadrants
//     in turn (see quadrantPick), and a quadrant with fewer than MinPerQuadrant gives nodata;
//   - fewer than min_points samples, or none, give nodata.
type InvDistNN struct {
	Power, Smoothing, Radius float64
	MaxPoints, MinPoints     int
	NodataValue              float64
	QuadrantLimits
}

var invDistDeclaration = Declaration{
	Name: "invdist",
	Help: "inverse distance to a power over the search ellipse, or every sample",
	GDAL: true,
	Options: options(
		weightOptions(),
		invDistEllipseOptions(),
		[]Option{
			{Name: "max_points", Type: TypeInt, Default: "0", Min: limit(0), Field: "MaxPoints",
				Help: "with a search ellipse, stop after max_points + 1 samples in input order (0: no limit)"},
			minPointsOption(),
		},
		invDistQuadrantOptions(),
		[]Option{nodataOption(),
			{Name: "farfield", Type: TypeYesNo, Default: "yes", Field: "FarField",
				Help: "the all-samples form without smoothing sums distant samples by a far-field expansion: leave-one-out (aidw cv) on the CPU from 50,000 samples, within 1e-9 of the exact sum; a large raster on the GPU, within 1e-6; no sums every sample exactly (the CPU sums rasters exactly either way)"}},
	),
	GPU: &GPUForm{Accuracy: GPUWithin1e5,
		Forms: "the all-samples form (no search ellipse), in float32 within 1e-5 (AIDW_GPU_FLOAT64=1: within 1e-12); with a search ellipse the CPU engine"},
	parse: parseInvDist,
}

// weightOptions are the keys of inverse-distance weights that invdist and invdistnn share.
func weightOptions() []Option {
	return []Option{
		{Name: "power", Type: TypeFloat, Default: "2", Min: limit(0), Field: "Power", Help: "weighting power"},
		{Name: "smoothing", Type: TypeFloat, Default: "0", Min: limit(0), Field: "Smoothing",
			Help: "smoothing: distances are sqrt(d^2 + smoothing^2)"},
	}
}

// invDistEllipseOptions are the search ellipse's keys, with gdal 3.6's quirk: invdist reads
// radius, but it is missing from gdal's list of invdist's keys, so gdal warns about it.
func invDistEllipseOptions() []Option {
	e := ellipseOptions()
	e[0].Ignored = true
	e[0].Help = "sets radius1 and radius2 (gdal_grid 3.6 reads it, yet warns that it is ignored)"
	return e
}

// invDistQuadrantOptions are invdist's per-quadrant keys: given, gdal 3.6 runs invdistnn.
func invDistQuadrantOptions() []Option {
	q := quadrantOptions()
	for i := range q {
		// Given at all, they select invdistnn (see invDistAsNN), which drops them.
		q[i].Field, q[i].Default, q[i].Min = "", "", nil
		q[i].Help = "given (any value), runs invdistnn with radius (default 1) and max_points (default 12) instead, as gdal_grid 3.6 does"
	}
	return q
}

var invDistNNDeclaration = Declaration{
	Name: "invdistnn",
	Help: "inverse distance to a power over the nearest samples within a radius",
	GDAL: true,
	Options: options(
		weightOptions(),
		[]Option{
			{Name: "radius", Type: TypeFloat, Default: "1", Min: limit(0), MinExclusive: true, Field: "Radius",
				Invalid: "Radius value should be strictly positive", Help: "radius of the search circle"},
			{Name: "max_points", Type: TypeInt, Default: "12", Min: limit(0), Field: "MaxPoints",
				Help: "weigh at most the max_points nearest samples"},
			minPointsOption(),
		},
		quadrantOptions(),
		[]Option{nodataOption()},
	),
	parse: parseInvDistNN,
}

// Reach implements Reacher: the search ellipse, summed in the index's cell order unless
// max_points stops it in input order; every sample without one.
func (a *InvDist) Reach(n int) Reach {
	return ellipseReach(n, a.Radius1, a.Radius2, a.Angle, a.MaxPoints == 0)
}

// streamForm implements streamer: the all-samples form streams its kernels' sums, and holds
// its far-field tree's sums for a tile where the tree pays.
func (a *InvDist) streamForm(n int, _ float64) (StreamForm, bool) {
	if a.Radius1 != 0 || a.Radius2 != 0 {
		return StreamForm{}, false
	}
	return StreamForm{kind: streamInvDist, NodeBytes: invDistStreamBytes(a, n),
		tileBytes: func(t raster.Target, side int) float64 {
			if a.Power > farMaxPower || !farTreeRaster(t) {
				return 0
			}
			return farStreamBytes(newFarSums(a), t, side)
		}}, true
}

// DeviceParams implements DeviceAlgorithm: invdist over every sample (no search ellipse).
func (a *InvDist) DeviceParams(p *Problem, b Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Power: a.Power, Smooth2: a.Smoothing * a.Smoothing, NoData: a.NodataValue,
		ExactHit: exactHitD2, FarField: a.FarField}
	if a.Power == 2 && d.Smooth2 > 0 {
		d.ExactHit = -1 // gdal's power-2 smoothing loop has no exact-hit test
	}
	if a.Radius1 != 0 || a.Radius2 != 0 {
		return d, false, "invdist with a search ellipse runs on the CPU only"
	}
	return d, true, ""
}

// Reach implements Reacher: the max_points nearest within gdal's quadtree square of the
// radius.
func (a *InvDistNN) Reach(int) Reach {
	return Reach{Kind: ReachRadius, Halo: math.Sqrt2 * a.Radius}
}

// Name implements Algorithm.
func (a *InvDist) Name() string { return "invdist" }

// NoData implements Algorithm.
func (a *InvDist) NoData() float64 { return a.NodataValue }

// Name implements Algorithm.
func (a *InvDistNN) Name() string { return "invdistnn" }

// NoData implements Algorithm.
func (a *InvDistNN) NoData() float64 { return a.NodataValue }

func parseInvDist(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	if o.has("min_points_per_quadrant") || o.has("max_points_per_quadrant") {
		return invDistAsNN(o)
	}
	a := &InvDist{Power: o.float("power"), Smoothing: o.float("smoothing")}
	a.Radius1, a.Radius2 = o.radii()
	a.Angle = o.float("angle")
	a.MaxPoints = o.int("max_points")
	a.MinPoints = o.int("min_points")
	a.NodataValue = o.nodata()
	a.FarField = kv.YesNo("farfield")
	if kv.err != nil {
		return nil, kv.err
	}
	o.warnUnknown() // gdal 3.6's list of invdist keys lacks "radius", which it reads nonetheless
	return a, nil
}

// invDistAsNN is gdal 3.6's remapping of invdist with per-quadrant keys to invdistnn: radius
// (else radius1, which must equal radius2, both 1 by default), no angle, and only power,
// smoothing, max_points, min_points and nodata carried over, so that the per-quadrant keys
// themselves are dropped and max_points defaults to invdistnn's 12.
func invDistAsNN(o gdalOptions) (Algorithm, error) {
	nn := &invDistNNDeclaration
	radius := o.number("radius", nn.Option("radius").defaultFloat())
	if !o.has("radius") {
		r1, r2 := o.number("radius1", radius), o.number("radius2", radius)
		if r1 != r2 {
			return nil, fmt.Errorf("radius1 != radius2 not supported when min_points_per_quadrant and/or max_points_per_quadrant is specified")
		}
		radius = r1
	}
	if o.float("angle") != 0 {
		return nil, fmt.Errorf("angle != 0 not supported when min_points_per_quadrant and/or max_points_per_quadrant is specified")
	}
	a := &InvDistNN{Power: o.float("power"), Smoothing: o.float("smoothing"), Radius: radius}
	a.MaxPoints = o.count("max_points", int(nn.Option("max_points").defaultFloat()))
	a.MinPoints = o.int("min_points")
	a.NodataValue = o.nodata()
	return a, a.check(o)
}

func parseInvDistNN(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	a := &InvDistNN{Power: o.float("power"), Smoothing: o.float("smoothing"), Radius: o.float("radius")}
	a.MaxPoints = o.int("max_points")
	a.MinPoints = o.int("min_points")
	a.NodataValue = o.nodata()
	a.QuadrantLimits = o.quadrants()
	if err := a.check(o); err != nil {
		return nil, err
	}
	o.warnUnknown()
	return a, nil
}

func (a *InvDistNN) check(o gdalOptions) error {
	if o.kv.err != nil {
		return o.kv.err
	}
	if !(a.Radius > 0) {
		return fmt.Errorf("Radius value should be strictly positive")
	}
	return nil
}

// invPower computes gdal's weights 1/pow(r2, p/2): exactly for power 2, by products and one
// square root for whole powers up to 8 (within a few ulps), else by log2 and exp2 (within
// 1e-14), falling back to math.Pow where exp2 would leave its range, so that weights
// underflow and overflow where gdal's do.
type invPower struct {
	half  float64 // p/2
	whole int     // p when it is a whole number <= 8, else -1
}

func newInvPower(p float64) invPower {
	w := -1
	if p == math.Trunc(p) && p <= 8 {
		w = int(p)
	}
	return invPower{half: p / 2, whole: w}
}

func (w invPower) weight(r2 float64) float64 {
	switch w.whole {
	case 2:
		return 1 / r2
	case 0:
		return 1
	case 1:
		return 1 / math.Sqrt(r2)
	}
	if w.whole > 0 {
		p := r2
		for i := 4; i <= w.whole; i += 2 {
			p *= r2
		}
		if w.whole%2 == 1 {
			p *= math.Sqrt(r2)
		}
		return 1 / p
	}
	if r2 >= 0x1p-1022 {
		if t := -w.half * fastmath.Log2Pos(r2); t > -1000 && t < 1000 {
			return fastmath.Exp2(t)
		}
	}
	return 1 / math.Pow(r2, w.half)
}

func (a *InvDist) bind(p *Problem, ix *grid.Index) (bound, error) {
	if a.Radius1 == 0 && a.Radius2 == 0 {
		return a.bindAll(p, ix), nil
	}
	return &skipping{f: a.bindSearch(p.Samples, ix)}, nil
}

// bindSearch is gdal's GDALGridInverseDistanceToAPower: the samples of the search ellipse in
// input order, leaving out skip (-1: none). Nothing in it depends on the number of samples, so
// that it holds a sample out as it is.
func (a *InvDist) bindSearch(s *sample.Samples, ix *grid.Index) nodeWithout {
	area := searchArea{R1: a.Radius1, R2: a.Radius2, Angle: a.Angle}
	w := newInvPower(a.Power)
	s2 := a.Smoothing * a.Smoothing
	if a.MaxPoints == 0 {
		return func(sc *scratch, skip int32, x, y float64) float64 {
			// Without max_points the order only decides which exact hit counts: the first.
			sc.nb = without(area.collect(ix, x, y, sc.nb), skip)
			var num, den float64
			hit := int32(-1)
			for _, nb := range sc.nb {
				r2 := nb.D2 + s2
				if r2 < exactHitD2 {
					if hit < 0 || nb.ID < hit {
						hit = nb.ID
					}
					continue
				}
				wi := w.weight(r2)
				num += wi * s.Z[nb.ID]
				den += wi
			}
			if hit >= 0 {
				return s.Z[hit]
			}
			if len(sc.nb) < a.MinPoints || den == 0 {
				return a.NodataValue
			}
			return num / den
		}
	}
	return func(sc *scratch, skip int32, x, y float64) float64 {
		sc.nb = without(area.find(ix, x, y, sc.nb), skip)
		var num, den float64
		n := 0
		for _, nb := range sc.nb {
			r2 := nb.D2 + s2
			if r2 < exactHitD2 {
				return s.Z[nb.ID]
			}
			wi := w.weight(r2)
			num += wi * s.Z[nb.ID]
			den += wi
			n++
			if a.MaxPoints > 0 && n > a.MaxPoints {
				break
			}
		}
		if n < a.MinPoints || den == 0 {
			return a.NodataValue
		}
		return num / den
	}
}

// invDistAll is gdal's GDALGridInverseDistanceToAPowerNoSearch bound to a problem: every
// sample, in input order. The raster's nodes come from the far-field tree (see farTree) where
// it pays and applies; else, with power 2 on a north-up raster, 8 of a row at a time (see
// batches); else one by one, as any other place does.
type invDistAll struct {
	a  *InvDist
	p  *Problem
	s  *sample.Samples // in the plain form
	s2 float64         // smoothing squared
	// sums is gdal's loop at one place, with its exact-hit rule; one runs it.
	sums oneSums
	one  func(x, y float64) float64
	// allBut is one over every sample but j.
	allBut func(j int32, x, y float64) float64
	tree   *farTree
	// rows says that the raster's nodes go 8 of a row at a time through idw2Row.
	rows bool
	ix   *grid.Index
}

func (a *InvDist) bindAll(p *Problem, ix *grid.Index) *invDistAll {
	s := p.Samples.Plain()
	d := &invDistAll{a: a, p: p, s: s, s2: a.Smoothing * a.Smoothing, ix: ix, sums: newOneSums(a, s.Len())}
	d.one = func(x, y float64) float64 { return d.value(d.sums.all(s.X, s.Y, s.Z, x, y)) }
	if a.Power == 2 {
		d.allBut = func(j int32, x, y float64) float64 { return a.allButOne(s, j, x, y) }
		d.tree = newFarTree(p, s, ix, newFarSums(a), d.one, a.finish)
		d.rows = northUp(p.Target)
		return d
	}
	// The loop one sample at a time runs on either side of the held-out sample.
	d.allBut = func(j int32, x, y float64) float64 {
		var acc [2]float64
		if h := d.sums.add(s.X[:j], s.Y[:j], s.Z[:j], x, y, acc[:]); h >= 0 {
			return s.Z[h]
		}
		if h := d.sums.add(s.X[j+1:], s.Y[j+1:], s.Z[j+1:], x, y, acc[:]); h >= 0 {
			return s.Z[int(j)+1+h]
		}
		return d.value(d.sums.end(nil, nil, nil, x, y, acc[:]))
	}
	if a.Power <= farMaxPower {
		d.tree = newFarTree(p, s, ix, newFarSums(a), d.one, a.finish)
	}
	return d
}

// value is the node's value from its sums, or its exact hit.
func (d *invDistAll) value(num, den float64, hit int) float64 {
	if hit >= 0 {
		return d.s.Z[hit]
	}
	return d.a.finish(num, den)
}

// node implements bound: a place that is not a raster node gets gdal's loop.
func (d *invDistAll) node(_ *scratch, x, y float64) float64 { return d.one(x, y) }

// holdOut implements holdOut: gdal's loop runs on either side of the held-out sample; or, for a
// held-out sample at its own place (as cross-validation asks), the far field, which leaves it
// out of its sums as an exact hit, unless another sample is an exact hit there too (then gdal's
// loop decides which gives its value).
func (d *invDistAll) holdOut(ctx context.Context) (nodeWithout, error) {
	f, err := d.farField(ctx)
	if err != nil || f == nil {
		return func(_ *scratch, j int32, x, y float64) float64 { return d.allBut(j, x, y) }, err
	}
	return func(sc *scratch, j int32, x, y float64) float64 {
		if d.s.X[j] != x || d.s.Y[j] != y || !f.Contains(x, y) || len(sc.within(d.ix, x, y, exactHitD2, j)) > 0 {
			return d.allBut(j, x, y)
		}
		num, den, _ := f.At(sc.farScratch(f), x, y, d.a.Power)
		return d.a.finish(num, den)
	}, nil
}

// invDistFarFieldFrom is the least number of samples at which leave-one-out uses the far
// field: below it every held-out sample's exact sums take less than its plan and tree.
const invDistFarFieldFrom = 50_000

// farField builds the far field for leave-one-out when the option allows it and it pays:
// no smoothing (the far field's weights are |d|^-power), a power it takes, enough samples.
func (d *invDistAll) farField(ctx context.Context) (*farfield.Field, error) {
	a, s := d.a, d.s
	from := invDistFarFieldFrom
	if a.farFieldAt > 0 {
		from = a.farFieldAt
	}
	if !a.FarField || a.Smoothing != 0 || !(a.Power > 0 && a.Power <= 16) || s.Len() < from {
		return nil, nil
	}
	pl, err := farfield.NewPlan(s.X, s.Y, s.Z, farfield.Options{AlphaMin: a.Power, AlphaMax: a.Power})
	if err != nil {
		return nil, fmt.Errorf("invdist: %w", err)
	}
	minX, minY, maxX, maxY := s.Bounds()
	box := [4]float64{minX - s.OriginX, minY - s.OriginY, maxX - s.OriginX, maxY - s.OriginY}
	f, err := pl.Field(ctx, box, s.Len(), nil)
	if err != nil {
		return nil, fmt.Errorf("invdist: %w", err)
	}
	return f, nil
}

// span implements spanner.
func (d *invDistAll) span(_ *scratch, row, col0, col1 int, skip []bool, out []float64) {
	switch {
	case d.tree != nil:
		d.tree.span(row, col0, col1, skip, out)
	case d.rows:
		d.batches(row, col0, col1, skip, out)
	default:
		for c := col0; c < col1; c++ {
			if skip == nil || !skip[c-col0] {
				x, y := d.p.NodeXY(c, row)
				out[c-col0] = d.one(x, y)
			}
		}
	}
}

// batchNodes is how many nodes of a row idw2Row sums at once.
const batchNodes = 8

// batches computes power 2's nodes of a row 8 at a time through idw2Row: the batches start at
// columns that are multiples of 8 and run to the row's end at most, their last node repeated
// past that. idw2Row pairs nodes that share a division, so a node's last bits depend on its
// partners: batches fixed by the column alone give a node one value whatever span, mask, tile
// or device asks for it.
func (d *invDistAll) batches(row, col0, col1 int, skip []bool, out []float64) {
	cols := d.p.Target.Cols
	_, y := d.p.NodeXY(col0, row)
	var nx, num, den, v [batchNodes]float64
	b0, bn := 0, 0 // the batch's first column and how many real nodes it holds
	for c := col0; c < col1; c++ {
		if skip != nil && skip[c-col0] {
			continue
		}
		if c >= b0+bn {
			b0 = c - c%batchNodes
			bn = min(batchNodes, cols-b0)
			for k := range nx {
				nx[k], _ = d.p.NodeXY(b0+min(k, bn-1), row)
			}
			idw2Row(d.s.X, d.s.Y, d.s.Z, &nx, y, d.s2, &num, &den)
			for k := range bn {
				if den[k] < 1/exactHitD2 && den[k] > 0 {
					v[k] = d.a.finish(num[k], den[k])
				} else {
					v[k] = d.one(nx[k], y) // an exact hit, or close to one: gdal's own loop decides
				}
			}
		}
		out[c-col0] = v[c-b0]
	}
}

// northUp says whether the target's nodes lie in rows of one y and columns of one x.
func northUp(t raster.Target) bool {
	g := t.GeoTransform
	return g[2] == 0 && g[4] == 0 && g[1] != 0 && g[5] != 0
}

// rowAdd adds the far-field tree's sums for these weights (see farSums) to num and den: a
// point within gdal's exact-hit distance of a sample gets den = +Inf, so that the tree leaves
// it to gdal's loop.
func (w invPower) rowAdd(xs, ys, zs []float64, px *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	n, d := *num, *den
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	for i, xi := range xs {
		dy := ys[i] - y
		e := float64(dy*dy) + s2
		for k, x := range px {
			dx := xi - x
			r2 := float64(dx*dx) + e
			if r2 < exactHitD2 {
				d[k] = math.Inf(1)
				continue
			}
			wi := w.weight(r2)
			n[k] += wi * zs[i]
			d[k] += wi
		}
	}
	*num, *den = n, d
}

func (a *InvDist) finish(num, den float64) float64 {
	if den == 0 {
		return a.NodataValue
	}
	return num / den
}

// allButOne is the power-2 sum over every sample but the held-out one, id: the loops run on
// either side of it, which keeps gdal's exact-hit rule (the first hit in input order).
func (a *InvDist) allButOne(s *sample.Samples, id int32, x, y float64) float64 {
	xs, ys, zs := s.X, s.Y, s.Z
	lo, hi := int(id), int(id)+1
	s2 := a.Smoothing * a.Smoothing
	if s2 > 0 {
		num, den := idw2SmoothAll(xs[:lo], ys[:lo], zs[:lo], x, y, s2)
		num1, den1 := idw2SmoothAll(xs[hi:], ys[hi:], zs[hi:], x, y, s2)
		return a.finish(num+num1, den+den1)
	}
	num, den, hit := idw2All(xs[:lo], ys[:lo], zs[:lo], x, y)
	if hit >= 0 {
		return zs[hit]
	}
	num1, den1, hit := idw2All(xs[hi:], ys[hi:], zs[hi:], x, y)
	if hit >= 0 {
		return zs[hi+hit]
	}
	return a.finish(num+num1, den+den1)
}

func (a *InvDistNN) bind(p *Problem, ix *grid.Index) (bound, error) {
	s := p.Samples
	e := &invDistNNEval{a: a, s: s, ix: ix, w: newInvPower(a.Power), s2: a.Smoothing * a.Smoothing,
		r2: a.Radius * a.Radius, order: p.newGDALOrder()}
	// Nothing here depends on the number of samples: a sample is held out as it is.
	if a.active() {
		return &skipping{f: e.quadrants}, nil
	}
	return &skipping{f: e.nearest}, nil
}

// invDistNNEval is InvDistNN bound to a problem.
type invDistNNEval struct {
	a     *InvDistNN
	s     *sample.Samples
	ix    *grid.Index
	w     invPower
	s2    float64 // smoothing squared
	r2    float64 // radius squared
	order *gdalOrder
}

// mayHit says whether gdal might take a sample as is, given the node's nearest sample within
// the radius (D2 +Inf when none): a tiny radius lets samples outside it, but within its
// square, be taken.
func (e *invDistNNEval) mayHit(nearest float64) bool {
	return nearest+e.s2 < exactHitD2 || e.r2 < exactHitD2
}

// hit returns the sample that gdal takes as is at (x,y), or -1: the first in gdal's quadtree
// order within the search square with d2 + s2 < 1e-13. It overwrites sc.nb.
func (e *invDistNNEval) hit(sc *scratch, skip int32, x, y float64) int32 {
	sc.nb = sc.within(e.ix, x, y, exactHitD2, skip)
	best := int32(-1)
	for _, nb := range sc.nb {
		// a single candidate needs no order
		if nb.D2+e.s2 < exactHitD2 && inSquare(e.s, nb.ID, x, y, e.a.Radius) && (best < 0 || e.order.compare(nb.ID, best) < 0) {
			best = nb.ID
		}
	}
	return best
}

// nearest is gdal's GDALGridInverseDistanceToAPowerNearestNeighbor.
func (e *invDistNNEval) nearest(sc *scratch, skip int32, x, y float64) float64 {
	a := e.a
	k := a.MaxPoints + 1
	if a.MaxPoints == 0 {
		k = math.MaxInt
	}
	sc.nb = sc.knn(e.ix, x, y, k, e.r2, skip)
	if e.mayHit(nearestD2(sc.nb)) {
		if h := e.hit(sc, skip, x, y); h >= 0 {
			return e.s.Z[h]
		}
		sc.nb = sc.knn(e.ix, x, y, k, e.r2, skip)
	}
	nb := sc.nb
	for i := range nb {
		nb[i].D2 += e.s2
	}
	if a.MaxPoints > 0 && len(nb) > a.MaxPoints {
		if nb[a.MaxPoints-1].D2 == nb[a.MaxPoints].D2 {
			nb = e.tiedNearest(sc, skip, x, y)
		}
		nb = nb[:a.MaxPoints]
	}
	var num, den float64
	for _, n := range nb {
		w := e.w.weight(n.D2)
		num += w * e.s.Z[n.ID]
		den += w
	}
	return e.value(len(nb), num, den)
}

// nearestD2 is the smallest D2 in nb (sorted ascending), +Inf when nb is empty.
func nearestD2(nb []grid.Neighbor) float64 {
	if len(nb) == 0 {
		return math.Inf(1)
	}
	return nb[0].D2
}

// tiedNearest returns every sample within the radius sorted as gdal's multimap holds them, by
// d2 + s2 and then gdal's order: needed when a tie straddles max_points.
func (e *invDistNNEval) tiedNearest(sc *scratch, skip int32, x, y float64) []grid.Neighbor {
	sc.nb = sc.within(e.ix, x, y, e.r2, skip)
	for i := range sc.nb {
		sc.nb[i].D2 += e.s2
	}
	slices.SortFunc(sc.nb, func(a, b grid.Neighbor) int {
		if c := cmp.Compare(a.D2, b.D2); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	e.order.sortTies(sc.nb)
	return sc.nb
}

// quadrants is gdal's GDALGridInverseDistanceToAPowerNearestNeighborPerQuadrant.
func (e *invDistNNEval) quadrants(sc *scratch, skip int32, x, y float64) float64 {
	sc.nb = sc.within(e.ix, x, y, e.r2, skip)
	nearest := math.Inf(1)
	for _, n := range sc.nb {
		nearest = min(nearest, n.D2)
	}
	if e.mayHit(nearest) {
		if h := e.hit(sc, skip, x, y); h >= 0 {
			return e.s.Z[h]
		}
		sc.nb = sc.within(e.ix, x, y, e.r2, skip)
	}
	for i := range sc.nb {
		sc.nb[i].D2 += e.s2
	}
	pick := pickQuadrants(sc, sc.nb, e.s, x, y, e.a.QuadrantLimits, e.a.MaxPoints, e.order)
	if !pick.ok(e.a.MinPerQuadrant) {
		return e.a.NodataValue
	}
	var num, den float64
	for _, j := range pick.Order {
		n := sc.nb[j]
		w := e.w.weight(n.D2)
		num += w * e.s.Z[n.ID]
		den += w
	}
	return e.value(len(pick.Order), num, den)
}

// value is the weighted mean of n samples, or nodata for fewer than min_points or none.
func (e *invDistNNEval) value(n int, num, den float64) float64 {
	if n < e.a.MinPoints || den == 0 {
		return e.a.NodataValue
	}
	return num / den
}
