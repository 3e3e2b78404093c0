package tiles

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// The memory model of a tiled run, in one place: what a run held to a budget costs, by the
// figures below and by what the algorithm declares of its streamed form
// (interp.StreamForm).
const (
	// BytesPerSample is what a loaded sample costs in a tile at the peak: the compact samples
	// and their index (about 32 bytes) for the tile computed, and the next tile's samples
	// being read and sorted (at most 48: the samples, those of the buckets its region cuts
	// read first, the sort's records). In memory, untiled, a sample costs less: lidar.InMemoryBytes.
	BytesPerSample = 80
	// streamBytesPerNode is what a node of a streamed tile holds besides its sums
	// (interp.StreamForm.NodeBytes): its place relative to the origin and in the raster, the
	// six bands of AIDW's power and the tile's bands.
	streamBytesPerNode = 144
	// CacheBytes bounds GDAL's block cache in a run held to a budget.
	CacheBytes = 128 << 20
	// processBytes is what the process holds besides its Go heap and GDAL's cache: its code,
	// the C libraries' own memory, the threads' stacks (a run of 8 x 8 nodes peaks at 57 MiB).
	processBytes = 128 << 20
	// liveShare is the share of the heap limit a run of a local form plans its live samples,
	// tiles and rows for: the collector needs room above the live heap, else it runs at every
	// allocation (the runtime holds the memory it freed until the limit asks it back, so the
	// process's size follows the limit, not the live heap).
	liveShare = 0.75
)

// HeapLimit is the collector's limit (memory.LimitHeap) that keeps a run of this plan within
// budget bytes: the budget less GDAL's block cache and the process's own memory. A global
// form's plan keeps the limit it was planned to (the budget and 256 MiB).
func (p *MemoryPlan) HeapLimit(budget int64) int64 {
	if p.Rule.Family == Global {
		return budget + 256<<20
	}
	return heapLimit(budget)
}

// FitsInMemory says whether a job of n samples runs in memory, untiled, within budget with
// GDAL's block cache and the process's own, its samples, their order and index costing
// sampleBytes (lidar.InMemoryBytes). A k-nearest form (local AIDW, nearest) adds little to
// them; the others hold more at the peak (invdistnn's quadtree order, linear's triangles, a
// global form's far field: 83 to 169 bytes a point at 1e7 points, against 38 for local AIDW;
// bench/results/lidar-memory.md), so the tiled run's BytesPerSample bounds them from below,
// as it did every job before.
func FitsInMemory(rule Rule, n int64, sampleBytes float64, budget int64) bool {
	if rule.Family != Nearest || rule.Triangles {
		sampleBytes = max(sampleBytes, float64(n)*BytesPerSample)
	}
	return sampleBytes+CacheBytes+processBytes <= float64(budget)
}

func heapLimit(budget int64) int64 { return max(budget-CacheBytes-processBytes, budget/2) }

// MemoryPlan is how a tiled run of a job computes its tiles: the algorithm's halo rule and,
// for a global form, whether and how its samples stream past each tile's nodes; with a
// budget, the tile side and the chunks that keep the run within it. It is decided once per
// run (NewPlan, PlanFor) and shared by the run, its plan for a cluster and the tile workers.
type MemoryPlan struct {
	Rule Rule
	// Stream is the global form's streamed form (nil: the form cannot stream, or the rule is
	// not global); streamErr says why it cannot.
	Stream    *interp.StreamForm
	streamErr error
	// Side is the largest tile side within the budget (0: not planned to a budget).
	Side int
	// Chunk, when positive, makes a global form stream the job's samples past each tile's
	// nodes, about this many at a time, instead of loading them all (see computeStreamed):
	// memory then follows the chunk and the tile, not the survey. The source must be a
	// Streamer, and the tiles run on the CPU engine.
	Chunk int
	// LoadSide, when positive, is the largest side of the blocks of a streamed tile whose
	// samples and halo are loaded at once (AIDW's powers, the far field's near samples): the
	// tile's side bounds the nodes that stream together, this the samples held beside them.
	LoadSide int
}

