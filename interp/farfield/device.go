package farfield

import (
	"fmt"
	"math"
)

// DeviceShape is the far field of a device's kernels (kernels/farfield.cuh), a treecode with
// no far operators: a target sums the samples of the (2 NearR + 1)^2 leaves around its own
// directly, and at every level l from 2 to Depth the interaction list of its level-l box (as in
// doc.go) from the list's charges at Order x Order Chebyshev points, at the target's own
// power: direct's sums at every level instead of the leaves' alone. On a GPU this is tens of
// thousands of weights a target, all alike, which its special-function units evaluate far
// faster than a CPU runs far operators, and with no interpolation in the power there is
// nothing to gather about the targets' powers first. The device sorts the samples into the
// leaves and computes the charges itself: the leaves' from their samples (the Lagrange basis
// at each sample, Cheb and Weights), each parent's from its children's (Child); the shape is
// what it needs to know beforehand.
//
// Error bound: each far pair's kernel is interpolated on the sample's side only, at the
// target's power, so directErr bounds its relative error; Order is the least with 2 directErr
// <= Tol (no share goes to the powers). The device's own rounding (float32 weights) comes on
// top and is measured by its tests.
type DeviceShape struct {
	// Depth is the leaves' level: 2^Depth x 2^Depth leaves over the square of side Side whose
	// lower left corner is (OX, OY), in the samples' coordinates.
	Depth  int
	OX, OY float64
	Side   float64
	// Order is the Chebyshev points per dimension of a box, Cheb those points on [0, 1] and
	// Weights their barycentric weights.
	Order         int
	Cheb, Weights []float64
	// Child[h][a*Order+k] is the parent's basis function a at its child h's point k, along one
	// dimension (h: 0 the lower half, 1 the upper): a parent's charges are its children's
	// through Child in x and in y.
	Child [2][]float64
}

// NearR is the near field's reach in leaves (FF_NEAR of kernels/farfield.cuh).
const NearR = nearR

// DeviceTol is NewDeviceShape's default tolerance: what a device's float32 weights hold to.
const DeviceTol = 1e-6

// deviceMaxBytes bounds a device tree's charges (float64, z and 1, every level).
const deviceMaxBytes = 2 << 30

// NewDeviceShape returns the device far field of n samples whose bounding box is samples, for
// targets within targets (both xmin ymin xmax ymax). Of opts it takes Tol (default DeviceTol),
// AlphaMax, Order (0: from Tol) and LeafSize.
func NewDeviceShape(samples, targets [4]float64, n int, opts Options) (*DeviceShape, error) {
	if opts.Tol == 0 {
		opts.Tol = DeviceTol
	}
	pl, err := checkedPlan(nil, nil, nil, opts)
	if err != nil {
		return nil, err
	}
	for _, v := range append(samples[:], targets[:]...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("farfield: box %v x %v is not finite", samples, targets)
		}
	}
	pl.p = pl.o.Order
	if pl.p <= 0 {
		pl.p = leastOrder(directErr[tableRow(pl.o.AlphaMax)], 2, pl.o.Tol)
	}
	pl.pd = pl.p
	pl.setPoints()
	ds := &DeviceShape{Order: pl.p, Cheb: pl.cheb, Weights: pl.bw, Child: pl.s2}
	ds.OX, ds.OY, ds.Side = squareOf([4]float64{min(samples[0], targets[0]), min(samples[1], targets[1]),
		max(samples[2], targets[2]), max(samples[3], targets[3])})
	ds.Depth = deviceDepth(n, pl.p, pl.o.LeafSize, ds.Side)
	return ds, nil
}

// deviceDepth is the depth at which a target weighs the fewest pairs: 25 leaves of samples
// (each costing nearCost far points: their coordinates and sums are float64) and 75 boxes of
// p x p points at each level from 2; with leafSize > 0, the least depth whose leaves hold at
// most leafSize samples on average. Either way leaves stay wider than 1e-5 and the charges
// within deviceMaxBytes.
func deviceDepth(ns, p, leafSize int, sd float64) int {
	const nearCost = 1.5
	best, bestCost := 0, math.Inf(1)
	boxes := 0.0
	for d := 0; d <= 15; d++ {
		nl := float64(int(1) << (2 * d))
		if d >= 2 {
			boxes += nl
		}
		if d > 0 && sd/float64(int(1)<<d) < 1e-5 || boxes*float64(p*p)*16 > deviceMaxBytes {
			break
		}
		if leafSize > 0 {
			best = d
			if float64(ns) <= float64(leafSize)*nl {
				break
			}
			continue
		}
		pairs := nearCost*float64((2*nearR+1)*(2*nearR+1))*float64(ns)/nl +
			float64(max(d-1, 0))*float64(listLen*p*p)
		if pairs < bestCost {
			best, bestCost = d, pairs
		}
	}
	return best
}
