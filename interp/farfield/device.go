package farfield

import (
	"context"
	"math"
)

// DeviceTree is the far field laid out for a device's kernels (kernels/farfield.cuh): a
// treecode with no far operators. A target sums the samples of the (2 nearR + 1)^2 leaves
// around its own directly, and at every level l from 2 to Depth the interaction list of its
// level-l box (as in doc.go) from the list's charges at Order x Order Chebyshev points, at the
// target's own power: direct's sums at every level instead of the leaves' alone. On a GPU this
// is thousands of weights a target, all alike and all in registers, which its special-function
// units evaluate far faster than a CPU runs far operators; with no interpolation in the power
// there is nothing to gather about the targets' powers first.
//
// Error bound: each far pair's kernel is interpolated on the sample's side only, at the
// target's power, so directErr bounds its relative error; Order is the least with 2 directErr
// <= Tol (no share goes to the powers). The device's own rounding (float32 weights) comes on
// top and is measured by its tests.
type DeviceTree struct {
	// Depth is the leaves' level: 2^Depth x 2^Depth leaves over the square of side Side whose
	// lower left corner is (OX, OY), in the samples' coordinates.
	Depth      int
	OX, OY     float64
	Side       float64
	Order      int       // Chebyshev points per dimension of a box
	Cheb       []float64 // the points on [0, 1], as the charges were computed at
	X, Y, Z    []float64 // the samples, sorted by leaf, leaves in row-major order
	LeafStart  []int32   // leaf (ix, iy) holds samples [LeafStart[iy<<Depth+ix], LeafStart[iy<<Depth+ix+1])
	LevelStart []int64   // level l's first box (in boxes) in Count and Charges, levels 0 to Depth+1
	// Count is each box's number of samples, boxes of each level from 2 in row-major order,
	// and Charges their charges: Order^2 pairs (z, 1) a box, point (a, b) (at (Cheb[a],
	// Cheb[b]) in the box) at a*Order+b.
	Count   []int32
	Charges []float32
}

// NearR is the near field's reach in leaves (FF_NEAR of kernels/farfield.cuh).
const NearR = nearR

// DeviceTol is NewDeviceTree's default tolerance: what a device's float32 weights can hold to.
const DeviceTol = 1e-6

// deviceMaxBytes bounds a device tree's charges.
const deviceMaxBytes = 1 << 30

// NewDeviceTree builds the device tree of the samples (sx, sy, sz) over box (xmin ymin xmax
// ymax of the targets, grown to hold every sample). Of opts it takes Tol (default DeviceTol),
// AlphaMax, Order (0: from Tol), LeafSize and Threads.
func NewDeviceTree(ctx context.Context, sx, sy, sz []float64, box [4]float64, opts Options) (*DeviceTree, error) {
	if opts.Tol == 0 {
		opts.Tol = DeviceTol
	}
	pl, err := newPlan(sx, sy, sz, opts)
	if err != nil {
		return nil, err
	}
	pl.p = pl.o.Order
	if pl.p <= 0 {
		pl.p = leastOrder(directErr[tableRow(pl.o.AlphaMax)], 2, pl.o.Tol)
	}
	pl.pd = pl.p
	pl.setPoints()
	t := pl.square(box)
	t.d = deviceDepth(len(sx), pl.p, pl.o.LeafSize, t.sd)
	t.fields = t.d // charges only: no far fields, no direct's points
	pl.fill(t)
	if t.d >= 2 {
		if err := pl.upward(ctx, t); err != nil {
			return nil, err
		}
	}
	dt := &DeviceTree{Depth: t.d, OX: t.ox, OY: t.oy, Side: t.sd, Order: pl.p, Cheb: pl.cheb,
		X: t.x, Y: t.y, Z: t.z, LeafStart: t.start, LevelStart: make([]int64, t.d+2)}
	for l := range t.d + 1 {
		dt.LevelStart[l+1] = dt.LevelStart[l]
		if l >= 2 {
			dt.LevelStart[l+1] += int64(1) << (2 * l)
		}
	}
	p2 := pl.p * pl.p
	boxes := dt.LevelStart[t.d+1]
	dt.Count, dt.Charges = make([]int32, boxes), make([]float32, boxes*int64(2*p2))
	for l := 2; l <= t.d; l++ {
		err := run(ctx, pl.o.Threads, 1<<(2*l), 1024, func(lo, hi int) {
			for code := lo; code < hi; code++ {
				b := dt.LevelStart[l] + int64(unspread(code>>1)<<l+unspread(code))
				dt.Count[b] = t.cnt[l][code]
				q := dt.Charges[b*int64(2*p2):][:2*p2]
				mz, m1 := t.mp[l][code*2*p2:][:p2], t.mp[l][(code*2+1)*p2:][:p2]
				for k := range p2 {
					q[2*k], q[2*k+1] = float32(mz[k]), float32(m1[k])
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return dt, nil
}

// deviceDepth is the depth at which a target weighs the fewest pairs: 25 leaves of samples
// (each costing nearCost far points: their coordinates are float64) and 75 boxes of p x p
// points at each level from 2; with leafSize > 0, the least depth whose leaves hold at most
// leafSize samples on average. Either way leaves stay wider than 1e-5 and the charges within
// deviceMaxBytes.
func deviceDepth(ns, p, leafSize int, sd float64) int {
	const nearCost = 1.5
	best, bestCost := 0, math.Inf(1)
	boxes := 0.0
	for d := 0; d <= 15; d++ {
		nl := float64(int(1) << (2 * d))
		if d >= 2 {
			boxes += nl
		}
		if d > 0 && sd/float64(int(1)<<d) < 1e-5 || boxes*float64(p*p)*8 > deviceMaxBytes {
			break
		}
		pairs := nearCost*float64((2*nearR+1)*(2*nearR+1))*float64(ns)/nl +
			float64(max(d-1, 0))*float64(listLen*p*p)
		if leafSize > 0 {
			best = d
			if float64(ns) <= float64(leafSize)*nl {
				break
			}
			continue
		}
		if pairs < bestCost {
			best, bestCost = d, pairs
		}
	}
	return best
}
