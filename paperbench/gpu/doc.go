// Package gpu runs the AIDW papers' own GPU kernels for `aidw bench` (paperbench) in the cuda
// build: standard IDW naive, tiled and improved CDP, AIDW naive and tiled with the brute-force
// kNN inside the kernel, the even-grid AIDW (its grid build and kNN on the engine's kernels),
// over the layouts SoA, AoS and AoaS in float32 and float64, and the reduction article's
// bounding boxes. Each run uploads a case in the variant's layout and precision, runs the
// kernels and downloads the values, timed with CUDA events from the first upload to the last
// download, as the papers time their GPU versions.
//
// The kernels' CUDA source is paper.cuh (over the engine's kernels/knn.cuh), compiled by
// scripts/gen-ptx.sh from paper.cu into a module of its own, paper.ptx, which Load adds to a
// device the engine opened: the engine's module (kernels/aidw.ptx and aidw.fatbin) holds only
// what `aidw grid` runs, and ptx.sum records the PTX's sources, as kernels/ptx.sum does for the
// engine's. The device plumbing (kernels/cuda) is shared with the
// engine; the Go side of the experiments lives here, outside the engine's package.
package gpu

// PointLayout is how the papers' kernels store points (Mei & Tian 2016).
type PointLayout int

const (
	SoA  PointLayout = iota // structure of arrays: x[], y[], z[]
	AoS                     // array of structures {x, y, z}
	AoaS                    // array of aligned structures: float4, or {x, y, z, pad} aligned to 16 bytes in float64
)

func (l PointLayout) String() string { return [...]string{"SoA", "AoS", "AoaS"}[l] }

// suffix names the layout in kernel names.
func (l PointLayout) suffix() string { return [...]string{"soa", "aos", "aoas"}[l] }

// stride is how many values a point takes in AoS and AoaS.
func (l PointLayout) stride() int { return [...]int{1, 3, 4}[l] }

// Method is a version of the papers' kernels.
type Method string

const (
	Naive Method = "naive" // one thread per node, samples read from global memory
	Tiled Method = "tiled" // one thread per node, samples read through shared-memory tiles
	// CDP is the improved CDP version's work as one kernel: a block of 1024 threads per node and
	// a block reduction (IDW only).
	CDP Method = "cdp"
	// GridNaive and GridTiled are the even-grid version (AIDW only, SoA): grid build and kNN on
	// the engine's kernels, then the naive or tiled weighting with each node's power.
	GridNaive Method = "grid-naive"
	GridTiled Method = "grid-tiled"
)

// BBoxMethod is a bounding-box reduction of the reduction article.
type BBoxMethod string

const (
	TwoPass    BBoxMethod = "two-pass"   // per-block boxes, then one block reduces them
	Atomic     BBoxMethod = "atomic"     // single pass: each block's box joins through atomics
	Retirement BBoxMethod = "retirement" // single pass: the last block to retire reduces the boxes
)

// Launch shapes of paper.cuh (checked against its #defines by TestSourcesAgree).
const (
	paperBlock = 256  // PAPER_BLOCK: naive and tiled kernels, threads per block and tile size
	cdpBlock   = 1024 // CDP_BLOCK: improved CDP, one block per node
	paperK     = 15   // PAPER_K: AIDW's k in the papers
	alphaBlock = 128  // aidw_grid_alpha, one thread per node
)

// precision names a kernel's arithmetic.
func precision(f64 bool) string {
	if f64 {
		return "f64"
	}
	return "f32"
}

// idwKernel names the IDW kernel of method m (Naive, Tiled, CDP), power 2 or any, precision
// and layout (IDW_ALL of paper.cuh).
func idwKernel(m Method, p2, f64 bool, l PointLayout) string {
	power := "pw"
	if p2 {
		power = "p2"
	}
	return "idw_" + string(m) + "_" + power + "_" + precision(f64) + "_" + l.suffix()
}

// aidwKernel names the AIDW kernel of method m (Naive, Tiled: AIDW_LAYOUTS; GridNaive,
// GridTiled: SoA only), precision and layout.
func aidwKernel(m Method, f64 bool, l PointLayout) string {
	switch m {
	case GridNaive:
		return "aidw_grid_naive_" + precision(f64)
	case GridTiled:
		return "aidw_grid_tiled_" + precision(f64)
	}
	return "aidw_" + string(m) + "_" + precision(f64) + "_" + l.suffix()
}
