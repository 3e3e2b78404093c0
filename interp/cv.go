package interp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Cross-validation predicts each sample from the others and compares with what was observed.
//
// Leave-one-out builds one index and binds the algorithm once, then computes every sample as a
// node at its own place with that sample held out, through the bound form's holdOut
// capability: the searches drop the held-out sample (samples at the same place stay: they are
// other observations); the loops over all samples run on either side of it; and what a bind
// derives from the number of samples or their box is derived for the n-1 others: AIDW's
// r_exp (n-1, and the box without the sample, from the two extreme samples of each side),
// gdal's quadtree threshold, linear's triangulation (only the hole the sample leaves is
// triangulated anew, from its Delaunay neighbours) and search square, and the statistics of
// the searches without radius. What stays that of all n samples is gdal's quadtree order,
// which breaks ties between samples at exactly equal distances, and which decides
// average_distance_pts's pair count on gdal's quadtree (above 100 samples, with a radius):
// there leave-one-out may count one pair more or fewer than a copy without the sample would.
//
// An algorithm whose bound form lacks the capability is bound anew to a copy of the samples
// without each one (eachWithout): the definition itself, at the cost of n binds.
//
// The CPU engine runs it: the GPU engine has no held-out sample.

// LeaveOneOut predicts every sample from all the others, as a copy of the samples without it
// would. t stands in for the output extent where an algorithm needs one (AIDW's study area
// when the samples' box has none). A sample the algorithm cannot predict gets its nodata value.
func LeaveOneOut(ctx context.Context, alg Algorithm, s *sample.Samples, t raster.Target, threads int) ([]float64, error) {
	n := s.Len()
	if n < 2 {
		return nil, fmt.Errorf("leave-one-out needs at least 2 samples, got %d", n)
	}
	if err := checkCoordinates(ctx, s, t); err != nil {
		return nil, err
	}
	ca, ok := alg.(cpuAlgorithm)
	if !ok {
		return nil, fmt.Errorf("algorithm %s has no CPU implementation", alg.Name())
	}
	threads = (&CPU{Threads: threads}).threads()
	ix, err := grid.Of(ctx, s)
	if err != nil {
		return nil, err
	}
	b, err := ca.bind(&Problem{Samples: s, Target: t, Alg: alg}, ix)
	if err != nil {
		return nil, err
	}
	h, ok := b.(holdOut)
	if !ok {
		return eachWithout(ctx, ca, s, t, threads)
	}
	f, err := h.holdOut(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	x, y := s.Coords()
	err = forEach(ctx, threads, n, func(sc *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = f(sc, int32(i), x[i], y[i])
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachWithout is leave-one-out by its definition, for any algorithm: each sample is predicted
// at its place by the algorithm bound to a copy of the samples without it, with its own index.
// Workers take one sample at a time: each is a whole bind.
func eachWithout(ctx context.Context, alg cpuAlgorithm, s *sample.Samples, t raster.Target, threads int) ([]float64, error) {
	n := s.Len()
	out := make([]float64, n)
	errs := make([]error, n)
	err := forEachRun(ctx, threads, n, 1, func(sc *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			c := &sample.Samples{OriginX: s.OriginX, OriginY: s.OriginY,
				X: make([]float64, 0, n-1), Y: make([]float64, 0, n-1), Z: make([]float64, 0, n-1)}
			for j := range int32(n) {
				if j != int32(i) {
					x, y := s.XY(j)
					c.X, c.Y, c.Z = append(c.X, x), append(c.Y, y), append(c.Z, s.Z[j])
				}
			}
			ix, err := grid.Of(ctx, c)
			if err != nil {
				errs[i] = err
				continue
			}
			b, err := alg.bind(&Problem{Samples: c, Target: t, Alg: alg}, ix)
			if err != nil {
				errs[i] = err
				continue
			}
			x, y := s.XY(int32(i))
			out[i] = b.node(sc, x, y)
		}
	})
	if err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("without sample %d: %w", i+1, err)
		}
	}
	return out, nil
}

// KFold predicts every sample from the samples of the other folds; fold[i] in [0,k) is sample
// i's fold. Each fold gets its own index and bind over its training samples: a fold holds out
// several samples, where the holdOut capability holds out one.
func KFold(ctx context.Context, alg Algorithm, s *sample.Samples, t raster.Target, fold []int, k, threads int) ([]float64, error) {
	n := s.Len()
	if len(fold) != n {
		return nil, fmt.Errorf("%d samples but %d fold numbers", n, len(fold))
	}
	if k < 2 || k > n {
		return nil, fmt.Errorf("%d folds: need 2 to %d (the number of samples)", k, n)
	}
	if err := checkCoordinates(ctx, s, t); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	eng := &CPU{Threads: threads}
	for f := range k {
		train := &sample.Samples{OriginX: s.OriginX, OriginY: s.OriginY}
		var test []int
		var tx, ty []float64
		for i, fi := range fold {
			switch {
			case fi < 0 || fi >= k:
				return nil, fmt.Errorf("sample %d: fold %d is not in 0..%d", i, fi, k-1)
			case fi == f:
				test = append(test, i)
				x, y := s.XY(int32(i))
				tx, ty = append(tx, x), append(ty, y)
			default:
				x, y := s.XY(int32(i))
				train.X, train.Y, train.Z = append(train.X, x), append(train.Y, y), append(train.Z, s.Z[i])
			}
		}
		if len(test) == 0 || train.Len() == 0 {
			return nil, fmt.Errorf("fold %d has %d test and %d training samples: each needs at least one", f+1, len(test), train.Len())
		}
		v, err := computeNodes(ctx, eng, &Problem{Samples: train, Target: t, Alg: alg}, tx, ty)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for j, i := range test {
			out[i] = v[j]
		}
	}
	return out, nil
}

// computeNodes computes p at the nodes (xs[i], ys[i]), relative to the samples' origin.
func computeNodes(ctx context.Context, eng Engine, p *Problem, xs, ys []float64) ([]float64, error) {
	prep, err := eng.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	defer prep.Close()
	pc, ok := prep.(PointComputer)
	if !ok {
		return nil, fmt.Errorf("the %s engine computes only raster nodes, not samples' places", eng.Name())
	}
	values := make([]float64, len(xs))
	if err := pc.ComputeAt(ctx, xs, ys, values); err != nil {
		return nil, err
	}
	return values, nil
}

// Folds deals n samples into k folds at random, reproducibly for a seed: fold sizes differ by
// at most one.
func Folds(n, k int, seed uint64) []int {
	perm := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(n)
	fold := make([]int, n)
	for pos, i := range perm {
		fold[i] = pos % k
	}
	return fold
}

// Scores sum up predictions against observations. An error is predicted - observed.
type Scores struct {
	N         int     // samples predicted
	Missing   int     // samples the algorithm could not predict (nodata), left out of the rest
	RMSE      float64 // root mean square error
	MAE       float64 // mean absolute error
	MeanError float64 // mean error: the bias, > 0 when predictions run high
	// R2 is the coefficient of determination 1 - sum(error^2) / sum((observed - mean)^2): the
	// share of the observations' variance that the predictions explain (NaN when the
	// observations do not vary).
	R2 float64
}

// Missing says whether a prediction is the algorithm's nodata (NaN included).
func Missing(v, nodata float64) bool {
	return math.IsNaN(v) || v == nodata
}

// Score compares predicted with observed, leaving out the predictions equal to nodata.
func Score(observed, predicted []float64, nodata float64) Scores {
	var sc Scores
	var sumObs float64
	for i, p := range predicted {
		if Missing(p, nodata) {
			sc.Missing++
			continue
		}
		e := p - observed[i]
		sc.N++
		sc.RMSE += e * e
		sc.MAE += math.Abs(e)
		sc.MeanError += e
		sumObs += observed[i]
	}
	if sc.N == 0 {
		nan := math.NaN()
		sc.RMSE, sc.MAE, sc.MeanError, sc.R2 = nan, nan, nan, nan
		return sc
	}
	sse, n := sc.RMSE, float64(sc.N)
	mean := sumObs / n
	var sst float64
	for i, p := range predicted {
		if !Missing(p, nodata) {
			d := observed[i] - mean
			sst += d * d
		}
	}
	sc.RMSE, sc.MAE, sc.MeanError = math.Sqrt(sse/n), sc.MAE/n, sc.MeanError/n
	sc.R2 = math.NaN()
	if sst > 0 {
		sc.R2 = 1 - sse/sst
	}
	return sc
}

// boxWithout gives the samples' bounding box without any one of them, from the two most
// extreme samples of each side.
type boxWithout struct {
	s *sample.Samples
	// ext holds, for min x, min y, max x and max y, the most and the second most extreme sample.
	ext [4][2]int32
}

func newBoxWithout(s *sample.Samples) *boxWithout {
	b := &boxWithout{s: s, ext: [4][2]int32{{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}}}
	for i := range int32(s.Len()) {
		for side := range 4 {
			e := &b.ext[side]
			switch v := b.outward(side, i); {
			case e[0] < 0 || v > b.outward(side, e[0]):
				e[0], e[1] = i, e[0]
			case e[1] < 0 || v > b.outward(side, e[1]):
				e[1] = i
			}
		}
	}
	return b
}

// outward is how far sample i lies towards the side: larger is more extreme.
func (b *boxWithout) outward(side int, i int32) float64 {
	if side < 2 {
		return -b.coord(side, i)
	}
	return b.coord(side, i)
}

// coord is sample i's x for the sides 0 and 2, its y for 1 and 3.
func (b *boxWithout) coord(side int, i int32) float64 {
	x, y := b.s.XY(i)
	if side%2 == 0 {
		return x
	}
	return y
}

// area is the area of the bounding box of every sample but id, computed as Samples.Bounds and
// AIDW.StudyArea compute it, in absolute coordinates. There must be another sample.
func (b *boxWithout) area(id int32) float64 {
	var v [4]float64
	for side, e := range b.ext {
		i := e[0]
		if i == id {
			i = e[1]
		}
		v[side] = b.coord(side, i)
	}
	s := b.s
	return (v[2] + s.OriginX - (v[0] + s.OriginX)) * (v[3] + s.OriginY - (v[1] + s.OriginY))
}
