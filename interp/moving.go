package interp

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// Average is gdal_grid's average (moving average): the mean of the samples in the search
// ellipse (every sample when both radii are 0); fewer than MinPoints, or none, give nodata.
// With min/max_points_per_quadrant (gdal 3.6) the samples are picked from the four quadrants
// in turn, nearest first, at most MaxPoints in all (see quadrantPick); otherwise MaxPoints is
// ignored, with gdal's warning.
type Average struct {
	Radius1, Radius2, Angle float64
	MinPoints, MaxPoints    int
	NodataValue             float64
	QuadrantLimits
}

// Metric is one of gdal_grid's data metrics over the samples in the search ellipse (every
// sample when both radii are 0): minimum, maximum, range, count, average_distance (mean
// distance from the node) or average_distance_pts (mean distance between pairs of samples).
// Fewer than MinPoints samples (pairs for average_distance_pts), or none except for count,
// give nodata. min/max_points_per_quadrant pick the samples as for Average.
//
// average_distance_pts keeps gdal 3.6's quirk above 100 samples without rotation (its quadtree
// search): there it also counts each sample paired with itself, except the last sample of the
// search square in gdal's quadtree order, so that q samples give q(q+1)/2 or q(q+1)/2-1 pairs.
type Metric struct {
	Kind                    MetricKind
	Radius1, Radius2, Angle float64
	MinPoints               int
	NodataValue             float64
	QuadrantLimits
}

// MetricKind names a data metric as gdal_grid does.
type MetricKind string

// The data metrics of gdal_grid.
const (
	Minimum            MetricKind = "minimum"
	Maximum            MetricKind = "maximum"
	Range              MetricKind = "range"
	Count              MetricKind = "count"
	AverageDistance    MetricKind = "average_distance"
	AverageDistancePts MetricKind = "average_distance_pts"
)

var averageDeclaration = Declaration{
	Name: "average",
	Help: "moving average: the mean of the samples in the search ellipse",
	GDAL: true,
	Options: options(ellipseOptions(), []Option{
		minPointsOption(),
		{Name: "max_points", Type: TypeInt, Default: "0", Min: limit(0), Field: "MaxPoints",
			Help: "with a quadrant search, take at most max_points samples in all (else ignored)"},
	}, quadrantOptions(), []Option{nodataOption()}),
	GPU:   windowGPU,
	parse: parseAverage,
}

// The data metrics' declarations.
var (
	minimumDeclaration = metricDeclaration(Minimum, "minimum of the samples in the search ellipse")
	maximumDeclaration = metricDeclaration(Maximum, "maximum of the samples in the search ellipse")
	rangeDeclaration   = metricDeclaration(Range, "maximum minus minimum of the samples in the search ellipse")
	countDeclaration   = metricDeclaration(Count, "number of samples in the search ellipse")

	averageDistanceDeclaration    = metricDeclaration(AverageDistance, "mean distance from the node to the samples in the search ellipse")
	averageDistancePtsDeclaration = metricDeclaration(AverageDistancePts, "mean distance between the samples in the search ellipse")
)

func metricDeclaration(kind MetricKind, help string) Declaration {
	var gpu *GPUForm
	if _, ok := deviceStats[kind]; ok {
		gpu = windowGPU
	}
	if kind == AverageDistancePts {
		gpu = pairsGPU
	}
	return Declaration{
		Name:    string(kind),
		Help:    help,
		GDAL:    true,
		Options: options(ellipseOptions(), []Option{minPointsOption()}, quadrantOptions(), []Option{nodataOption()}),
		GPU:     gpu,
		parse:   func(kv *keyValues) (Algorithm, error) { return parseMetric(kind, kv) },
	}
}

// windowGPU is the GPU form of the moving-window statistics (DeviceWindow).
var windowGPU = &GPUForm{Accuracy: GPUBitIdentical,
	Forms: "with an unrotated search ellipse and no per-quadrant options; a rotated one, one radius 0 below gdal's quadtree threshold, or none, on the CPU engine",
	Keys:  "radius1=2:radius2=2"}

// Reach implements Reacher: the search ellipse, summed in the index's cell order.
func (a *Average) Reach(n int) Reach {
	return ellipseReach(n, a.Radius1, a.Radius2, a.Angle, true)
}