// NewPlan is the plan of alg's job on target t without a budget: every sample of a global
// form loaded.
func NewPlan(t raster.Target, f *Facts, alg interp.Algorithm) *MemoryPlan {
	p := &MemoryPlan{Rule: RuleFor(alg, f.N)}
	if p.Rule.Family == Global {
		p.Stream, p.streamErr = interp.StreamFormOf(alg, f.N, float64(t.Cols)*float64(t.Rows))
	}
	return p
}

// PlanFor is the plan of alg's job on target t, bands a node, within budget bytes, for
// engines computing tiles at once (each GPU of a run, or the one CPU engine): the largest
// tile side that fits, and for a global form whose samples do not fit half the budget, the
// chunks that stream them.
func PlanFor(t raster.Target, f *Facts, alg interp.Algorithm, bands int, budget int64, engines int) (*MemoryPlan, error) {
	p := NewPlan(t, f, alg)
	var err error
	if p.Rule.Family == Global {
		if err = p.globalBudget(t, f, alg, bands, budget); err == nil {
			err = p.checkSpillPasses(t, f, alg, bands, budget)
		}
	} else {
		p.Side, err = budgetSide(t, f, p.Rule, bands, budget, max(1, engines))
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// budgetSide is the largest tile side (in nodes) whose run stays within the budget at the
// job's mean density: for each of engines, two tiles' samples with their halos (one computed
// while the next is read; BytesPerSample), a tile's bands and the block of its rows being
// computed (blockBytes); and two rows of tiles (one being written while the next is
// assembled); all within liveShare of the heap limit (heapLimit: the budget less GDAL's block
// cache and the process's own memory).
func budgetSide(t raster.Target, f *Facts, rule Rule, bands int, budget int64, engines int) (int, error) {
	density := f.density()
	halo := rule.Halo + rule.Extra
	if rule.Family == Nearest {
		halo = rule.nearestHalo(density)
	}
	cell := cellSize(t)
	need := func(side int) float64 {
		span := float64(side)*cell + 2*halo
		points := density * span * span
		rows := 2 * float64(side) * float64(t.Cols) * 8 * float64(bands)
		tile := float64(side) * float64(side) * 8 * float64(bands+2)
		return float64(engines)*(points*BytesPerSample+tile+blockBytes(Tile{Cols: side, Rows: side})) + rows
	}
	room := liveShare * float64(heapLimit(budget))
	if need(16) > room {
		each := ""
		if engines > 1 {
			each = fmt.Sprintf(" on each of %d GPUs", engines)
		}
		return 0, fmt.Errorf("the memory budget of %s is too small for a tile of 16 x 16 nodes and its halo%s at this density (%.0f samples a tile): give a larger -memory",
			bytesize.Text(float64(budget)), each, density*math.Pow(16*cell+2*halo, 2))
	}
	return largestSide(need, room, max(t.Cols, t.Rows, 16)), nil
}

// density is the job's mean number of samples a unit of area.
func (f *Facts) density() float64 {
	b := f.Rel
	return float64(f.N) / math.Max((b[2]-b[0])*(b[3]-b[1]), 1e-300)
}

// nearestHalo is the halo of a tile of the nearest family at the job's mean density: the
// radius that holds 4K samples on average, and Extra. Uniform samples leave few nodes
// whose K nearest lie beyond it (about 1e-10 of the outermost nodes for K = 12).
func (r Rule) nearestHalo(density float64) float64 {
	return r.Halo + r.Extra + 2*math.Sqrt(float64(r.K)/(math.Pi*density))
}

// firstHalo is the halo a tile of the nearest family loads first: nearestHalo, whose few
// nodes left pending go again with samples loaded a second time; for triangles, which grow
// their region by doubling (checkNodes) and often need less, the radius of 2K samples.
func (r Rule) firstHalo(density float64) float64 {
	if r.Triangles {
		return r.Extra + math.Sqrt(2*float64(r.K)/(math.Pi*density))
	}
	return r.nearestHalo(density)
}

// blockNodes is about how many of a tile's nodes are computed at a time (computeBlocks):
// enough that a GPU's launches, waits and copies, a few a block, are small beside its work
// (and every core busy), and a block's buffers small beside the tile.
const blockNodes = 1 << 22

// blockRows is how many rows of a tile are computed at a time: about blockNodes of its nodes.
func blockRows(tl Tile) int {
	return max(1, min(blockNodes/max(tl.Cols, 1), tl.Rows))
}

// blockBytes is what a block of tile tl's rows holds besides the tile's own bands and reach,
// into which it computes: a skip flag a node, and the GPU engine's list of the nodes to
// compute, their places in the block and its copy of their values (4+4+8 bytes).
func blockBytes(tl Tile) float64 {
	return float64(blockRows(tl)) * float64(tl.Cols) * (1 + 16)
}

// cellSize is the larger step of t's nodes.
func cellSize(t raster.Target) float64 {
	g := t.GeoTransform
	return math.Max(math.Hypot(g[1], g[4]), math.Hypot(g[2], g[5]))
}

// globalBudget sets the tile side of a global form's run within the budget and, when its
// samples do not fit half the budget (then the tiles share them, loaded once), the chunk of
// samples streamed past each tile's nodes: half the budget for a chunk (BytesPerSample a
// sample, read and sorted, and what the form holds a sample), half for the tile's nodes, the
// tile and halo that give the nodes' local bands (the far field's near samples too), loaded a
// block of the tile at a time (LoadSide), and the row of tiles the writer takes; a far field
// first takes what its operators and tree need.
func (p *MemoryPlan) globalBudget(t raster.Target, f *Facts, alg interp.Algorithm, bands int, budget int64) error {
	half := float64(budget) / 2
	var halo, density float64
	s := p.Stream
	if float64(f.N)*BytesPerSample > half {
		if s == nil {
			return fmt.Errorf("this algorithm weighs every sample at every node: its %d samples need about %s, more than half the memory budget of %s, and %v (a bounded form, with max_points or a radius, can be tiled)",
				f.N, bytesize.Text(float64(f.N)*BytesPerSample), bytesize.Text(float64(budget)), p.streamErr)
		}
		if s.Local != nil {
			b := f.Rel
			density = float64(f.N) / math.Max((b[2]-b[0])*(b[3]-b[1]), 1e-300)
			halo = 2 * math.Sqrt(float64(s.LocalK)/(math.Pi*density))
		}
		if s.FarField() {
			fixed, near, err := s.FarSize(f.N, f.Rel, t, f.OriginX, f.OriginY)
			if err != nil {
				return err
			}
			// the far field's operators and tree stay for the whole run, beside a chunk or a tile
			if fixed > float64(budget)/2 {
				return fmt.Errorf("%s's far field over %d samples needs %s for its operators and tree, more than half the memory budget of %s: give -memory %s or more",
					alg.Name(), f.N, bytesize.Text(fixed), bytesize.Text(float64(budget)), bytesize.Text(4*fixed))
			}
			half = (float64(budget) - fixed) / 2
			halo = max(halo, near)
		}
		p.Chunk = int(half / (BytesPerSample + s.SampleBytes))
	}
	cell := cellSize(t)
	sumBytes, tileBytes := 8.0, func(int) float64 { return 0 }
	if s != nil {
		sumBytes, tileBytes = s.NodeBytes, func(side int) float64 { return s.TileBytes(t, side) }
	}
	need := func(side int) float64 {
		rows := float64(side) * float64(t.Cols) * 8 * float64(bands)
		return float64(side)*float64(side)*(streamBytesPerNode+sumBytes) + rows + tileBytes(side)
	}
	if need(16) > half {
		return fmt.Errorf("the memory budget of %s is too small for a tile of 16 x 16 nodes of a global form: give a larger -memory",
			bytesize.Text(float64(budget)))
	}
	p.Side = largestSide(need, half, max(t.Cols, t.Rows, 16))
	if density > 0 {
		// the samples around a block of the tile's nodes, loaded at once, beside its nodes
		load := func(s int) float64 {
			span := float64(s)*cell + 2*halo
			return density * span * span * BytesPerSample
		}
		if load(1) > half-need(p.Side) {
			p.Side = largestSide(need, half/2, p.Side)
		}
		if load(1) > half-need(p.Side) {
			return fmt.Errorf("the memory budget of %s is too small for the samples around one node of a global form at this density: give a larger -memory",
				bytesize.Text(float64(budget)))
		}
		p.LoadSide = largestSide(load, half-need(p.Side), p.Side)
	}
	return nil
}

// largestSide is the largest side from 1 to most whose need is within room, 1 if none is.
func largestSide(need func(side int) float64, room float64, most int) int {
	lo, hi := 1, max(most, 1)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if need(mid) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
