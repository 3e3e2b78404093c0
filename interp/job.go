package interp

import (
	"context"
	"sync/atomic"

	"github.com/aidw/aidw/grid"
)

// Job is what a problem computed on part of the samples (a tile of a larger job, with its
// halo) shares with the whole job, so that every node it computes is the whole job's, bit for
// bit: the facts that depend on every sample, computed once for the job.
type Job struct {
	// N is the number of samples of the whole job: AIDW's n (r_exp, k's clamp) and gdal's
	// choice of search (its quadtree above 100 samples) depend on it.
	N int
	// Bounds is the bounding box of the whole job's samples (xmin ymin xmax ymax, absolute, as
	// sample.Samples.Bounds computes it): AIDW's study area.
	Bounds [4]float64
	// Rel is the same box relative to the problem's origin, exactly as the samples'
	// coordinates are: no sample of the job lies outside it (linear's tiles prove with it that
	// the samples they did not load cannot change a node).
	Rel [4]float64
	// Layout, when set, is the whole job's even-grid layout, which the tile's index takes too:
	// the algorithms that sum their neighbours in the index's cell order need it to sum them
	// in the whole job's order.
	Layout *grid.Layout
	// Partial says that the problem holds only some of the job's samples: those strictly
	// inside Region (absolute). gdal's quadtree order, by which some algorithms break ties,
	// is then the whole job's for all but some samples near Region's edge (see
	// gdalOrder.compare): a problem that compares those records so in OrderNeeded, and its
	// values must not be used.
	Partial bool
	Region  [4]float64

	orderNeeded atomic.Bool
}

// OrderNeeded says whether some node of a Partial problem broke a tie by gdal's quadtree
// order, which only the whole job's samples give.
func (j *Job) OrderNeeded() bool { return j.orderNeeded.Load() }

// index is the even-grid index of the problem's samples: on the job's layout when it has one.
func (p *Problem) index(ctx context.Context) (*grid.Index, error) {
	if p.Job != nil && p.Job.Layout != nil {
		return grid.OfLayout(ctx, p.Samples, *p.Job.Layout)
	}
	return grid.Of(ctx, p.Samples)
}

// studyArea is AIDW's study area (see AIDW.StudyArea), from the whole job's bounds when the
// problem is part of a job.
func (p *Problem) studyArea(a *AIDW) float64 {
	if p.Job == nil || a.Area > 0 {
		return a.StudyArea(p.Samples, p.Target)
	}
	b := p.Job.Bounds
	if area := (b[2] - b[0]) * (b[3] - b[1]); area > 0 {
		return area
	}
	minX, minY, maxX, maxY := p.Target.Extent()
	return (maxX - minX) * (maxY - minY)
}

// newGDALOrder is gdal's quadtree order of the problem's samples, which tells a Partial job
// when it is needed.
func (p *Problem) newGDALOrder() *gdalOrder {
	o := newGDALOrder(p.Samples)
	if p.Job != nil && p.Job.Partial {
		o.job = p.Job
	}
	return o
}