// streamForm implements streamer: without a search ellipse the mean is one sum for every
// node.
func (a *Average) streamForm(int, float64) (StreamForm, bool) {
	if a.Radius1 != 0 || a.Radius2 != 0 || a.active() {
		return StreamForm{}, false
	}
	return StreamForm{kind: streamAverage, NodeBytes: 8}, true
}

// Reach implements Reacher: the search ellipse, in the index's cell order where the metric
// sums distances or picks quadrants.
func (m *Metric) Reach(n int) Reach {
	order := m.Kind == AverageDistance || m.Kind == AverageDistancePts || m.active()
	return ellipseReach(n, m.Radius1, m.Radius2, m.Angle, order)
}

// streamForm implements streamer: without a search ellipse each metric is one value for
// every node but average_distance, a sum of distances at each; average_distance_pts pairs
// the samples a block of rows a pass.
func (m *Metric) streamForm(int, float64) (StreamForm, bool) {
	if m.Radius1 != 0 || m.Radius2 != 0 || m.active() {
		return StreamForm{}, false
	}
	f := StreamForm{NodeBytes: 8}
	switch m.Kind {
	case Minimum, Maximum, Range:
		f.kind = streamMinMax
	case Count:
		f.kind = streamCount
	case AverageDistance:
		f.kind = streamDistance
	case AverageDistancePts:
		f.kind, f.SampleBytes = streamPairs, PairRowBytes
	default:
		return StreamForm{}, false
	}
	return f, true
}

// Name implements Algorithm.
func (a *Average) Name() string { return "average" }

// NoData implements Algorithm.
func (a *Average) NoData() float64 { return a.NodataValue }

// Name implements Algorithm.
func (m *Metric) Name() string { return string(m.Kind) }

// NoData implements Algorithm.
func (m *Metric) NoData() float64 { return m.NodataValue }

func parseAverage(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	a := &Average{}
	a.Radius1, a.Radius2 = o.radii()
	a.Angle = o.float("angle")
	a.MinPoints = o.int("min_points")
	a.MaxPoints = o.int("max_points")
	a.NodataValue = o.nodata()
	a.QuadrantLimits = o.quadrants()
	if kv.err != nil {
		return nil, kv.err
	}
	if a.active() {
		if err := checkQuadrantSearch(a.Radius1, a.Radius2, a.Angle); err != nil {
			return nil, err
		}
	} else if a.MaxPoints > 0 {
		kv.warnings = append(kv.warnings,
			"max_points is ignored unless one of min_points_per_quadrant or max_points_per_quadrant is >= 1")
	}
	o.warnUnknown()
	return a, nil
}

func parseMetric(kind MetricKind, kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	m := &Metric{Kind: kind}
	m.Radius1, m.Radius2 = o.radii()
	m.Angle = o.float("angle")
	m.MinPoints = o.int("min_points")
	m.NodataValue = o.nodata()
	m.QuadrantLimits = o.quadrants()
	if kv.err != nil {
		return nil, kv.err
	}
	if m.active() {
		if kind == AverageDistancePts {
			return nil, fmt.Errorf("Algorithm %s not supported when per quadrant parameters are specified", kind)
		}
		if err := checkQuadrantSearch(m.Radius1, m.Radius2, m.Angle); err != nil {
			return nil, err
		}
	}
	o.warnUnknown()
	return m, nil
}

// gdalArea is the search ellipse as gdal searches it for n samples.
func gdalArea(r1, r2, angle float64, n int) searchArea {
	return searchArea{R1: r1, R2: r2, Angle: angle, Square: UsesQuadtree(n, r1, r2, angle)}
}

func (a *Average) bind(p *Problem, ix *grid.Index) (bound, error) {
	n := p.sampleCount()
	b := skipping{f: a.search(p, ix, n), less: func(context.Context) (nodeWithout, error) { return a.search(p, ix, n-1), nil }}
	if !a.active() {
		ar := gdalArea(a.Radius1, a.Radius2, a.Angle, n)
		if w := newWindowSpan(p, ix, ar, statAverage, a.MinPoints, a.NodataValue, b.f); w != nil {
			return &spanSkipping{b, w}, nil
		}
	}
	return &b, nil
}

