package tiles

import (
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// TestBudgetCountsTheProcess checks that a local form's tiles leave, within the budget, room
// for what the process holds besides them: GDAL's block cache and the process's own memory,
// and a quarter of the heap limit for the collector, with two tiles' samples, two rows of tiles
// (one written while the next is assembled) and a tile's bands. Budgets that planned the tiles
// to the whole budget ran 300-400 MB over it (1e8 points under -memory 1GB: 1.35 GiB).
func TestBudgetCountsTheProcess(t *testing.T) {
	alg, _, err := interp.ParseAlgorithm("aidw:max_points=12")
	if err != nil {
		t.Fatal(err)
	}
	const side = 6325.0 // 1e8 samples at 2.5 a square metre, a 1 m DEM
	target := raster.NorthUp(0, 0, side, side, int(side), int(side))
	f := &Facts{N: 1e8, Rel: [4]float64{-side / 2, -side / 2, side / 2, side / 2}}
	for _, budget := range []int64{600 << 20, 1 << 30, 2 << 30, 4 << 30} {
		// each GPU of a tiled run holds its tile and the next one's samples: 2 GPUs under
		// -memory 8GB peaked at 8.55 GB when the plan counted one
		for _, engines := range []int{1, 2, 4} {
			p, err := PlanFor(target, f, alg, 1, budget, engines)
			if err != nil {
				t.Fatal(err)
			}
			tile := float64(p.Side)
			samples := 2.5 * tile * tile * BytesPerSample // at least: the halo adds to it
			rows := 2 * tile * side * 8
			bands := tile * tile * 8 * 3
			heap := float64(budget - CacheBytes - processBytes)
			if live := float64(engines)*(samples+bands) + rows; live > 0.75*heap {
				t.Errorf("-memory %d MiB, %d engines: tiles of %d nodes hold %.0f MiB live, more than 3/4 of the %.0f MiB the heap may take",
					budget>>20, engines, p.Side, live/(1<<20), heap/(1<<20))
			}
		}
	}
}

// The census reads LAS inputs side by side, each reader holding its writer's buffers and
// batches: as many as the cores use (one for every 4, 2 to 8), no more than the budget holds.
func TestCensusReadersWithinBudget(t *testing.T) {
	if n := censusReaders(0); n < 2 || n > 8 {
		t.Errorf("%d readers without a budget, want 2 to 8", n)
	}
	for _, budget := range []int64{400 << 10, 256 << 20, 600 << 20, 1 << 30, 4 << 30, 64 << 30} {
		n := censusReaders(budget)
		if n < 1 || n > censusReaders(0) {
			t.Errorf("-memory %d MiB: %d readers", budget>>20, n)
		}
		if held := float64(censusBytes(n, 1)); n > 1 && held > liveShare*float64(heapLimit(budget)) {
			t.Errorf("-memory %d MiB: %d readers hold %.0f MiB, more than the budget's live share", budget>>20, n, held/(1<<20))
		}
	}
}
