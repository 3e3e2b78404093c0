package kernels

import "github.com/aidw/aidw/interp"

// The constants the kernels and their Go launchers share. Each one that a CUDA source also
// states (a #define, or the instantiations of a kernel macro) is checked against it by
// TestSourcesAgree (defines_test.go), which needs no GPU and no cuda build.

// MaxK is the most neighbours a node's search keeps: AIDW's k and max_points up to MaxK run
// on the GPU. It is the largest of nodeKs.
const MaxK = 64

// nodeKs are the neighbour-list sizes the per-node kernels are compiled for, smallest first
// (NODE_KERNELS(K) of knn.cuh).
var nodeKs = [...]int{16, 32, 64}

// nodeKernels names the per-node kernels of one neighbour-list size.
type nodeKernels struct{ knnList, nodePrep, local, radius string }

// nodeKernelsOf are the per-node kernels of each size of nodeKs.
var nodeKernelsOf = map[int]nodeKernels{
	16: {"knn_list_16", "node_prep_16", "local_16", "radius_16"},
	32: {"knn_list_32", "node_prep_32", "local_32", "radius_32"},
	64: {"knn_list_64", "node_prep_64", "local_64", "radius_64"},
}

// nearCorr is NEAR_CORR of knn.cuh: the nearest samples whose float32 weights the global
// weighting replaces by float64 ones.
const nearCorr = 16

// exactHitD2 is HIT_D2 of knn.cuh: gdal_grid's exact-hit distance, defined by interp.
const exactHitD2 = interp.ExactHitD2

// maxPowerF32 bounds the powers the float32 global weighting takes: a sample that float32
// rounding puts on a node weighs at most 2^(12*power) times the nearest's (see weigh.cuh), which
// must stay far inside float32's range. Larger powers run in float64.
const maxPowerF32 = 8

// Launch shapes of the grid build (build.cuh).
const (
	bboxBlock  = 256 // BBOX_BLOCK
	scanBlock  = 256 // SCAN_BLOCK
	scanItems  = 8   // SCAN_ITEMS
	scanTile   = scanBlock * scanItems
	spineBlock = 1024 // SPINE_BLOCK
	sortBlock  = 256  // SORT_BLOCK
	sortItems  = 16   // SORT_ITEMS
	sortTile   = sortBlock * sortItems
	radixBits  = 8 // RADIX_BITS
	radix      = 1 << radixBits
	flatBlock  = 256 // one thread per item (quanta_coords, cell_keys, run_counts, gather_samples)
)

// Launch shapes of the per-node and weighting kernels (knn.cuh, weigh.cuh).
const (
	nodeBlock   = 128  // per-node kernels, one thread per node
	wf32Block   = 256  // WF32_BLOCK
	wf32Tile    = 1024 // WF32_TILE
	wf64Block   = 128  // WF64_BLOCK
	bruteBlock  = 128  // BRUTE_BLOCK
	finishBlock = 256  // weigh_finish, one thread per node
	farBlock    = 128  // FF_BLOCK, far_weigh, one thread per node
	farBatch    = 32   // FF_BATCH, samples a round of far_leaves
	maxSplits   = 64   // sample ranges of a global weighting
)

// f32Weighting is a float32 global weighting kernel: npt nodes a thread, npoly of them with
// the polynomial exp2 (WEIGH_F32(NPT, NPOLY) of weigh.cuh; weigh_naive_f32 is one node a
// thread, MUFU only). All take the same parameters, in blocks of wf32Block threads.
type f32Weighting struct {
	name       string
	npt, npoly int
}

// f32Weightings are the float32 global weighting kernels, the default (measured fastest,
// kernels/NOTES.md) first.
var f32Weightings = [...]f32Weighting{
	{"weigh_all_f32_6_2", 6, 2},
	{"weigh_all_f32_4_0", 4, 0},
	{"weigh_all_f32_4_1", 4, 1},
	{"weigh_naive_f32", 1, 0},
}

// BBoxBlock is the block size of the bounding-box kernels (BBOX_BLOCK of build.cuh), which
// the papers' single-pass reductions (paper.cuh) share.
const BBoxBlock = bboxBlock