// search is average over gdal's search for n samples: all of p's, or all but one held out.
func (a *Average) search(p *Problem, ix *grid.Index, n int) nodeWithout {
	s := p.Samples
	ar := gdalArea(a.Radius1, a.Radius2, a.Angle, n)
	mean := func(nb []grid.Neighbor) float64 {
		if len(nb) == 0 || len(nb) < a.MinPoints {
			return a.NodataValue
		}
		sum := 0.0
		for _, n := range nb {
			sum += s.Z[n.ID]
		}
		return sum / float64(len(nb))
	}
	switch {
	case a.active():
		order := p.newGDALOrder()
		return func(sc *scratch, skip int32, x, y float64) float64 {
			sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
			pick := pickQuadrants(sc, sc.nb, s, x, y, a.QuadrantLimits, a.MaxPoints, order)
			if !pick.ok(a.MinPerQuadrant) {
				return a.NodataValue
			}
			return mean(picked(sc.nb, pick))
		}
	case ar.all() && n < s.Len():
		return func(sc *scratch, skip int32, _, _ float64) float64 { return mean(sc.everySample(s.Len(), skip)) }
	case ar.all():
		v := allSamplesValue(s, func(nb []grid.Neighbor) float64 { return mean(nb) })
		return func(*scratch, int32, float64, float64) float64 { return v }
	}
	return func(sc *scratch, skip int32, x, y float64) float64 {
		sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
		return mean(sc.nb)
	}
}

// picked moves the picked candidates to the front of nb (in candidate order) and returns them.
func picked(nb []grid.Neighbor, pick quadrantPick) []grid.Neighbor {
	slices.Sort(pick.Order)
	for k, j := range pick.Order {
		nb[k] = nb[j]
	}
	return nb[:len(pick.Order)]
}

// everySample lists each of n samples but skip in sc.nb, distances unset: the neighbourhood
// of a search without radius, node by node with a sample held out.
func (sc *scratch) everySample(n int, skip int32) []grid.Neighbor {
	sc.nb = sc.nb[:0]
	for i := range int32(n) {
		if i != skip {
			sc.nb = append(sc.nb, grid.Neighbor{ID: i})
		}
	}
	return sc.nb
}

// allSamplesValue is f over every sample, for the searches without radius, whose value is the
// same at every node.
func allSamplesValue(s *sample.Samples, f func([]grid.Neighbor) float64) float64 {
	nb := make([]grid.Neighbor, s.Len())
	for i := range nb {
		nb[i].ID = int32(i)
	}
	return f(nb)
}

func (m *Metric) bind(p *Problem, ix *grid.Index) (bound, error) {
	return m.bindContext(context.Background(), p, ix)
}

// bindContext implements contextBinder: average_distance_pts without a radius sums every pair
// of samples as it binds, which ctx stops.
func (m *Metric) bindContext(ctx context.Context, p *Problem, ix *grid.Index) (bound, error) {
	n := p.sampleCount()
	f, err := m.search(ctx, p, ix, n)
	if err != nil {
		return nil, err
	}
	b := skipping{f: f, less: func(ctx context.Context) (nodeWithout, error) { return m.search(ctx, p, ix, n-1) }}
	if m.Kind == AverageDistancePts && !m.active() {
		if ps := newPairSpan(m, p, ix, gdalArea(m.Radius1, m.Radius2, m.Angle, n), p.newGDALOrder()); ps != nil {
			return &pairSpanSkipping{b, ps}, nil
		}
	}
	if stat, ok := metricStats[m.Kind]; ok && !m.active() {
		ar := gdalArea(m.Radius1, m.Radius2, m.Angle, n)
		if w := newWindowSpan(p, ix, ar, stat, m.MinPoints, m.NodataValue, b.f); w != nil {
			return &spanSkipping{b, w}, nil
		}
	}
	return &b, nil
}

// metricStats are the metrics that windowSpan computes.
var metricStats = map[MetricKind]windowStat{
	Minimum: statMinimum, Maximum: statMaximum, Range: statRange, Count: statCount, AverageDistance: statDistance,
}

