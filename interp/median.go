package interp

import (
	"cmp"
	"context"
	"slices"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/sample"
)

// Median is the median of the values of the samples in gdal's search ellipse (every sample
// when both radii are 0), searched as gdal_grid's data metrics search it: the middle value,
// or the mean of the two middle values of an even count. Fewer than MinPoints samples, or
// none, give nodata. A robust surface of LiDAR returns: one stray return does not move it.
type Median struct {
	Radius1, Radius2, Angle float64
	MinPoints               int
	NodataValue             float64
}

var medianDeclaration = Declaration{
	Name:    "median",
	Help:    "median of the samples in the search ellipse (the mean of the two middle values of an even count)",
	Options: options(ellipseOptions(), []Option{minPointsOption(), nodataOption()}),
	parse:   parseMedian,
}

// Reach implements Reacher: the search ellipse; a median does not depend on the samples'
// order.
func (a *Median) Reach(n int) Reach {
	return ellipseReach(n, a.Radius1, a.Radius2, a.Angle, false)
}

// Name implements Algorithm.
func (a *Median) Name() string { return "median" }

// NoData implements Algorithm.
func (a *Median) NoData() float64 { return a.NodataValue }

func parseMedian(kv *keyValues) (Algorithm, error) {
	o := gdalOptions{kv}
	a := &Median{}
	a.Radius1, a.Radius2 = o.radii()
	a.Angle = o.float("angle")
	a.MinPoints = o.int("min_points")
	a.NodataValue = o.nodata()
	if kv.err != nil {
		return nil, kv.err
	}
	if err := kv.unknownError(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Median) bind(p *Problem, ix *grid.Index) (bound, error) {
	n := p.sampleCount()
	return &skipping{f: a.search(p, ix, n), less: func(context.Context) (nodeWithout, error) { return a.search(p, ix, n-1), nil }}, nil
}

// search is the median over gdal's search for n samples: all of p's, or all but one held out.
func (a *Median) search(p *Problem, ix *grid.Index, n int) nodeWithout {
	s := p.Samples
	ar := gdalArea(a.Radius1, a.Radius2, a.Angle, n)
	if ar.all() {
		// every node takes every sample (but the one held out): sort their values once
		z := slices.Clone(s.Z)
		slices.Sort(z)
		return func(_ *scratch, skip int32, _, _ float64) float64 {
			drop := -1
			if skip >= 0 {
				drop, _ = slices.BinarySearch(z, s.Z[skip])
			}
			return a.sorted(z, drop)
		}
	}
	return func(sc *scratch, skip int32, x, y float64) float64 {
		sc.nb = without(ar.collect(ix, x, y, sc.nb), skip)
		return a.of(s, sc.nb)
	}
}

// of is the median of the values of the samples nb, which it reorders.
func (a *Median) of(s *sample.Samples, nb []grid.Neighbor) float64 {
	if len(nb) == 0 || len(nb) < a.MinPoints {
		return a.NodataValue
	}
	slices.SortFunc(nb, func(p, q grid.Neighbor) int { return cmp.Compare(s.Z[p.ID], s.Z[q.ID]) })
	m := len(nb) / 2
	if len(nb)%2 == 1 {
		return s.Z[nb[m].ID]
	}
	return (s.Z[nb[m-1].ID] + s.Z[nb[m].ID]) / 2
}

// sorted is the median of the ascending values z less the one at drop (-1: none).
func (a *Median) sorted(z []float64, drop int) float64 {
	n := len(z)
	if drop >= 0 {
		n--
	}
	if n == 0 || n < a.MinPoints {
		return a.NodataValue
	}
	at := func(i int) float64 {
		if drop >= 0 && i >= drop {
			return z[i+1]
		}
		return z[i]
	}
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}
