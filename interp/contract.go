package interp

import (
	"fmt"
	"math"
)

// An algorithm's contract with the rest of aidw is declared beside its code, in its own file:
// its Declaration (options, engines) and the optional capabilities below, which the tiles,
// the memory plan and the engines ask for through the functions of this file. An algorithm
// that does not declare a capability gets the safe fallback each function names, so that a
// new algorithm written as its own file and one line of Registry runs everywhere.

// GPUAccuracy is how close an algorithm's GPU raster is to the CPU engine's.
type GPUAccuracy int

// The accuracies a GPU form declares.
const (
	// GPUBitIdentical: the GPU engine's raster equals the CPU engine's bit for bit.
	GPUBitIdentical GPUAccuracy = iota + 1
	// GPUWithin1e12: within 1e-12 relative of the CPU engine's.
	GPUWithin1e12
	// GPUWithin1e5: in float32, within 1e-5 relative (AIDW_GPU_FLOAT64=1 makes it 1e-12).
	GPUWithin1e5
)

// String is the accuracy in `aidw algorithms`.
func (a GPUAccuracy) String() string {
	switch a {
	case GPUBitIdentical:
		return "bit-identical"
	case GPUWithin1e12:
		return "within 1e-12"
	case GPUWithin1e5:
		return "within 1e-5"
	}
	return fmt.Sprintf("GPUAccuracy(%d)", int(a))
}

// GPUForm declares an algorithm's form on the GPU engine (the cuda build). The algorithm then
// implements DeviceAlgorithm, which says which of its options the GPU runs.
type GPUForm struct {
	// Accuracy is its loosest form's, against the CPU engine's raster.
	Accuracy GPUAccuracy
	// Forms says in one line which options run on the GPU and how close each is; the others
	// run on the CPU engine.
	Forms string
	// Keys, where the defaults are not a GPU form, are keys of one that is, as -a takes them
	// after the name (radius1=2:radius2=2).
	Keys string
}

// GPUExample is an -a string of a form that the GPU runs.
func (d *Declaration) GPUExample() string {
	if d.GPU == nil || d.GPU.Keys == "" {
		return d.Name
	}
	return d.Name + ":" + d.GPU.Keys
}

// Engines names the engines that run the algorithm, for help and the README: "CPU", or
// "CPU, GPU (<accuracy>)".
func (d *Declaration) Engines() string {
	if d.GPU == nil {
		return "CPU"
	}
	return "CPU, GPU (" + d.GPU.Accuracy.String() + ")"
}

// GPUOf is the GPU form a's declaration states, or nil: a runs on the CPU engine only.
func GPUOf(a Algorithm) *GPUForm {
	if d := Lookup(a.Name()); d != nil {
		return d.GPU
	}
	return nil
}

// ReachKind is how far a node's computation reaches, which decides a tile's halo.
type ReachKind int

// The reaches, in the order of tiles.Family.
const (
	// ReachRadius: every sample a node uses lies within Reach.Halo of it.
	ReachRadius ReachKind = iota
	// ReachNearest: a node uses its Reach.K nearest samples (and those within Reach.Extra),
	// or (with Reach.Triangles) the Delaunay triangles around it: a tile checks the halo node
	// by node and grows it where it falls short.
	ReachNearest
	// ReachGlobal: a node uses every sample.
	ReachGlobal
)

// Reach is an algorithm's reach for a job of n samples (see tiles.Rule, which it becomes).
type Reach struct {
	Kind ReachKind
	// Halo is the radius kind's reach, and the nearest kind's first guess (0: none).
	Halo float64
	// K is how many nearest samples a node of the nearest kind uses; Extra a radius within
	// which it uses every sample besides.
	K     int
	Extra float64
	// Layout says that the algorithm sums its neighbours in the index's cell order, so that a
	// tile's index must take the whole job's layout.
	Layout bool
	// Triangles says that a node of the nearest kind uses the Delaunay triangles around it:
	// only the CPU engine's reach (Block.Reach) proves a tile's triangles to be the job's.
	Triangles bool
}

// Reacher is an algorithm that bounds how far a node's computation reaches.
type Reacher interface {
	Reach(n int) Reach
}

// ReachOf is a's reach for a job of n samples; an algorithm that declares none is global
// (every tile loads every sample: exact, but not bounded in memory by the tile).
func ReachOf(a Algorithm, n int) Reach {
	if r, ok := a.(Reacher); ok {
		return r.Reach(n)
	}
	return Reach{Kind: ReachGlobal}
}

// ellipseReach is the reach of gdal's search ellipse (or its quadtree's square) over n
// samples, global when it is unbounded: no radius, or a radius of 0 beside another, outside
// the quadtree (a line). layout says whether the form sums in the index's cell order.
func ellipseReach(n int, r1, r2, angle float64, layout bool) Reach {
	switch {
	case r1 == 0 && r2 == 0:
	case UsesQuadtree(n, r1, r2, angle):
		return Reach{Kind: ReachRadius, Halo: math.Sqrt2 * max(r1, r2), Layout: layout}
	case r1 > 0 && r2 > 0:
		return Reach{Kind: ReachRadius, Halo: max(r1, r2), Layout: layout}
	}
	return Reach{Kind: ReachGlobal}
}

// streamer is an algorithm whose global form (Reach global) can stream its samples past a
// tile's nodes: a survey larger than memory. ok false: these options cannot.
type streamer interface {
	streamForm(n int, rasterNodes float64) (f StreamForm, ok bool)
}

// StreamFormOf is how alg's global form over n samples onto a raster of rasterNodes nodes
// streams its samples, or why it cannot (an algorithm that declares no streamed form cannot).
func StreamFormOf(alg Algorithm, n int, rasterNodes float64) (*StreamForm, error) {
	if s, ok := alg.(streamer); ok {
		if f, ok := s.streamForm(n, rasterNodes); ok {
			f.alg = alg
			return &f, nil
		}
	}
	return nil, fmt.Errorf("%s in this form cannot stream its samples", alg.Name())
}
