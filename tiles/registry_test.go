package tiles

import (
	"context"
	"testing"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// registryForms are the forms of a declared algorithm that its declaration gives: as
// declared, and with its search radius and its max_points where it declares them, so that
// each algorithm is tried in each reach it has.
func registryForms(d *interp.Declaration) []string {
	forms := []string{d.Name}
	switch {
	case d.Option("radius1") != nil && d.Option("radius2") != nil:
		forms = append(forms, d.Name+":radius1=6:radius2=5")
	case d.Option("radius") != nil:
		forms = append(forms, d.Name+":radius=6")
	}
	if d.Option("max_points") != nil {
		forms = append(forms, forms[len(forms)-1]+":max_points=12")
	}
	return forms
}

// registryBudget is a memory budget that makes the plan of a job of n samples stream a global
// form, or (a form that cannot stream) holds its samples.
func registryBudget(p *MemoryPlan, n int) int64 {
	if p.Rule.Family == Global && p.Stream == nil {
		return 1 << 30
	}
	if p.Rule.Family == Global {
		return int64(n) * BytesPerSample
	}
	// a local form plans its samples within liveShare of the heap limit, half of so small a budget
	return int64(float64(n) * BytesPerSample * 2 / liveShare)
}

// TestRegistryTiledAndPlanned runs every algorithm of the registry, in the forms its
// declaration gives, tiled (tiles smaller than its neighbourhoods, each engine treated as the
// CPU and as a GPU) and planned (PlanFor within a budget that streams the global forms, then
// each planned tile computed on its own as a plan's tile worker computes it), and checks each
// raster against the in-memory run bit for bit: a new algorithm is tested in tiles by its
// registry line alone.
func TestRegistryTiledAndPlanned(t *testing.T) {
	if testing.Short() {
		t.Skip("every algorithm of the registry, tiled and planned")
	}
	paths := lastest.Survey(t, t.TempDir(), 3000, 3, false)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 41, 31)
	opt := gdalio.SourceOptions{}
	for _, d := range interp.Registry {
		for _, form := range registryForms(d) {
			alg, _, err := interp.ParseAlgorithm(form)
			if err != nil {
				t.Fatalf("%s: %v", form, err)
			}
			want := inMemory(t, paths, opt, target, alg)
			engines := []interp.Engine{&interp.CPU{Threads: 1}, otherEngine{&interp.CPU{Threads: 1}}}
			got, _, err := tiled(paths, opt, target, alg, 6, true, engines...)
			if err != nil {
				t.Fatalf("%s tiled: %v", form, err)
			}
			sameBits(t, form+" tiled", got, want)
			got, p := planned(t, paths, target, alg)
			sameBits(t, form+" planned", got, want)
			t.Logf("%-40s %-8s planned: %d x %d tiles, chunk %d", form, p.Rule.Family, p.Side, p.Side, p.Chunk)
		}
	}
}

// planned computes alg's job as a plan for a cluster does: the memory plan within a budget
// (registryBudget), the tiles it lists, and each tile by a computer of its own over the job's
// inputs (streaming a global form from a spill), assembled into the raster.
func planned(t *testing.T, paths []string, target raster.Target, alg interp.Algorithm) ([][]float64, *MemoryPlan) {
	t.Helper()
	ctx := context.Background()
	census, facts := spilledCensus(t, paths, target)
	bands := len(interp.BandNames(alg))
	p, err := PlanFor(target, facts, alg, bands, registryBudget(NewPlan(target, facts, alg), facts.N), 1)
	if err != nil {
		t.Fatalf("%s: %v", alg.Name(), err)
	}
	if p.Rule.Family == Global && p.Stream != nil && p.Chunk == 0 {
		t.Fatalf("%s: the budget does not stream the global form", alg.Name())
	}
	side := min(p.Side, 11) // several tiles, whatever the budget allows
	las, err := census.LAS(target)
	if err != nil {
		t.Fatal(err)
	}
	lister, err := NewComputer(Config{Target: target, Alg: alg, Plan: p}, facts, las)
	if err != nil {
		t.Fatal(err)
	}
	list, err := lister.Plan(side, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, bands)
	for k := range out {
		out[k] = make([]float64, target.Cols*target.Rows)
	}
	for _, pt := range list {
		var src Source = las
		if p.Chunk > 0 {
			src = census.Spill
		}
		c, err := NewComputer(Config{Target: target, Alg: alg, Plan: p}, facts, src)
		if err != nil {
			t.Fatal(err)
		}
		tl := pt.Tile
		row := tl.Row0
		err = RunWindow(ctx, c, tl, max(tl.Cols, tl.Rows), func(_, rows int, got [][]float64) error {
			for k, b := range got {
				for r := range rows {
					copy(out[k][(row+r)*target.Cols+tl.Col0:][:tl.Cols], b[r*tl.Cols:][:tl.Cols])
				}
			}
			row += rows
			return nil
		})
		if err != nil {
			t.Fatalf("%s tile %d: %v", alg.Name(), pt.Index, err)
		}
	}
	return out, p
}
