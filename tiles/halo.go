package tiles

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/interp"
)

// Family is how far a node's computation reaches, which decides a tile's halo.
type Family int

const (
	// Radius: every sample a node uses lies within Rule.Halo of it.
	Radius Family = iota
	// Nearest: a node uses its Rule.K nearest samples (and those within Rule.Extra), or (with
	// Rule.Triangles) the Delaunay triangles around it: the halo is checked node by node (see
	// checkNodes), and grown where it falls short.
	Nearest
	// Global: a node uses every sample. Each tile loads them all: exact, but not bounded in
	// memory by the tile.
	Global
)

func (f Family) String() string {
	return [...]string{"radius", "nearest", "global"}[f]
}

// Rule is an algorithm's halo rule for a job of n samples.
type Rule struct {
	Family Family
	// Halo is the radius family's reach, and the nearest family's first guess (0: none).
	Halo float64
	// K is how many nearest samples a node of the nearest family uses; Extra a radius within
	// which it uses every sample besides.
	K     int
	Extra float64
	// Layout says that the algorithm sums its neighbours in the index's cell order, so that a
	// tile's index must take the whole job's layout.
	Layout bool
	// Triangles says that a node of the nearest family uses the Delaunay triangles around it
	// (linear): its reach, which only the CPU engine tells (see interp.Block.Reach), proves the
	// triangles to be the whole job's, and K is only the first guess of the halo.
	Triangles bool
}

// linearFirstGuess is the number of samples whose distance at the job's mean density makes
// linear's first halo: the triangles around a node reach a few samples' spacings.
const linearFirstGuess = 16

// ellipseReach is the reach of gdal's search ellipse (or its quadtree's square), or false when
// it is unbounded: no radius, or a radius of 0 beside another, outside the quadtree (a line).
func ellipseReach(n int, r1, r2, angle float64) (float64, bool) {
	if r1 == 0 && r2 == 0 {
		return 0, false
	}
	if interp.UsesQuadtree(n, r1, r2, angle) {
		return math.Sqrt2 * max(r1, r2), true
	}
	if r1 > 0 && r2 > 0 {
		return max(r1, r2), true
	}
	return 0, false
}

// RuleFor returns the halo rule of an algorithm for a job of n samples, or an error naming a
// case that tiles cannot compute exactly.
func RuleFor(alg interp.Algorithm, n int) (Rule, error) {
	global := Rule{Family: Global}
	switch a := alg.(type) {
	case *interp.AIDW:
		if a.MaxPoints == 0 && a.Radius == 0 {
			return global, nil
		}
		k := min(a.K, n)
		r := Rule{Family: Nearest, K: k}
		if a.MaxPoints > 0 {
			r.K = max(k, min(a.MaxPoints, n))
		} else {
			r.Extra = a.Radius
		}
		return r, nil
	case *interp.InvDist:
		reach, ok := ellipseReach(n, a.Radius1, a.Radius2, a.Angle)
		if !ok {
			return global, nil
		}
		return Rule{Family: Radius, Halo: reach, Layout: a.MaxPoints == 0}, nil
	case *interp.InvDistNN:
		return Rule{Family: Radius, Halo: math.Sqrt2 * a.Radius}, nil
	case *interp.Nearest:
		if a.Radius1 == 0 && a.Radius2 == 0 {
			return Rule{Family: Nearest, K: 1}, nil
		}
		reach, ok := ellipseReach(n, a.Radius1, a.Radius2, a.Angle)
		if !ok {
			return global, nil
		}
		return Rule{Family: Radius, Halo: reach}, nil
	case *interp.Average:
		reach, ok := ellipseReach(n, a.Radius1, a.Radius2, a.Angle)
		if !ok {
			return global, nil
		}
		return Rule{Family: Radius, Halo: reach, Layout: true}, nil
	case *interp.Metric:
		reach, ok := ellipseReach(n, a.Radius1, a.Radius2, a.Angle)
		if !ok {
			return global, nil
		}
		order := a.Kind == interp.AverageDistance || a.Kind == interp.AverageDistancePts || a.MinPerQuadrant > 0 || a.MaxPerQuadrant > 0
		return Rule{Family: Radius, Halo: reach, Layout: order}, nil
	case *interp.Linear:
		// The triangulation is unique (see interp's delaunay), so that a tile finds the job's
		// triangles among its samples, wherever their circumcircles lie inside its region.
		return Rule{Family: Nearest, K: min(linearFirstGuess, n), Triangles: true}, nil
	}
	return Rule{}, fmt.Errorf("algorithm %s has no tiled form", alg.Name())
}
