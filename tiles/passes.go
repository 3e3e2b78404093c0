package tiles

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// maxSpillPasses bounds how many times a streamed global form may read its spill whole. A
// budget far too small for the job does not fail, it makes the tiles tiny and many, and each
// tile reads every sample again (and AIDW's powers load the spill once more for each block of
// the tile): exact AIDW over 400,000 samples onto 1000 x 1000 nodes under -memory 4MB would
// take 225 tiles of 65 blocks, 14,625 passes (a run under -memory 1MB was stopped after 46
// minutes, having read its 9.6 MB spill about 5,000 times, against 4.7 CPU-s in memory).
const maxSpillPasses = 256

// maxStreamed is how many samples in all a run may stream from its spill before its passes
// count: many passes over a small spill cost little (6,120 samples read 444 times, 2.7e6 in
// all, stream in a fraction of a second), while the run above read 2e9.
const maxStreamed = 1 << 28

// spillPasses is how many times the plan's run of raster t reads its spill whole: a pass a
// tile (average_distance_pts one for each block of rows, as large as a chunk), and one for
// each block of LoadSide nodes.
func (p *MemoryPlan) spillPasses(t raster.Target, n int) float64 {
	if p.Chunk <= 0 || p.Side <= 0 {
		return 0
	}
	up := func(a, b int) float64 { return math.Ceil(float64(a) / float64(b)) }
	perTile := float64(p.Stream.Passes(n, p.Chunk))
	if p.LoadSide > 0 {
		perTile += up(p.Side, p.LoadSide) * up(p.Side, p.LoadSide)
	}
	return up(t.Cols, p.Side) * up(t.Rows, p.Side) * perTile
}

// checkSpillPasses refuses, before any work, a global form's plan that would read the spill
// more than maxSpillPasses times and more than maxStreamed samples, naming the smallest budget
// from which every larger one reads it fewer, of the budgets 1 MiB x 1.25^k (the passes do
// not fall steadily as the budget grows).
func (p *MemoryPlan) checkSpillPasses(t raster.Target, f *Facts, alg interp.Algorithm, bands int, budget int64) error {
	tooMany := func(passes float64) bool { return passes > maxSpillPasses && passes*float64(f.N) > maxStreamed }
	passes := p.spillPasses(t, f.N)
	if !tooMany(passes) {
		return nil
	}
	why := fmt.Sprintf("the memory budget of %s would make the %d samples stream from the spill %.0f times (tiles of %d x %d nodes)",
		bytesize.Text(float64(budget)), f.N, passes, p.Side, p.Side)
	// the smallest budget from which every larger one works, up to one that holds every
	// sample (which streams none)
	from := int64(0)
	for k := int64(1 << 20); k < 1<<50; k += k / 4 {
		b := roundBudget(k)
		if b <= budget {
			continue
		}
		q := NewPlan(t, f, alg)
		err := q.globalBudget(t, f, alg, bands, b)
		switch {
		case err != nil || tooMany(q.spillPasses(t, f.N)):
			from = 0
		case from == 0:
			from = b
		}
		if err == nil && q.Chunk == 0 {
			break
		}
	}
	if from > 0 {
		return fmt.Errorf("%s: give -memory %s or more", why, bytesize.Text(float64(from)))
	}
	return fmt.Errorf("%s: no budget reads them fewer than %d times", why, maxSpillPasses)
}

// roundBudget rounds b up to what bytesize.Text writes exactly (a whole MiB, or a tenth of a
// GiB), so that the budget named is one that works.
func roundBudget(b int64) int64 {
	step := float64(1 << 20)
	if b >= 1<<30 {
		step = (1 << 30) / 10.0
	}
	return int64(math.Ceil(math.Ceil(float64(b)/step) * step))
}
