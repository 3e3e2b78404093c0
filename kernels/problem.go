package kernels

import (
	"errors"
	"fmt"
	"math"

	"github.com/aidw/aidw/interp"
)

// devPtr is a device address in the kernels' Problem (a cuda.DevicePtr, without cgo here).
type devPtr uint64

// problem mirrors struct Problem of knn.cuh field for field, each 8 bytes (problem_test.go checks
// the fields against the source, the cuda tests its size on the device).
type problem struct {
	MinX, MinY, Cell, InvCell    float64
	Cols, Rows                   int64
	N                            int64
	Start, XY, Order, Z          devPtr
	GX0, GX1, GX2, GY0, GY1, GY2 float64
	OX, OY                       float64
	TCols                        int64
	K, NQ, MaxPoints             int64
	R2                           float64
	MinPoints                    int64
	Nodata                       float64
	RExp, RMin, RMax             float64
	Alphas                       [5]float64
	Power, Smooth2, HitD2        float64
	Adaptive                     int64
	R1s, R2s, R12s               float64
	Half, Sq                     float64
	Stat                         int64
	Rank                         devPtr
	Flags                        devPtr
	MinPerQuad, MaxPerQuad       int64
	TieByCoords                  int64
}

// weighting is an algorithm mapped onto the kernels: its form, the algorithm's part of the
// problem and the largest power it can use.
type weighting struct {
	form     interp.DeviceForm
	prob     problem
	maxPower float64
}

// weightingOf asks the algorithm of p for its device parameters and maps them onto the
// kernels; box is the samples' bounding box, relative to their origin, as the grid build found
// it (the algorithm's study area comes from it, without another pass over the samples on the
// host).
func weightingOf(p *interp.Problem, box [4]float64) (weighting, error) {
	da, ok := p.Alg.(interp.DeviceAlgorithm)
	if !ok {
		return weighting{}, fmt.Errorf("algorithm %s has no GPU implementation", p.Alg.Name())
	}
	ox, oy := p.Samples.OriginX, p.Samples.OriginY
	d, ok, why := da.DeviceParams(p, interp.Bounds{MinX: box[0] + ox, MinY: box[1] + oy, MaxX: box[2] + ox,
		MaxY: box[3] + oy})
	if !ok {
		return weighting{}, errors.New(why)
	}
	return weightingFrom(d, p.Len()), nil
}

// weightingFrom maps device parameters for n samples onto the kernels' problem: the
// neighbourhood each node searches (NQ: k, max_points, and the nearCorr nearest of a float32
// global weighting) and the weighting's parameters.
func weightingFrom(d interp.DeviceParams, n int) weighting {
	w := weighting{form: d.Form, maxPower: d.MaxPower(), prob: problem{N: int64(n), R2: math.Inf(1), K: 1,
		MinPoints: int64(d.MinPoints), Nodata: d.NoData, Power: d.Power, Smooth2: d.Smooth2, HitD2: d.ExactHit}}
	pr := &w.prob
	if d.Adaptive {
		pr.Adaptive, pr.K = 1, int64(d.K)
		pr.RExp, pr.RMin, pr.RMax, pr.Alphas = d.RExp, d.RMin, d.RMax, d.Alphas
	}
	if d.Radius > 0 {
		pr.R2 = d.Radius * d.Radius
	}
	switch d.Form {
	case interp.DeviceNearest:
		pr.NQ = max(pr.K, int64(min(d.MaxPoints, n)))
		pr.MaxPoints = int64(d.MaxPoints)
	case interp.DeviceRadius:
		pr.NQ = pr.K
	case interp.DeviceGlobal:
		pr.NQ = max(pr.K, int64(min(nearCorr, n)))
	default:
		gdalForm(d, pr)
	}
	return w
}

// kmax is the smallest compiled neighbour-list size holding nq.
func kmax(nq int64) int {
	for _, k := range nodeKs {
		if nq <= int64(k) {
			return k
		}
	}
	return MaxK
}
