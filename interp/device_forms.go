package interp

// The device search of gdal_grid's neighbourhood algorithms, which their DeviceParams (each in
// its algorithm's file) build: nearest, invdistnn, invdist over a search ellipse, and the
// moving-window statistics (average_distance_pts among them). Each form visits a node's samples
// as the CPU engine does (the cells of the search square, row by row, each row's cells one range
// of the index's order, on the same layout) and tests them with gdal's operations, so that a
// device that sums in float64 in that order gives the CPU engine's raster bit for bit. Ties
// between equal distances go by gdal's quadtree order where gdal's search does (DeviceTieRanks),
// and so does average_distance_pts's pair count on gdal's quadtree.

// DeviceStat is the statistic of the DeviceWindow form.
type DeviceStat int

// The moving-window statistics, as windowStat.
const (
	DeviceAverage DeviceStat = iota
	DeviceCount
	DeviceMinimum
	DeviceMaximum
	DeviceRange
	DeviceDistance // average_distance
	DevicePairs    // average_distance_pts (pairs.go)
)

// DeviceSearch is gdal's search area of the gdal_grid forms: the unrotated ellipse of
// semi-axes R1 (x) and R2 (y), tested as gdal tests it (ellipseTest), and, where gdal searches
// its quadtree (UsesQuadtree), the square of half-side Square around the node too (0: none).
// DeviceNearestSample with both radii 0 takes every sample. Ties of DeviceNearestSample go to
// the last in gdal's quadtree order when Square > 0, else to the last in input order.
type DeviceSearch struct {
	R1, R2 float64
	Square float64
	Stat   DeviceStat // DeviceWindow
	// Quadrants are DeviceInvDistNN's per-quadrant limits (gdal 3.6's quadrant search, see
	// quadrantPick), active when either is positive.
	Quadrants QuadrantLimits
}

// Half is the half-side of the square of cells the search visits: max(R1, R2), as
// searchArea.half.
func (s DeviceSearch) Half() float64 { return max(s.R1, s.R2) }

// QuadtreeBucket and QuadtreeSplitRatio are gdal's quadtree's: a node splits when more than
// QuadtreeBucket samples reach it, into halves of QuadtreeSplitRatio of its longer side (the
// device's build of the order, QUAD_BUCKET and QUAD_SPLIT of kernels/forms.cuh, shares them).
const (
	QuadtreeBucket     = quadBucket
	QuadtreeSplitRatio = quadSplitRatio
)

// DeviceTieOrderOwn says whether a device may build p's gdal quadtree order itself, over p's
// samples in absolute coordinates within their bounding box as DeviceTieRanks does: not in a
// Partial job, whose order DeviceTieRanks builds within the whole job's box and whose job learns
// that it was needed.
func DeviceTieOrderOwn(p *Problem) bool { return p.Job == nil || !p.Job.Partial }

// DeviceTieRanks returns each sample's place in gdal's quadtree order, by which gdal breaks
// ties: a device asks for it only when a node meets such a tie, as the CPU engine builds it
// only then, and where it cannot build it itself (DeviceTieOrderOwn). A Partial job learns that
// its values needed the whole job's order.
func DeviceTieRanks(p *Problem) []int32 { return p.newGDALOrder().ranks() }

// gdalSearch is the device search of gdal's ellipse for n samples (0: no problem), or why a
// device cannot run it: a rotated ellipse.
func gdalSearch(r1, r2, angle float64, n int) (DeviceSearch, string) {
	s := DeviceSearch{R1: r1, R2: r2}
	switch {
	case r1 == 0 && r2 == 0:
		return s, "" // every sample
	case angle != 0:
		return s, "a rotated search ellipse runs on the CPU only"
	case n > 0 && UsesQuadtree(n, r1, r2, angle):
		s.Square = s.Half()
	}
	return s, ""
}

// Line says that the search is a line off gdal's quadtree (one radius 0), which gdal tests
// against every sample.
func (s DeviceSearch) Line() bool { return s.Square == 0 && (s.R1 > 0) != (s.R2 > 0) }

// withSearch sets d's search for p (nil: any problem).
func withSearch(d DeviceParams, p *Problem, r1, r2, angle float64) (DeviceParams, bool, string) {
	n := 0
	if p != nil {
		n = p.sampleCount()
	}
	s, why := gdalSearch(r1, r2, angle, n)
	s.Stat = d.Search.Stat
	d.Search = s
	return d, why == "", why
}
