package interp

import "fmt"

// The device forms of gdal_grid's neighbourhood algorithms: nearest, invdistnn, invdist over a
// search ellipse, and the moving-window statistics. Each form visits a node's samples as the
// CPU engine does (the cells of the search square, row by row, each row's cells one range of
// the index's order, on the same layout) and tests them with gdal's operations, so that a
// device that sums in float64 in that order gives the CPU engine's raster bit for bit. Ties
// between equal distances go by gdal's quadtree order where gdal's search does (DeviceTieRanks).

// gdalFormNames are the names of gdal_grid's device forms.
var gdalFormNames = map[DeviceForm]string{
	DeviceNearestSample: "nearest sample", DeviceWindow: "window", DeviceInvDistNN: "invdistnn",
	DeviceEllipse: "ellipse",
}

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

// DeviceTieRanks returns each sample's place in gdal's quadtree order, by which gdal breaks
// ties: a device asks for it only when a node meets such a tie, as the CPU engine builds it
// only then. A Partial job learns that its values needed the whole job's order.
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

// DeviceParams implements DeviceAlgorithm: the nearest sample in gdal's search area.
func (a *Nearest) DeviceParams(p *Problem, _ Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Form: DeviceNearestSample, NoData: a.NodataValue}
	return withSearch(d, p, a.Radius1, a.Radius2, a.Angle)
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
	AverageDistance: DeviceDistance,
}

// DeviceParams implements DeviceAlgorithm: minimum, maximum, range, count and
// average_distance over the search ellipse, without per-quadrant options.
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

// DeviceParams implements DeviceAlgorithm: gdal's invdistnn, with per-quadrant options or not.
func (a *InvDistNN) DeviceParams(p *Problem, _ Bounds) (DeviceParams, bool, string) {
	d := DeviceParams{Form: DeviceInvDistNN, Power: a.Power, Smooth2: a.Smoothing * a.Smoothing,
		Radius: a.Radius, MaxPoints: a.MaxPoints, MinPoints: a.MinPoints, NoData: a.NodataValue,
		ExactHit: exactHitD2}
	d.Search.Quadrants = a.QuadrantLimits
	switch {
	case a.active() && a.MaxPoints == 0 && a.MaxPerQuadrant == 0:
		return d, false, "invdistnn's quadrant search without max_points or max_points_per_quadrant runs on the CPU only"
	case !a.active() && a.MaxPoints == 0:
		return d, false, "invdistnn without max_points runs on the CPU only"
	case p != nil && !(a.Radius > 0):
		return d, false, "invdistnn: Radius value should be strictly positive"
	}
	return d, true, ""
}

// ellipseDeviceParams is invdist's DeviceParams over a search ellipse: without max_points,
// whose samples gdal takes in input order.
func (a *InvDist) ellipseDeviceParams(d DeviceParams) (DeviceParams, bool, string) {
	d.Form, d.MinPoints, d.ExactHit, d.FarField = DeviceEllipse, a.MinPoints, exactHitD2, false
	d.Search = DeviceSearch{R1: a.Radius1, R2: a.Radius2}
	switch {
	case a.MaxPoints > 0:
		return d, false, "invdist with a search ellipse and max_points runs on the CPU only"
	case a.Angle != 0:
		return d, false, "a rotated search ellipse runs on the CPU only"
	case !(a.Radius1 > 0 && a.Radius2 > 0):
		return d, false, "a search ellipse with one radius 0 runs on the CPU only"
	}
	return d, true, ""
}
