// Package farfield computes the global sums of inverse distance weighting with a power per
// target, num[j] = sum_i w_ij z_i and den[j] = sum_i w_ij, w_ij = |t_j - s_i|^-alpha_j, for
// scattered targets, by interpolation-based fast summation (a Chebyshev treecode on both
// sides, in the manner of the black-box FMM of Fong and Darve and the barycentric Lagrange
// treecodes of Wang, Krasny et al.), to a relative tolerance chosen in advance.
//
// # Scheme
//
// Samples and targets share a uniform quadtree over their common bounding square; its depth
// comes from a cost model (Plan.depth) unless Options.LeafSize fixes it. A target's near field
// is the samples of the (2 nearR + 1)^2 = 25 leaves around its own: they are summed directly in
// float64 (d^-alpha as 2^(-alpha/2 log2 d^2), within about 1e-14 of math.Pow), and a sample
// within ExactHitD2 of the target is left out of the sums and reported. Every other sample is
// in the far field of exactly one ancestor box B of the target's leaf, at exactly one level
// l >= 2: it lies in a box of B's interaction list, the boxes of level l that are children
// of the boxes within nearR of B's parent but are not within nearR of B themselves (at most
// 75, offsets up to 2 nearR + 1 boxes). Each box S carries charges at its p x p Chebyshev
// points, Q_kl = sum_{s in S} L_kl(s) z_s and the same with 1 for z (the Lagrange basis at the
// samples for leaves, the parent's basis at the children's points above them, which is exact).
// Each box B that holds targets, at the levels from 2 to fields (the leaves' level d, or the
// one above it), gets, for each of q Chebyshev powers alpha_m on [AlphaMin, AlphaMax], its
// far field at its own p x p Chebyshev points t_ab:
// F_m(t_ab) = sum_S sum_kl (|t_ab - y_kl| / (w_l r0))^-alpha_m Q_kl, w_l the side of level l's
// boxes and r0 = sqrt(2 nearR (2 nearR + 2) sqrt 2). In box units the kernel depends only on the
// offset of S from B, so the p^2 x p^2 operators are computed once per offset and power (at
// most 96 x q of them) and reused at every box and level. A target interpolates, at each
// ancestor level, F in x, y (p points each) and alpha (q points), barycentric Lagrange, and
// multiplies by (w_l r0)^-alpha. Levels are not merged (no local-to-local pass), so that each
// interpolation in alpha only sees ln(d / (w_l r0)) within +-lmax (see also Boxes of one
// power). When fields is d-1, the
// target sums its leaf's interaction list instead, from the list's charges at pd x pd points
// directly, sum_S sum_kl |t - y_kl|^-alpha Q_kl at its own power (direct: at most 75 pd^2
// weights, run 8 at a time by internal/weigh as the near field is): a leaf's far operators
// cost as much as that does for some hundreds of targets, and Plan.depth's cost model picks
// the cheaper for the job's numbers of samples and targets and the CPU's loops.
//
// # Boxes of one power
//
// A box whose targets all have one power (AIDW's power stays at its top level wherever
// samples are spread evenly, at its bottom one where they cluster) gets its far field at
// that power alone, by operators computed for it (for the up to maxSingles powers that most
// boxes of level fields share), in the place of the first interpolated power; its targets
// skip the interpolation in the power. Sums finds such boxes from its targets; a Field is
// told its targets' powers before it is built (Powers), so that it stays fixed by the job,
// and a place it was not told of gets every sample's sums exactly.
//
// # Error bound
//
// The far sum is linear in the kernel: sum_s K~(t, s) z_s with K~(t,s) = sum_m lambda_m(alpha)
// sum_{ab,kl} L_ab(t) K(t_ab, y_kl; alpha_m) L_kl(s). So if |K~ - K| <= eps K for every far pair,
// the error in den[j] is at most eps den[j] and that in num[j] at most eps sum_i w_ij |z_i|,
// whatever the number and layout of the samples; eps <= tol is what the orders are chosen
// for, half for the powers and half for the positions:
//
// Powers (analytic). A far pair is between nearR = 2 and (2 nearR + 2) sqrt 2 boxes apart, so
// L = ln(d / (w_l r0)) lies within +-lmax, lmax = ln((2 nearR + 2) sqrt 2 / nearR) / 2 = 0.7226.
// The q-point Chebyshev interpolant of exp(-alpha L) on powers of half-width h errs by at most
// h^q |L|^q / (2^(q-1) q!) times the largest value on the interval, so relatively by at most
// 2 (h lmax / 2)^q / q! exp(2 h lmax) (alphaBound); q is the least making that <= tol/2. For
// [1.5, 3.5] and tol 1e-9: q = 10 (8.9e-11; q = 9 gives 2.5e-9). One power gives q = 1, exact.
//
// Positions (calibrated). K is analytic in the four coordinates of a far pair (its branch
// points are at least nearR boxes away), and its tensor Chebyshev interpolant on both boxes
// converges geometrically, about 8^-p here. Rather than an analytic constant, posErr[alpha][p]
// is the largest relative error of the p x p x p x p interpolant measured over 9 x 9 points of
// each box, corners and edges included, for every offset (TestPrintTable recomputes it). The
// interpolation in alpha can amplify relative errors made at the powers alpha_m by at most
// G = Lambda_q exp(2 h lmax) (Lebesgue constant Lambda_q <= 2/pi ln q + 1, times the largest
// ratio of the kernel at two powers), so p is the least with 2 posErr G <= tol/2, the 2 a
// safety factor for the discrete measurement (orderFor). For [1.5, 3.5] and tol 1e-9: G =
// 10.5, p = 14 (posErr 1.2e-11 at alpha 3.5). TestKernelBound measures the combined K~ of the
// default plans against 0.75 tol (4e-11 and 1e-10 found), and direct's, sum_kl K(t, y_kl)
// L_kl(s), interpolated on the samples' side only at the target's own power (1.1e-11 and
// 5e-11); the tests compare whole sums
// with a compensated brute force (errors 1e-14 to 2e-11 against tol 1e-9: the bound holds
// for the worst pair, at a box corner, and most pairs are far better).
//
// Rounding: charges and operators are float64; the near field's weights are within about
// 1e-14 relative of math.Pow's. Coordinates enter the far field relative to the square's
// corner, scaled to boxes, and the near field as given, so absolute UTM coordinates lose
// nothing beyond their own differences.
//
// # Exact hits
//
// Leaves are at least 1e-5 wide, so a sample within sqrt(ExactHitD2) = 3.2e-7 of a target is
// in its leaf or a neighbour: near field. Sums leaves it out and reports the first such
// sample in input order (hit[j]), and the far field only ever meets distances of at least
// nearR leaves.
//
// # On a device
//
// DeviceShape (device.go) is the same tree for a GPU's kernels without far operators: every
// level is summed as direct sums the leaves' (at the target's own power, from the charges at
// p x p points), which a GPU's special-function units do faster than a CPU runs operators.
//
// # Costs
//
// Tree build: a counting sort of samples (leaves in row-major order, so that the near field is
// 5 runs of samples) and targets (Morton order) by leaf, O(n + leaves). Far operators: at most
// 75 per box of levels 2 to fields, 2 q p^4 multiply-adds each (in AVX-512 assembly where the
// CPU has it, two boxes per read of the operator); per target, the near field's 25 leaves of
// samples, direct's 75 pd^2 points if fields < d, and the interpolation, 2 (q + 1) p^2 per
// level from 2 to fields. Plan.depth picks the depth and fields of least estimated time. Memory: the
// charges, far fields and leaves' points, about sum over levels of 4^l 2 p^2 (1 + q) float64,
// capped at 1 GiB, and the operators, 96 q p^4 float64 (300 MB at p = 14, q = 10).
package farfield
