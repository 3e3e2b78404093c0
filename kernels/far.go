package kernels

import (
	"fmt"
	"slices"

	"github.com/aidw/aidw/interp"
)

// farOrders are the Chebyshev points per dimension of a box that the far-field weighting is
// compiled for (FAR_KERNEL(ORD) of farfield.cuh): what interp/farfield's bound asks of powers
// up to maxPowerF32 at its DeviceTol.
var farOrders = [...]int{7, 8, 9, 10, 11, 12}

// farKernel names the far-field weighting of boxes of order points per dimension.
func farKernel(order int) string { return fmt.Sprintf("far_weigh_%d", order) }

// farKernels names the far field's kernels for boxes of order points: the leaves' charges,
// the parents', and the weighting.
func farKernels(order int) (leaves, parents, weigh string) {
	return fmt.Sprintf("far_leaves_%d", order), fmt.Sprintf("far_parents_%d", order), fmt.Sprintf("far_weigh_%d", order)
}

// farTree mirrors struct FarTree of farfield.cuh field for field, each 8 bytes.
type farTree struct {
	OX, OY, Side                                            float64
	Depth                                                   int64
	XY, Z, LeafStart, LevelStart, Count, Charges, Charges64 devPtr
	Cheb, Points                                            devPtr
}

// FarFieldMode says when the GPU engine's global weighting sums distant samples by the far
// field (interp/farfield.DeviceTree, within farfield.DeviceTol of the exact sums) rather than
// one by one.
type FarFieldMode int

const (
	// FarFieldAuto: when the algorithm allows it (its farfield key) and it pays (farFieldFrom).
	FarFieldAuto FarFieldMode = iota
	// FarFieldOff: never (the brute force, as `aidw bench` times it beside the far field).
	FarFieldOff
	// FarFieldOn: whenever the weighting allows it, whatever the size.
	FarFieldOn
)

// farFieldFrom are the least numbers of samples and of sample-node pairs from which the far
// field is faster than the brute force on the GPU (bench/results/gpu-farfield.md).
var farFieldFrom = struct {
	samples int
	pairs   float64
}{50_000, 5e9}

// wantsFarField says whether the global weighting d of n samples onto nodes nodes runs by
// far field under mode: a float32 weighting (not Float64, powers up to maxPowerF32) without
// smoothing, which the algorithm lets use it.
func wantsFarField(mode FarFieldMode, d interp.DeviceParams, n int, nodes float64, f64 bool) bool {
	switch {
	case mode == FarFieldOff || d.Form != interp.DeviceGlobal || f64 || d.MaxPower() > maxPowerF32 ||
		d.Smooth2 != 0 || d.ExactHit < 0 || !d.FarField:
		return false
	case mode == FarFieldOn:
		return true
	}
	return n >= farFieldFrom.samples && float64(n)*nodes >= farFieldFrom.pairs
}

// hasFarKernel says whether the far-field weighting is compiled for boxes of order points.
func hasFarKernel(order int) bool { return slices.Contains(farOrders[:], order) }