// search is the metric over gdal's search for n samples: all of p's, or all but one held out.
func (m *Metric) search(ctx context.Context, p *Problem, ix *grid.Index, n int) (nodeWithout, error) {
	s := p.Samples
	ar := gdalArea(m.Radius1, m.Radius2, m.Angle, n)
	switch {
	case m.Kind == AverageDistancePts:
		return m.pairs(ctx, p, ix, ar, n)
	case m.active():
		order := p.newGDALOrder()
		return func(sc *scratch, skip int32, x, y float64) float64 {
			sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
			pick := pickQuadrants(sc, sc.nb, s, x, y, m.QuadrantLimits, 0, order)
			if !pick.ok(m.MinPerQuadrant) {
				return m.NodataValue
			}
			return m.reduce(s, picked(sc.nb, pick))
		}, nil
	case ar.all() && m.Kind == AverageDistance:
		ps := s.Plain()
		return func(_ *scratch, skip int32, x, y float64) float64 { return m.distanceToAll(ps, skip, x, y) }, nil
	case ar.all() && n < s.Len():
		return func(sc *scratch, skip int32, _, _ float64) float64 { return m.reduce(s, sc.everySample(s.Len(), skip)) }, nil
	case ar.all():
		v := allSamplesValue(s, func(nb []grid.Neighbor) float64 { return m.reduce(s, nb) })
		return func(*scratch, int32, float64, float64) float64 { return v }, nil
	}
	return func(sc *scratch, skip int32, x, y float64) float64 {
		sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
		return m.reduce(s, sc.nb)
	}, nil
}

// reduce computes the metric (all but average_distance_pts) over the samples nb.
func (m *Metric) reduce(s *sample.Samples, nb []grid.Neighbor) float64 {
	n := len(nb)
	if n < m.MinPoints || n == 0 && m.Kind != Count {
		return m.NodataValue
	}
	switch m.Kind {
	case Count:
		return float64(n)
	case AverageDistance:
		sum := 0.0
		for _, e := range nb {
			sum += math.Sqrt(e.D2)
		}
		return sum / float64(n)
	}
	lo, hi := math.MaxFloat64, -math.MaxFloat64
	for _, e := range nb {
		z := s.Z[e.ID]
		lo, hi = min(lo, z), max(hi, z)
	}
	switch m.Kind {
	case Minimum:
		return lo
	case Maximum:
		return hi
	}
	return hi - lo
}

// distanceToAll is average_distance without radius: the mean distance to every sample but
// skip (-1: none). s is in the plain form.
func (m *Metric) distanceToAll(s *sample.Samples, skip int32, x, y float64) float64 {
	n := s.Len()
	if skip >= 0 {
		n--
	}
	if n < m.MinPoints {
		return m.NodataValue
	}
	sum := 0.0
	for i, sx := range s.X {
		if i == int(skip) {
			continue
		}
		dx, dy := sx-x, s.Y[i]-y
		sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
	}
	return sum / float64(n)
}

// pairs is average_distance_pts over gdal's search ar for n samples: all of s, or all but one
// held out. Without a radius every pair of samples is summed once, as it binds (see pairRows).
func (m *Metric) pairs(ctx context.Context, p *Problem, ix *grid.Index, ar searchArea, n int) (nodeWithout, error) {
	s := p.Samples
	if ar.all() {
		ps := s.Plain()
		total, err := allPairDistances(ctx, runtime.GOMAXPROCS(0), ps.X, ps.Y)
		if err != nil {
			return nil, err
		}
		if n < s.Len() {
			// the pairs without the held-out sample: all pairs less those it is part of
			return func(_ *scratch, skip int32, _, _ float64) float64 {
				return m.pairsMean(total-distancesFrom(ps, skip), n)
			}, nil
		}
		v := m.pairsMean(total, n)
		return func(*scratch, int32, float64, float64) float64 { return v }, nil
	}
	if ar.Square {
		order := p.newGDALOrder()
		return func(sc *scratch, skip int32, x, y float64) float64 {
			sum, pairs := m.squarePairs(sc, s, ix, ar, order, skip, x, y)
			return m.mean(sum, pairs)
		}, nil
	}
	return func(sc *scratch, skip int32, x, y float64) float64 {
		sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
		return m.pairsMean(pairDistances(s, sc.nb), len(sc.nb))
	}, nil
}

// mean is average_distance_pts's value from the sum of the distances over its pairs.
func (m *Metric) mean(sum float64, pairs int) float64 {
	if pairs < m.MinPoints || pairs == 0 {
		return m.NodataValue
	}
	return sum / float64(pairs)
}

// pairsMean is mean over every pair of q samples.
func (m *Metric) pairsMean(sum float64, q int) float64 { return m.mean(sum, q*(q-1)/2) }

