package farfield

import "math"

// alphaOrderFor returns the number of Chebyshev powers on [amin, amax] that interpolate
// (d/r0)^-alpha = exp(-alpha L), |L| <= lmax, within tol/2 relative (doc.go).
func alphaOrderFor(tol, amin, amax float64) int {
	h := (amax - amin) / 2
	if h == 0 {
		return 1
	}
	for q := 1; q < 40; q++ {
		if alphaBound(q, h) <= tol/2 {
			return q
		}
	}
	return 40
}

// lmax bounds |ln(d/r0)| over far pairs: d is between nearR and (2 nearR + 2) sqrt 2 boxes.
var lmax = math.Log((2*nearR+2)*math.Sqrt2/nearR) / 2

// alphaBound is the relative error of q-point Chebyshev interpolation of exp(-alpha L) on an
// interval of powers of half-width h, |L| <= lmax: 2 (h lmax/2)^q / q! e^(2 h lmax).
func alphaBound(q int, h float64) float64 {
	lg, _ := math.Lgamma(float64(q) + 1)
	return math.Exp(math.Log(2) + float64(q)*math.Log(h*lmax/2) - lg + 2*h*lmax)
}

// maxOrder is the most Chebyshev points per dimension.
const maxOrder = 20

// tableAlphas are the powers of posErr's rows.
var tableAlphas = []float64{1, 2, 2.5, 3, 3.5, 4, 5, 6, 8, 12, 16}

// posErr[i][p-1] is the largest relative error of the p x p Chebyshev interpolation of
// (d/r0)^-alpha on both boxes of a far pair, alpha = tableAlphas[i], measured over 9 x 9
// points of each box, edges and corners included, and every offset (TestPrintTable prints
// it, TestKernelBound checks it).
var posErr = [][maxOrder]float64{
	{1, 1, 1, 0.00076, 7.2e-05, 8.6e-06, 6.2e-07, 1e-07, 1e-08, 1.2e-09, 6.4e-11, 1.6e-11, 1.1e-12, 2e-13, 2.3e-14, 7.7e-15, 7.3e-15, 8.8e-15, 7.4e-15, 8.1e-15},
	{1, 1, 1, 0.0027, 0.0003, 3.9e-05, 3.6e-06, 5.4e-07, 5.9e-08, 7.3e-09, 5.3e-10, 9.7e-11, 8e-12, 1.3e-12, 1.4e-13, 1.9e-14, 6.9e-15, 9.7e-15, 7.1e-15, 1.1e-14},
	{1, 1, 1, 0.0042, 0.00052, 6.9e-05, 7e-06, 1e-06, 1.2e-07, 1.5e-08, 1.2e-09, 2.1e-10, 1.9e-11, 2.9e-12, 3.2e-13, 4e-14, 8.7e-15, 1e-14, 7.7e-15, 8.9e-15},
	{1, 1, 1, 0.0062, 0.00082, 0.00011, 1.3e-05, 1.9e-06, 2.2e-07, 2.9e-08, 2.7e-09, 4.2e-10, 4.1e-11, 6.1e-12, 6.8e-13, 8.6e-14, 1e-14, 8.6e-15, 7.2e-15, 8.1e-15},
	{1, 1, 1, 0.0087, 0.0012, 0.00018, 2.2e-05, 3.2e-06, 4e-07, 5.3e-08, 6.2e-09, 8.2e-10, 9.2e-11, 1.2e-11, 1.4e-12, 1.8e-13, 2.2e-14, 9.1e-15, 8.2e-15, 8.4e-15},
	{1, 1, 1, 0.014, 0.0019, 0.00033, 4.3e-05, 6.4e-06, 8.3e-07, 1.1e-07, 1.4e-08, 1.8e-09, 2.3e-10, 2.8e-11, 3.4e-12, 4.1e-13, 5.1e-14, 1e-14, 9.3e-15, 9.7e-15},
	{1, 1, 1, 0.031, 0.0051, 0.00096, 0.00014, 2.3e-05, 3.3e-06, 4.8e-07, 6.5e-08, 8.9e-09, 1.2e-09, 1.5e-10, 2e-11, 2.5e-12, 3.1e-13, 4.4e-14, 9.1e-15, 9.1e-15},
	{1, 1, 1, 0.065, 0.012, 0.0025, 0.00042, 7.2e-05, 1.1e-05, 1.7e-06, 2.5e-07, 3.7e-08, 5.1e-09, 7.1e-10, 9.5e-11, 1.3e-11, 1.7e-12, 2.2e-13, 3.1e-14, 8.8e-15},
	{1, 1, 1, 0.24, 0.058, 0.013, 0.0027, 0.00053, 9.5e-05, 1.7e-05, 2.7e-06, 4.4e-07, 6.9e-08, 1e-08, 1.6e-09, 2.3e-10, 3.2e-11, 4.6e-12, 6.3e-13, 9.1e-14},
	{1, 1, 1, 2.1, 0.71, 0.21, 0.056, 0.014, 0.0031, 0.00067, 0.00014, 2.7e-05, 5e-06, 9e-07, 1.6e-07, 2.7e-08, 4.5e-09, 7.4e-10, 1.2e-10, 1.8e-11},
	{1, 1, 1, 32, 7.4, 2.2, 0.7, 0.21, 0.056, 0.014, 0.0034, 0.00078, 0.00017, 3.6e-05, 7.3e-06, 1.4e-06, 2.7e-07, 5e-08, 9.1e-09, 1.6e-09},
}

