package kernels

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/interp"
)

// gdal_grid's forms on the kernels of forms.cuh (interp/device_forms.go describes them).

// formKernels name the kernel of each gdal_grid form; invdistnn's is one of nodeKs' sizes
// (invdistnnKernel).
var formKernels = map[interp.DeviceForm]string{
	interp.DeviceNearestSample: "nearest_sample",
	interp.DeviceWindow:        "window_stat",
	interp.DeviceEllipse:       "ellipse_idw",
}

// pairsKernel is the DeviceWindow form's kernel for average_distance_pts (interp.DevicePairs).
const pairsKernel = "window_pairs"

// formKernel names the kernel of a gdal_grid form of statistic stat (DeviceWindow), quadrant
// search (DeviceInvDistNN) and neighbour-list size k (the other invdistnn).
func formKernel(form interp.DeviceForm, stat interp.DeviceStat, quad bool, k int) string {
	name, ok := formKernels[form]
	switch {
	case form == interp.DeviceWindow && stat == interp.DevicePairs:
		return pairsKernel
	case ok:
		return name
	case quad:
		return invdistnnQuadKernel
	}
	return invdistnnKernel(k)
}

// invdistnnKernel names invdistnn's kernel of neighbour-list size k (INVDISTNN_KERNEL(K) of
// forms.cuh, one for each of nodeKs).
func invdistnnKernel(k int) string { return fmt.Sprintf("invdistnn_%d", k) }

// invdistnnQuadKernel is invdistnn's kernel with the quadrant search; it keeps the quadKeep
// nearest of each quadrant (QUAD_KEEP of forms.cuh), so it takes at most that many from one.
const (
	invdistnnQuadKernel = "invdistnn_quad"
	quadKeep            = 32
)

// flagRanks is FLAG_RANKS of forms.cuh: a node met a tie that gdal's quadtree order breaks.
const flagRanks = 1

// flagHostOrder is FLAG_HOST_ORDER of forms.cuh: only the host's build gives gdal's quadtree
// order of these samples (deviceTieRanks).
const flagHostOrder = 1

// isGDALForm says whether f is one of gdal_grid's forms.
func isGDALForm(f interp.DeviceForm) bool {
	_, ok := formKernels[f]
	return ok || f == interp.DeviceInvDistNN
}

// gdalForm completes the problem of a gdal_grid form: its search area and statistic, and
// invdistnn's neighbour list (max_points and one more, to see a tie straddling max_points).
func gdalForm(d interp.DeviceParams, pr *problem) {
	s := d.Search
	pr.R1s, pr.R2s = s.R1*s.R1, s.R2*s.R2
	pr.R12s = pr.R1s * pr.R2s
	pr.Half, pr.Sq, pr.Stat = s.Half(), math.Inf(1), int64(s.Stat)
	if s.Square > 0 {
		pr.Sq = s.Square
	}
	if s.Line() {
		pr.Half = math.Inf(1) // every cell
	}
	if d.Form == interp.DeviceInvDistNN {
		pr.NQ, pr.MaxPoints = int64(d.MaxPoints)+1, int64(d.MaxPoints)
		pr.Half = d.Radius // the exact-hit square's half-side
		q := s.Quadrants
		pr.MinPerQuad, pr.MaxPerQuad = int64(q.MinPerQuadrant), int64(q.MaxPerQuadrant)
	}
}

// whyNotForm says why the kernels cannot run a gdal_grid form, or "".
func whyNotForm(d interp.DeviceParams) string {
	weighs := d.Form == interp.DeviceInvDistNN || d.Form == interp.DeviceEllipse
	switch {
	case weighs && !(d.Power >= 0 && d.Power <= 8 && d.Power == math.Trunc(d.Power)):
		return fmt.Sprintf("the GPU engine weighs by whole powers 0 to 8, not %g", d.Power)
	case quadrants(d):
		if l := perQuadrant(d); l > quadKeep {
			return fmt.Sprintf("the GPU engine's quadrant search takes at most %d samples from a quadrant, not %d",
				quadKeep, l)
		}
	case d.Form == interp.DeviceInvDistNN && d.MaxPoints+1 > MaxK:
		return fmt.Sprintf("the GPU engine keeps at most %d neighbours, not max_points=%d (and one more)", MaxK,
			d.MaxPoints)
	}
	return ""
}

// quadrants says whether d is invdistnn's quadrant search.
func quadrants(d interp.DeviceParams) bool {
	q := d.Search.Quadrants
	return d.Form == interp.DeviceInvDistNN && (q.MinPerQuadrant > 0 || q.MaxPerQuadrant > 0)
}

// perQuadrant is the most samples the quadrant search takes from one quadrant: max_points or
// max_points_per_quadrant, the smaller where both are set.
func perQuadrant(d interp.DeviceParams) int {
	m, per := d.MaxPoints, d.Search.Quadrants.MaxPerQuadrant
	switch {
	case m > 0 && per > 0:
		return min(m, per)
	case per > 0:
		return per
	}
	return m
}
