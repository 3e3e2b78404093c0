package tiles

import "github.com/aidw/aidw/interp"

// Family is how far a node's computation reaches, which decides a tile's halo: an
// interp.ReachKind, in the same order.
type Family int

const (
	// Radius: every sample a node uses lies within Rule.Halo of it.
	Radius = Family(interp.ReachRadius)
	// Nearest: a node uses its Rule.K nearest samples (and those within Rule.Extra), or (with
	// Rule.Triangles) the Delaunay triangles around it: the halo is checked node by node (see
	// checkNodes), and grown where it falls short.
	Nearest = Family(interp.ReachNearest)
	// Global: a node uses every sample. Each tile loads them all: exact, but not bounded in
	// memory by the tile.
	Global = Family(interp.ReachGlobal)
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

// RuleFor returns the halo rule of an algorithm for a job of n samples: the reach the
// algorithm declares (interp.ReachOf).
func RuleFor(alg interp.Algorithm, n int) Rule {
	r := interp.ReachOf(alg, n)
	return Rule{Family: Family(r.Kind), Halo: r.Halo, K: r.K, Extra: r.Extra, Layout: r.Layout, Triangles: r.Triangles}
}
