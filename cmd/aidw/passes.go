package main

import (
	"fmt"
	"math"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/tiles"
)

// maxSpillPasses bounds how many times a streamed global form may read its spill whole. A
// budget far too small for the job does not fail, it makes the tiles tiny and many, and each
// tile reads every sample again (and AIDW's powers load the spill once more for each block of
// the tile): exact AIDW over 400,000 samples under -memory 4MB took 225 tiles of 65 blocks,
// 14,625 passes (a run under -memory 1MB was stopped after 46 minutes, having read its 9.6 MB
// spill about 5,000 times, against 4.7 CPU-s in memory).
const maxSpillPasses = 256

// spillPasses is how many times a run of tiles of side nodes, streaming chunks of chunk
// samples and loading AIDW's powers in blocks of loadSide nodes, reads its spill whole: a
// pass a tile (average_distance_pts one for each block of rows, as large as a chunk), and one
// a block.
func spillPasses(t raster.Target, f *tiles.Facts, alg interp.Algorithm, side, chunk, loadSide int) float64 {
	if chunk <= 0 || side <= 0 {
		return 0
	}
	up := func(a, b int) float64 { return math.Ceil(float64(a) / float64(b)) }
	perTile := 1.0
	if m, ok := alg.(*interp.Metric); ok && m.Kind == interp.AverageDistancePts {
		perTile = up(f.N, chunk)
	}
	if loadSide > 0 {
		perTile += up(side, loadSide) * up(side, loadSide)
	}
	return up(t.Cols, side) * up(t.Rows, side) * perTile
}

// checkSpillPasses refuses, before any work, a global form's layout (globalBudget's) that would
// read the spill more than maxSpillPasses times, naming the smallest budget above it that
// reads it fewer, from budgets 1 MiB x 1.25^k (the passes do not fall steadily as the budget
// grows, so the search tries each).
func checkSpillPasses(t raster.Target, f *tiles.Facts, alg interp.Algorithm, bands int, budget int64, side, chunk, loadSide int) error {
	passes := spillPasses(t, f, alg, side, chunk, loadSide)
	if passes <= maxSpillPasses {
		return nil
	}
	why := fmt.Sprintf("the memory budget of %s would make the %d samples stream from the spill %.0f times (tiles of %d x %d nodes)",
		sizeText(float64(budget)), f.N, passes, side, side)
	for k := int64(1 << 20); k < 1<<50; k += k / 4 {
		b := roundBudget(k)
		if b <= budget {
			continue
		}
		s, c, l, err := globalBudget(t, f, alg, bands, b)
		if err == nil && spillPasses(t, f, alg, s, c, l) <= maxSpillPasses {
			return fmt.Errorf("%s: give -memory %s or more", why, sizeText(float64(b)))
		}
	}
	return fmt.Errorf("%s: no budget reads them fewer than %d times", why, maxSpillPasses)
}

// roundBudget rounds b up to what sizeText writes exactly (a whole MiB, or a tenth of a GiB),
// so that the budget named is one that works.
func roundBudget(b int64) int64 {
	step := float64(1 << 20)
	if b >= 1<<30 {
		step = (1 << 30) / 10.0
	}
	return int64(math.Ceil(math.Ceil(float64(b)/step) * step))
}
