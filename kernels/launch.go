//go:build cuda

package kernels

import (
	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/kernels/cuda"
)

// Typed launchers: one Go function per kernel of build.cuh, knn.cuh and weigh.cuh, with its
// parameters in the kernel's order and its launch shape (device thread only). A launch
// passes every parameter as 8 bytes, so each goes through ptr (cuda.Ptr, a device pointer),
// cuda.Addr, i64 (cuda.Int, an i64) or dbl (cuda.F64, a double).

type (
	buf  = cuda.Buffer
	addr = cuda.DevicePtr
)

var (
	ptr = cuda.Ptr
	i64 = cuda.Int
	dbl = cuda.F64
)

// ---- build.cuh

// bboxPartial reduces a grid-strided share of the n samples to one box per block of nb.
func bboxPartial(d *cuda.Device, nb int, x, y buf, n int, part buf) error {
	return d.Launch("bbox_partial", cuda.Shape{GX: nb, GY: 1, Threads: bboxBlock}, ptr(x), ptr(y), i64(n), ptr(part))
}

// bboxFinal reduces the nb boxes of part to one at out.
func bboxFinal(d *cuda.Device, part buf, nb int, out addr) error {
	return d.Launch("bbox_final", cuda.Shape{GX: 1, GY: 1, Threads: bboxBlock}, ptr(part), i64(nb), cuda.Addr(out))
}

// quantaCoords writes the n coordinates of quanta q, moved by shift, of size quantum to out.
func quantaCoords(d *cuda.Device, q buf, shift int64, quantum float64, n int, out buf) error {
	return d.Launch("quanta_coords", cuda.Over(n, flatBlock), ptr(q), i64(int(shift)), dbl(quantum), i64(n), ptr(out))
}

// cellKeys writes each sample's cell on layout l.
func cellKeys(d *cuda.Device, x, y buf, n int, l grid.Layout, keys buf) error {
	return d.Launch("cell_keys", cuda.Over(n, flatBlock), ptr(x), ptr(y), i64(n), dbl(l.MinX), dbl(l.MinY),
		dbl(l.InvCell), i64(l.Cols), i64(l.Rows), ptr(keys))
}

// scanReduce writes the sums of the tiles of in.
func scanReduce(d *cuda.Device, tiles int, in buf, n int, part buf) error {
	return d.Launch("scan_reduce", cuda.Shape{GX: tiles, GY: 1, Threads: scanBlock}, ptr(in), i64(n), ptr(part))
}

// scanReduceHeads writes the tiles' counts of run heads of the sorted keys.
func scanReduceHeads(d *cuda.Device, tiles int, sorted buf, n int, part buf) error {
	return d.Launch("scan_reduce_heads", cuda.Shape{GX: tiles, GY: 1, Threads: scanBlock}, ptr(sorted), i64(n),
		ptr(part))
}

// scanSpine scans the tiles' sums in place and writes their total.
func scanSpine(d *cuda.Device, part buf, tiles int, total addr) error {
	return d.Launch("scan_spine", cuda.Shape{GX: 1, GY: 1, Threads: spineBlock}, ptr(part), i64(tiles),
		cuda.Addr(total))
}

// scanDown writes the exclusive scan of in to out.
func scanDown(d *cuda.Device, tiles int, in buf, n int, part, out buf) error {
	return d.Launch("scan_down", cuda.Shape{GX: tiles, GY: 1, Threads: scanBlock}, ptr(in), i64(n), ptr(part),
		ptr(out))
}

// scanDownHeads writes the start of each run of the sorted keys.
func scanDownHeads(d *cuda.Device, tiles int, sorted buf, n int, part, runs buf) error {
	return d.Launch("scan_down_heads", cuda.Shape{GX: tiles, GY: 1, Threads: scanBlock}, ptr(sorted), i64(n),
		ptr(part), ptr(runs))
}

// runCounts writes each run's length into the counts of its key.
func runCounts(d *cuda.Device, sorted, runStart buf, runs addr, n int, counts buf) error {
	return d.Launch("run_counts", cuda.Over(n, flatBlock), ptr(sorted), ptr(runStart), cuda.Addr(runs), i64(n),
		ptr(counts))
}

// radixUpsweep counts the digits at shift of each tile of keys.
func radixUpsweep(d *cuda.Device, tiles int, keys buf, n, shift int, digits buf) error {
	return d.Launch("radix_upsweep", cuda.Shape{GX: tiles, GY: 1, Threads: sortBlock}, ptr(keys), i64(n), i64(shift),
		ptr(digits))
}

