package interp

import (
	"context"
	"fmt"
)

// PointComputer is a Prepared that also computes at arbitrary nodes rather than at a target's
// raster nodes. The CPU engine's Prepared is one.
type PointComputer interface {
	// ComputeAt sets values[i] to the algorithm's value at (xs[i], ys[i]), given relative to
	// the samples' origin.
	ComputeAt(ctx context.Context, xs, ys, values []float64) error
}

// EvaluateAt computes p's algorithm at the nodes (xs[i], ys[i]), in absolute coordinates, instead
// of at p.Target's raster nodes: the papers' experiments place their prediction points at random,
// and checks compare engines on a sample of nodes. p.Target gives only the extent that AIDW falls
// back on for its study area. The engine's Prepared must implement PointComputer.
func EvaluateAt(ctx context.Context, eng Engine, p *Problem, xs, ys []float64) ([]float64, error) {
	if len(xs) != len(ys) {
		return nil, fmt.Errorf("%d node x but %d node y", len(xs), len(ys))
	}
	if err := p.Target.Validate(); err != nil {
		return nil, err
	}
	if p.Samples.Len() == 0 {
		return nil, fmt.Errorf("no usable samples")
	}
	prep, err := eng.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	values := make([]float64, len(xs))
	err = computeAt(ctx, eng, prep, p, xs, ys, values)
	if cerr := prep.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return values, nil
}

func computeAt(ctx context.Context, eng Engine, prep Prepared, p *Problem, xs, ys, values []float64) error {
	pc, ok := prep.(PointComputer)
	if !ok {
		return fmt.Errorf("the %s engine computes only raster nodes, not arbitrary ones", eng.Name())
	}
	rx, ry := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		rx[i], ry[i] = xs[i]-p.Samples.OriginX, ys[i]-p.Samples.OriginY
	}
	return pc.ComputeAt(ctx, rx, ry, values)
}

// ComputeAt implements PointComputer with every worker, as Compute does.
func (c *cpuPrepared) ComputeAt(ctx context.Context, xs, ys, values []float64) error {
	if len(ys) != len(xs) || len(values) != len(xs) {
		return fmt.Errorf("%d node x, %d node y and %d values: lengths differ", len(xs), len(ys), len(values))
	}
	return c.forEach(ctx, len(xs), func(sc *scratch, lo, hi int) {
		for i := lo; i < hi; i++ {
			values[i] = c.fn(sc, -1, xs[i], ys[i])
		}
	})
}