// squarePairs is average_distance_pts on gdal's quadtree: the sum over pairs of the q samples
// in the ellipse, and gdal's pair count, q(q+1)/2 less one when the last sample of the search
// square in gdal's order lies in the ellipse.
func (m *Metric) squarePairs(sc *scratch, s *sample.Samples, ix *grid.Index, ar searchArea, order *gdalOrder,
	skip int32, x, y float64) (float64, int) {
	h := ar.half()
	sc.nb = sc.within(ix, x, y, 2*(h*h), skip)
	last := int32(-1)
	for _, nb := range sc.nb {
		if inSquare(s, nb.ID, x, y, h) && (last < 0 || order.compare(nb.ID, last) > 0) {
			last = nb.ID
		}
	}
	r1s, r2s := ar.R1*ar.R1, ar.R2*ar.R2
	in := sc.nb[:0]
	lastIn := false
	for _, nb := range sc.nb {
		sx, sy := s.XY(nb.ID)
		dx, dy := sx-x, sy-y
		if math.Abs(dx) <= h && math.Abs(dy) <= h && float64(r2s*dx*dx)+float64(r1s*dy*dy) <= r1s*r2s {
			in = append(in, nb)
			lastIn = lastIn || nb.ID == last
		}
	}
	q := len(in)
	pairs := q * (q + 1) / 2
	if lastIn {
		pairs--
	}
	return pairDistances(s, in), pairs
}

// pairDistances sums the distances between every pair of the samples nb.
func pairDistances(s *sample.Samples, nb []grid.Neighbor) float64 {
	sum := 0.0
	for a, na := range nb {
		xa, ya := s.XY(na.ID)
		for _, nb := range nb[a+1:] {
			xb, yb := s.XY(nb.ID)
			dx, dy := xb-xa, yb-ya
			sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
		}
	}
	return sum
}

// distancesFrom sums the distances from sample id to every other sample of s, in the plain form.
func distancesFrom(s *sample.Samples, id int32) float64 {
	sum := 0.0
	xa, ya := s.X[id], s.Y[id]
	for i, x := range s.X {
		dx, dy := x-xa, s.Y[i]-ya
		sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
	}
	return sum
}

// DeviceParams implements DeviceAlgorithm: the mean of the samples in the search ellipse,
// without per-quadrant options.
func (a *Average) DeviceParams(p *Problem, _ Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Form: DeviceWindow, NoData: a.NodataValue, MinPoints: a.MinPoints}
	if a.active() {
		return d, false, "average with per-quadrant options runs on the CPU only"
	}
	return windowParams(d, p, a.Radius1, a.Radius2, a.Angle)
}

// deviceStats are the metrics that the DeviceWindow form computes.
var deviceStats = map[MetricKind]DeviceStat{
	Minimum: DeviceMinimum, Maximum: DeviceMaximum, Range: DeviceRange, Count: DeviceCount,
	AverageDistance: DeviceDistance, AverageDistancePts: DevicePairs,
}

// DeviceParams implements DeviceAlgorithm: minimum, maximum, range, count, average_distance
// and average_distance_pts over the search ellipse, without per-quadrant options.
func (m *Metric) DeviceParams(p *Problem, _ Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Form: DeviceWindow, NoData: m.NodataValue, MinPoints: m.MinPoints}
	stat, ok := deviceStats[m.Kind]
	switch {
	case !ok:
		return d, false, fmt.Sprintf("%s runs on the CPU only", m.Kind)
	case m.active():
		return d, false, fmt.Sprintf("%s with per-quadrant options runs on the CPU only", m.Kind)
	}
	d.Search.Stat = stat
	return windowParams(d, p, m.Radius1, m.Radius2, m.Angle)
}

// windowParams completes a DeviceWindow form: a search without radius has one value for every
// node, which the CPU computes once.
func windowParams(d DeviceParams, p *Problem, r1, r2, angle float64) (DeviceParams, bool, string) {
	if r1 == 0 && r2 == 0 {
		return d, false, "a window without radius has one value, which the CPU engine computes once"
	}
	d, ok, why := withSearch(d, p, r1, r2, angle)
	if ok && p != nil && d.Search.Line() {
		return d, false, "a window with one radius 0 runs on the CPU only below gdal's quadtree threshold"
	}
	return d, ok, why
}