// radixDigitScan scans the digit counts across tiles and writes the digits' totals.
func radixDigitScan(d *cuda.Device, digits buf, tiles int, totals buf) error {
	return d.Launch("radix_digit_scan", cuda.Shape{GX: radix, GY: 1, Threads: scanBlock}, ptr(digits), i64(tiles),
		ptr(totals))
}

// radixDownsweep scatters the pairs by their digit at shift, stably.
func radixDownsweep(d *cuda.Device, tiles int, srcK, srcV, dstK, dstV buf, n, shift int, digits, totals buf) error {
	return d.Launch("radix_downsweep", cuda.Shape{GX: tiles, GY: 1, Threads: sortBlock}, ptr(srcK), ptr(srcV),
		ptr(dstK), ptr(dstV), i64(n), i64(shift), ptr(digits), ptr(totals))
}

// gatherSamples permutes the samples into cell order, in float64 and, unless s32 is null, float32.
func gatherSamples(d *cuda.Device, order, x, y, z buf, n int, xy, zOut, s32 buf) error {
	return d.Launch("gather_samples", cuda.Over(n, flatBlock), ptr(order), ptr(x), ptr(y), ptr(z), i64(n), ptr(xy),
		ptr(zOut), ptr(s32))
}

// ---- knn.cuh

// problemSize writes sizeof(Problem).
func problemSize(d *cuda.Device, out buf) error {
	return d.Launch("problem_size", cuda.Shape{GX: 1, GY: 1, Threads: 1}, ptr(out))
}

// knnList writes the k nearest samples of count nodes (k of nodeKs).
func knnList(d *cuda.Device, k int, prob buf, row0, first, count int, list, outID, outD2, outCnt buf) error {
	return d.Launch(nodeKernelsOf[k].knnList, cuda.Over(count, nodeBlock), ptr(prob), i64(row0), i64(first),
		i64(count), ptr(list), ptr(outID), ptr(outD2), ptr(outCnt))
}

// nodePrep prepares count nodes for the global weighting: coordinates, power constants, exact
// hits and nearest samples (k of nodeKs).
func nodePrep(d *cuda.Device, k int, prob buf, row0, first, count int, list, px, py, pc, pc0, pd2, hit, nearPos,
	nearD2 buf) error {
	return d.Launch(nodeKernelsOf[k].nodePrep, cuda.Over(count, nodeBlock), ptr(prob), i64(row0), i64(first),
		i64(count), ptr(list), ptr(px), ptr(py), ptr(pc), ptr(pc0), ptr(pd2), ptr(hit), ptr(nearPos), ptr(nearD2))
}

// local weighs the max_points nearest samples of count nodes (k of nodeKs), and writes their
// reach too when reach is allocated.
func local(d *cuda.Device, k int, prob buf, row0, first, count int, list, out, reach buf) error {
	return d.Launch(nodeKernelsOf[k].local, cuda.Over(count, nodeBlock), ptr(prob), i64(row0), i64(first),
		i64(count), ptr(list), ptr(out), ptr(reach))
}

// radius weighs the samples within the radius of count nodes (k of nodeKs).
func radius(d *cuda.Device, k int, prob buf, row0, first, count int, list, out, reach buf) error {
	return d.Launch(nodeKernelsOf[k].radius, cuda.Over(count, nodeBlock), ptr(prob), i64(row0), i64(first),
		i64(count), ptr(list), ptr(out), ptr(reach))
}

// ---- weigh.cuh

// weighF32 runs float32 global weighting w over count nodes and splits sample ranges; lane is
// node 0's raster index modulo the nodes of a block (see weigh_all_f32).
func weighF32(d *cuda.Device, w f32Weighting, splits int, prob, s32, px, py, pc, pc0, pd2 buf, count, lane int,
	partW, partWZ buf) error {
	nb := cuda.Blocks(count+lane, wf32Block*w.npt)
	return d.Launch(w.name, cuda.Shape{GX: nb, GY: splits, Threads: wf32Block}, ptr(prob), ptr(s32), ptr(px), ptr(py),
		ptr(pc), ptr(pc0), ptr(pd2), i64(count), i64(lane), ptr(partW), ptr(partWZ))
}