// directErr[i][p-1] is posErr's measure for direct's kernel, interpolated on the samples' side
// only, at the target's own power (TestPrintDirectTable prints it).
var directErr = [][maxOrder]float64{
	{1, 1, 1, 0.00038, 3.6e-05, 4.3e-06, 3.9e-07, 5.1e-08, 5.1e-09, 6.2e-10, 3.8e-11, 7.8e-12, 7.1e-13, 1e-13, 1.1e-14, 2.6e-15, 2.2e-15, 2.6e-15, 1.7e-15, 1.7e-15},
	{1, 1, 1, 0.0013, 0.00015, 1.9e-05, 2.1e-06, 2.7e-07, 2.9e-08, 3.6e-09, 3.3e-10, 4.9e-11, 4.4e-12, 6.5e-13, 7.1e-14, 9e-15, 2.3e-15, 2.6e-15, 1.9e-15, 1.8e-15},
	{1, 1, 1, 0.0025, 0.00033, 4.2e-05, 5.1e-06, 6.1e-07, 7.2e-08, 8.4e-09, 9.6e-10, 1.1e-10, 1.2e-11, 1.4e-12, 1.6e-13, 2e-14, 2.8e-15, 2.7e-15, 1.9e-15, 1.8e-15},
	{1, 1, 1, 0.0045, 0.00063, 8.6e-05, 1.1e-05, 1.4e-06, 1.8e-07, 2.1e-08, 2.5e-09, 3e-10, 3.5e-11, 4.1e-12, 4.7e-13, 5.4e-14, 7.2e-15, 2.7e-15, 2.1e-15, 2.3e-15},
	{1, 1, 1, 0.0076, 0.0012, 0.00017, 2.3e-05, 3.1e-06, 4e-07, 5e-08, 6.2e-09, 7.6e-10, 9.2e-11, 1.1e-11, 1.3e-12, 1.5e-13, 1.8e-14, 3.8e-15, 2.2e-15, 2.2e-15},
	{1, 1, 1, 0.012, 0.002, 0.00031, 4.5e-05, 6.2e-06, 8.4e-07, 1.1e-07, 1.4e-08, 1.8e-09, 2.3e-10, 2.8e-11, 3.4e-12, 4.1e-13, 5e-14, 7.6e-15, 2e-15, 2.2e-15},
	{1, 1, 1, 0.029, 0.0054, 0.00092, 0.00015, 2.3e-05, 3.3e-06, 4.7e-07, 6.5e-08, 8.8e-09, 1.2e-09, 1.5e-10, 2e-11, 2.5e-12, 3.1e-13, 4.1e-14, 5.1e-15, 2.5e-15},
	{1, 1, 1, 0.063, 0.013, 0.0024, 0.00043, 7.1e-05, 1.1e-05, 1.7e-06, 2.5e-07, 3.6e-08, 5.1e-09, 7e-10, 9.5e-11, 1.3e-11, 1.7e-12, 2.2e-13, 2.8e-14, 4.4e-15},
	{1, 1, 1, 0.24, 0.06, 0.013, 0.0027, 0.00052, 9.5e-05, 1.6e-05, 2.7e-06, 4.4e-07, 6.9e-08, 1e-08, 1.6e-09, 2.3e-10, 3.2e-11, 4.6e-12, 6.3e-13, 8.8e-14},
	{1, 1, 1, 2.2, 0.73, 0.21, 0.057, 0.014, 0.0031, 0.00067, 0.00014, 2.6e-05, 5e-06, 9e-07, 1.6e-07, 2.7e-08, 4.5e-09, 7.4e-10, 1.2e-10, 1.8e-11},
	{1, 1, 1, 15, 6.1, 2.2, 0.71, 0.21, 0.056, 0.014, 0.0034, 0.00078, 0.00017, 3.6e-05, 7.3e-06, 1.4e-06, 2.7e-07, 5e-08, 9.1e-09, 1.6e-09},
}

// directOrderFor returns direct's Chebyshev points per dimension for tol and powers up to amax:
// the fewest whose calibrated error, times 2 for safety, is within tol/2, as the positions'
// share of the far operators' budget is (direct's kernel has no interpolation in the power).
func directOrderFor(tol, amax float64) int {
	return leastOrder(directErr[tableRow(amax)], 2, tol/2)
}

// leastOrder returns the fewest points per dimension (from 4) whose calibrated error errs[p-1],
// times factor, is within budget, else maxOrder.
func leastOrder(errs [maxOrder]float64, factor, budget float64) int {
	for p := 4; p <= maxOrder; p++ {
		if factor*errs[p-1] <= budget {
			return p
		}
	}
	return maxOrder
}

// tableRow returns the row of the tables for powers up to amax.
func tableRow(amax float64) int {
	i := 0
	for i < len(tableAlphas)-1 && tableAlphas[i] < amax {
		i++
	}
	return i
}

// orderFor returns the Chebyshev points per dimension for tol, powers in [amin, amax] and q
// interpolated powers: the fewest whose calibrated error, times 2 for safety and times the
// growth factor of the interpolation in alpha, is within tol/2 (doc.go).
func orderFor(tol, amin, amax float64, q int) int {
	return leastOrder(posErr[tableRow(amax)], 2*alphaGrowth(q, (amax-amin)/2), tol/2)
}

// alphaGrowth bounds how much interpolation in alpha can enlarge relative errors made at the
// q Chebyshev powers: the Lebesgue constant, at most 2/pi ln q + 1, times the largest ratio
// exp(|alpha - alpha_m| |L|) <= exp(2 h lmax) of the kernels at two powers.
func alphaGrowth(q int, h float64) float64 {
	return (2/math.Pi*math.Log(float64(q)) + 1) * math.Exp(2*h*lmax)
}
