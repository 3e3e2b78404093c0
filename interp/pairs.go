package interp

import (
	"context"
	"math"
)

// pairsGPU is average_distance_pts's GPU form (DeviceWindow with DevicePairs): each node's
// pairs summed in float64 in the CPU engine's order (Metric.pairs: ascending input order on
// gdal's quadtree, the cells' order below its threshold), so bit for bit.
var pairsGPU = &GPUForm{Accuracy: GPUBitIdentical,
	Forms: "with an unrotated search ellipse; a rotated one, one radius 0 below gdal's quadtree threshold, or none, on the CPU engine",
	Keys:  "radius1=2:radius2=2"}

// pairRows sums average_distance_pts over every pair of the job's samples by rows: a sample's
// row is the sum of its distances to the samples after it in the job's order, and the total is
// the rows summed in that order. Each row is its own sum, so that rows share out among the
// cores, and a survey larger than memory streams past a block of rows at a time (Stream):
// both give the in-memory bits.
type pairRows struct {
	first int // the job's index of the first row
	x, y  []float64
	sum   []float64
}

// PairRowBytes is what a row of average_distance_pts holds: its sample's place and its sum.
const PairRowBytes = 24

// add adds to every row the distances to the samples (xs, ys) after it, the first of them
// the job's sample at; rows from at+len(xs) on have not met these samples and are left alone.
func (r *pairRows) add(ctx context.Context, threads int, xs, ys []float64, at int) error {
	rows := min(len(r.x), at+len(xs)-r.first)
	if rows <= 0 {
		return ctx.Err()
	}
	return forEachRun(ctx, threads, rows, runFor(len(xs)), func(_ *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			from := max(0, r.first+i+1-at)
			x, y, sum := r.x[i], r.y[i], r.sum[i]
			for j := from; j < len(xs); j++ {
				dx, dy := xs[j]-x, ys[j]-y
				sum += math.Sqrt(float64(dx*dx) + float64(dy*dy))
			}
			r.sum[i] = sum
		}
	})
}

// total adds the rows to sum, in order.
func (r *pairRows) total(sum float64) float64 {
	for _, v := range r.sum {
		sum += v
	}
	return sum
}

// allPairDistances is the sum of the distances between every pair of the samples (xs, ys),
// by rows (see pairRows).
func allPairDistances(ctx context.Context, threads int, xs, ys []float64) (float64, error) {
	r := pairRows{x: xs, y: ys, sum: make([]float64, len(xs))}
	if err := r.add(ctx, threads, xs, ys, 0); err != nil {
		return 0, err
	}
	return r.total(0), nil
}