// weighF64 runs the float64 global weighting over nb node blocks and splits sample ranges.
func weighF64(d *cuda.Device, nb, splits int, prob, px, py, pc, pc0 buf, count int, partW, partWZ buf) error {
	return d.Launch("weigh_all_f64", cuda.Shape{GX: nb, GY: splits, Threads: wf64Block}, ptr(prob), ptr(px), ptr(py),
		ptr(pc), ptr(pc0), i64(count), ptr(partW), ptr(partWZ))
}

// weighFinish adds the splits' sums and writes the values; npt and npoly are the float32
// weighting's (0 after the float64 one).
func weighFinish(d *cuda.Device, prob, partW, partWZ, hit buf, count, splits int, s32, px, py, pc, pc0, pd2,
	nearPos, nearD2 buf, npt, npoly, lane int, out buf) error {
	return d.Launch("weigh_finish", cuda.Over(count, finishBlock), ptr(prob), ptr(partW), ptr(partWZ), ptr(hit),
		i64(count), i64(splits), ptr(s32), ptr(px), ptr(py), ptr(pc), ptr(pc0), ptr(pd2), ptr(nearPos),
		ptr(nearD2), i64(npt), i64(npoly), i64(lane), ptr(out))
}

// ---- farfield.cuh

// farTreeSize writes sizeof(FarTree).
func farTreeSize(d *cuda.Device, out buf) error {
	return d.Launch("far_tree_size", cuda.Shape{GX: 1, GY: 1, Threads: 1}, ptr(out))
}

// farLeaves computes the charges of the 4^depth leaves of tree, of boxes of order points.
func farLeaves(d *cuda.Device, order, depth int, tree buf) error {
	leaves, _, _ := farKernels(order)
	return d.Launch(leaves, cuda.Shape{GX: 1 << (2 * depth), GY: 1, Threads: max(order*order, 2*farBatch)}, ptr(tree))
}

// farParents computes the charges of level l's boxes from their children's.
func farParents(d *cuda.Device, order, l int, tree buf) error {
	_, parents, _ := farKernels(order)
	return d.Launch(parents, cuda.Shape{GX: 1 << (2 * l), GY: 1, Threads: order * order}, ptr(tree), i64(l))
}

// farWeigh weighs count prepared nodes by the far field of tree, of boxes of order points.
func farWeigh(d *cuda.Device, order int, prob, tree, px, py, pc, pc0, hit, nearPos, nearD2 buf, count int,
	out buf) error {
	_, _, weigh := farKernels(order)
	return d.Launch(weigh, cuda.Over(count, farBlock), ptr(prob), ptr(tree), ptr(px), ptr(py), ptr(pc),
		ptr(pc0), ptr(hit), ptr(nearPos), ptr(nearD2), i64(count), ptr(out))
}

// knnBruteF32 is the brute-force float32 kNN (k = 15) the grid's is measured against.
func knnBruteF32(d *cuda.Device, prob, s32, px, py buf, count int, outPos, outD2 buf) error {
	return d.Launch("knn_brute_f32_15", cuda.Over(count, bruteBlock), ptr(prob), ptr(s32), ptr(px), ptr(py),
		i64(count), ptr(outPos), ptr(outD2))
}

// ---- forms.cuh: gdal's quadtree order

// quadKeys writes the samples' paths in gdal's quadtree of rectangle root (four float64s on
// the device), in cell order.
func quadKeys(d *cuda.Device, prob buf, n int, root, hi, lo, depth buf) error {
	return d.Launch("quad_keys", cuda.Over(n, flatBlock), ptr(prob), ptr(root), ptr(hi), ptr(lo), ptr(depth))
}

// quadLeaves cuts the sorted keys at their leaves, into cutHi and cutLo by input order.
func quadLeaves(d *cuda.Device, hi, lo, pos, depth, order buf, n int, cutHi, cutLo, flags buf) error {
	return d.Launch("quad_leaves", cuda.Over(n, flatBlock), ptr(hi), ptr(lo), ptr(pos), ptr(depth), ptr(order),
		i64(n), ptr(cutHi), ptr(cutLo), ptr(flags))
}

// gatherU32 is out[i] = in[at[i]] for n uint32s.
func gatherU32(d *cuda.Device, in, at buf, n int, out buf) error {
	return d.Launch("gather_u32", cuda.Over(n, flatBlock), ptr(in), ptr(at), i64(n), ptr(out))
}

// quadRanks is rank[id[i]] = i.
func quadRanks(d *cuda.Device, id buf, n int, rank buf) error {
	return d.Launch("quad_ranks", cuda.Over(n, flatBlock), ptr(id), i64(n), ptr(rank))
}
