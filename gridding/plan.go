package gridding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/inputs"
	"github.com/aidw/aidw/internal/bytesize"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/tiles"
)

// Plan writes the plan of a tiled job for many machines into o.Dest, a .json manifest: the
// census of the inputs, the job's facts and the tiles, each then computed on its own by
// GridPlannedTile, anywhere the inputs are at the same paths. args are the command line,
// without the plan, that a tile's worker reads its options back from (the manifest records
// them).
func Plan(ctx context.Context, o *Options, args []string) error {
	if !strings.EqualFold(filepath.Ext(o.Dest), ".json") {
		return fmt.Errorf("the last argument names the plan, a .json file (got %s)", o.Dest)
	}
	if o.Preview != "" {
		return fmt.Errorf("-preview: give it to aidw mosaic, which sees the whole raster")
	}
	if slices.ContainsFunc(o.Sources, gdalio.IsStdin) {
		return fmt.Errorf("standard input cannot be the source of a plan, whose tiles read it again: save it to a file")
	}
	r, err := newRun(o)
	if err != nil {
		return err
	}
	alg := r.alg
	if nd := alg.NoData(); math.IsNaN(nd) || math.IsInf(nd, 0) {
		return fmt.Errorf("nodata=%g: a plan holds finite nodata values only", nd)
	}
	if err := gdalio.CheckDestination(r.Dest); err != nil {
		return err
	}
	if err := r.expand(); err != nil {
		return err
	}
	// the tiles read LAS/LAZ inputs by region; others are spilled once, here, for them
	_, allLAS := lasHeaders(r.inputs)
	j, err := r.prepareTiled(ctx, !allLAS, r.budget())
	if err != nil {
		return err
	}
	defer j.census.Close()
	src, in, err := planSource(j)
	if err != nil {
		return err
	}
	// each tile of a global form streams every sample past its nodes when they do not fit
	// (GridPlannedTile)
	plan := tiles.NewPlan(j.target, j.facts, alg)
	side := r.TileSide
	if side == 0 {
		if plan, err = tiles.PlanFor(j.target, j.facts, alg, len(interp.BandNames(alg)), r.budget(), 1); err != nil {
			return err
		}
		side = plan.Side
	}
	c, err := tiles.NewComputer(tiles.Config{Target: j.target, Alg: alg, Threads: r.Threads, Plan: plan}, j.facts, src)
	if err != nil {
		return err
	}
	planned, err := c.Plan(side, in)
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	like := ""
	if r.Like != "" {
		if like, err = filepath.Abs(r.Like); err != nil {
			return err
		}
	}
	nodata, setNoData := r.outputNoData(j.tmpl) // before the plan records the algorithm
	names := interp.BandNames(alg)
	m := &tiles.Manifest{
		Version:   tiles.ManifestVersion,
		Args:      nonNil(args),
		Dir:       dir,
		Algorithm: interp.Canonical(alg),
		Output: tiles.Output{Cols: j.target.Cols, Rows: j.target.Rows, GeoTransform: j.target.GeoTransform,
			SRS: j.srs, Type: r.Type, Format: r.Format, Creation: nonNil(r.Creation),
			NoData: nodata, SetNoData: setNoData || j.target.Mask != nil, Bands: names, Like: like},
		Facts:    *j.facts,
		Halo:     c.Rule().Info(),
		Inputs:   in,
		TileSize: side,
		Tiles:    planned,
	}
	if c.FarField() && r.Device != "gpu" {
		if m.FarField, err = planFarField(ctx, r, j, side); err != nil {
			return err
		}
	}
	if j.census.Spill != nil {
		if m.Spill, err = filepath.Abs(tiles.SpillDir(r.Dest)); err != nil {
			return err
		}
		if err := j.census.Spill.Save(m.Spill); err != nil {
			return err
		}
	}
	if err := m.Write(r.Dest); err != nil {
		return err
	}
	if !r.quiet() {
		fmt.Fprintf(r.Report, "%s: %d tiles of %d nodes over %d x %d nodes, %d samples in %d files (%s)\n",
			r.Dest, len(planned), side, j.target.Cols, j.target.Rows, j.facts.N, len(in.Files), m.Hash)
		if m.FarField != nil {
			fmt.Fprintf(r.Report, "%s: the far field, built once for every tile (%s)\n", tiles.FarFieldPath(r.Dest), bytesize.Text(float64(m.FarField.Size)))
		}
		fmt.Fprintf(r.Report, "tiles: aidw grid --manifest %s --plan-tile <0..%d>; then aidw mosaic %s <output>\n", r.Dest, len(planned)-1, r.Dest)
	}
	return nil
}

// planFarField builds the job's far field once, for every tile to read (a CPU plan's: a plan
// made with -device gpu sums on the devices as the one-shot run does), and saves it beside
// the plan: from the census's spill, or, for LAS/LAZ inputs that the tiles read directly, a
// spill of them taken for it. Its powers come from tiles of side nodes, its samples a chunk at
// a time within the budget.
func planFarField(ctx context.Context, r *run, j *tiledJob, side int) (*tiles.FileProof, error) {
	src := j.census.Spill
	if src == nil {
		census, err := spillPlanned(ctx, r.Options, j.target, *j.facts)
		if err != nil {
			return nil, err
		}
		defer census.Close()
		src = census.Spill
	}
	plan, err := tiles.PlanFor(j.target, j.facts, r.alg, len(interp.BandNames(r.alg)), r.budget(), 1)
	if err != nil {
		return nil, err
	}
	c, err := tiles.NewComputer(tiles.Config{Target: j.target, Alg: r.alg, Threads: r.Threads, Plan: plan}, j.facts, src)
	if err != nil {
		return nil, err
	}
	return tiles.WriteFarField(ctx, c, side, tiles.FarFieldPath(r.Dest), func(float64) {})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// GridPlannedTile computes tile i of plan m (read from mpath) into its own raster beside the
// plan, atomically; a tile already done for this plan is left as it is. o are the plan's
// options (its arguments, as Plan recorded them), with the worker's threads, progress and
// report.
func GridPlannedTile(ctx context.Context, o *Options, m *tiles.Manifest, mpath string, i int) error {
	if err := m.Inputs.Check(); err != nil {
		return err
	}
	dst, farPath := tiles.TilePath(mpath, i), tiles.FarFieldPath(mpath)
	if done, err := tileDone(dst, m, i); err != nil {
		return err
	} else if done {
		fmt.Fprintf(o.report(), "tile %d: done already (%s)\n", i, dst)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return fmt.Errorf("cannot write the tiles: %w", err)
	}
	// the plan's relative paths (a template, a clip datasource) are the planner's
	if st, err := os.Stat(m.Dir); err == nil && st.IsDir() {
		if err := os.Chdir(m.Dir); err != nil {
			return err
		}
	}
	threads := threadsOr(o.Threads)
	alg, _, err := interp.ParseAlgorithm(m.Algorithm)
	if err != nil {
		return err
	}
	target := m.Output.Target()
	if m.Output.Like != "" {
		tmpl, err := gdalio.ReadTemplate(m.Output.Like)
		if err != nil {
			return err
		}
		if tmpl.Target.Cols != target.Cols || tmpl.Target.Rows != target.Rows || tmpl.Target.GeoTransform != target.GeoTransform {
			return fmt.Errorf("template %s is not the grid it was when planned: plan again", m.Output.Like)
		}
		target.Mask = tmpl.Target.Mask
	}
	facts := m.Facts
	// The plan's tiles run on the CPU unless it was made with -device gpu: machines of a
	// cluster differ, and a tile's values must not depend on the one it ran on.
	var engines []interp.Engine
	if o.Device == "gpu" {
		if engines, err = tileEngines(o.Device, o.GPUs, alg, threads, o.warnings()); err != nil {
			return err
		}
	}
	cfg := tiles.Config{Target: target, Alg: alg, Engines: engines, Threads: threads}
	var src tiles.Source = m.Inputs.LAS(o.sourceOptions(), target)
	var saved *tiles.Spill
	if m.Spill != "" {
		cx, cy := target.Centre()
		if saved, err = tiles.OpenSpill(m.Spill, cx, cy, facts.N); err != nil {
			return err
		}
		defer saved.Close()
		src = saved
	}
	if tiles.RuleFor(alg, facts.N).Family == tiles.Global {
		if cfg.Plan, err = tiles.PlanFor(target, &facts, alg, len(m.Output.Bands), o.budget(), len(engines)); err != nil {
			return err
		}
		if chunk := cfg.Plan.Chunk; chunk > 0 && m.FarField == nil {
			if saved == nil {
				spill, err := spillPlanned(ctx, o, target, facts)
				if err != nil {
					return err
				}
				defer spill.Close()
				src = spill.Spill
			}
			fmt.Fprintf(o.report(), "tile %d: the %d samples stream past its nodes, %d at a time\n", i, facts.N, chunk)
		}
	}
	c, err := tiles.NewComputer(cfg, &facts, src)
	if err != nil {
		return err
	}
	if m.FarField != nil {
		// the plan built the far field once: the tile loads only the samples around its nodes
		if err := tiles.ReadFarField(ctx, c, farPath, *m.FarField); err != nil {
			return err
		}
		fmt.Fprintf(o.report(), "tile %d: the far field read from %s\n", i, farPath)
	}
	tl := m.Tiles[i].Tile
	out := make([][]float64, c.Bands())
	if o.Progress != nil {
		o.Progress(0)
		c.SetProgress(o.Progress)
	}
	err = tiles.RunWindow(ctx, c, tl, max(tl.Cols, tl.Rows), func(_, _ int, bands [][]float64) error {
		for k, b := range bands {
			out[k] = append(out[k], b...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tile %d (column %d, row %d): %w", i, tl.Col0, tl.Row0, err)
	}
	return writeTile(dst, m, i, out)
}

// planSource is what a plan's tiles read, with the record of the inputs: the LAS/LAZ inputs
// themselves, or the census's spill of other inputs.
func planSource(j *tiledJob) (tiles.Source, tiles.Inputs, error) {
	if j.census.Spill != nil {
		in, err := j.census.Inputs()
		return j.census.Spill, in, err
	}
	las, err := j.census.LAS(j.target)
	if err != nil {
		return nil, tiles.Inputs{}, err
	}
	in, err := las.Inputs()
	return las, in, err
}

// spillPlanned takes the census of the plan's inputs into a spill file, from which a tile of
// a global form streams every sample past its nodes in the job's order, as aidw grid -memory
// does; the census must find the facts the plan recorded.
func spillPlanned(ctx context.Context, o *Options, t raster.Target, planned tiles.Facts) (*tiles.Census, error) {
	paths, err := inputs.Expand(o.Sources)
	if err != nil {
		return nil, err
	}
	census, err := tiles.TakeCensus(ctx, paths, o.sourceOptions(), true, "", o.budget())
	if err != nil {
		return nil, err
	}
	f, err := census.Facts(t)
	if err == nil && *f != planned {
		err = fmt.Errorf("the inputs are not what they were when planned (%d samples, %d in the plan): plan again", f.N, planned.N)
	}
	if err != nil {
		census.Close()
		return nil, err
	}
	return census, nil
}

// tileDone says whether dst is tile i of plan m, finished and proven whole. A raster there of
// another plan, or damaged, is replaced.
func tileDone(dst string, m *tiles.Manifest, i int) (bool, error) {
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if tiles.CheckProof(dst, m.Hash, i) != nil {
		return false, nil
	}
	r, err := gdalio.OpenRaster(dst)
	if err != nil {
		return false, nil
	}
	defer r.Close()
	tl := m.Tiles[i]
	return r.Metadata(tiles.MetaPlan) == m.Hash && r.Metadata(tiles.MetaTile) == strconv.Itoa(i) &&
		r.Cols == tl.Cols && r.Rows == tl.Rows && r.Bands == len(m.Output.Bands), nil
}

// tileOptions are a tile raster's: a GTiff of the output's type, CRS and nodata, compressed
// losslessly; the mosaic converts nothing more.
func tileOptions(m *tiles.Manifest) gdalio.RasterOptions {
	o := m.Output
	return gdalio.RasterOptions{Format: "GTiff", Type: o.Type, Create: []string{"COMPRESS=DEFLATE"},
		SRS: o.SRS, Bands: len(o.Bands), NoData: o.NoData, SetNoData: o.SetNoData}
}

// writeTile writes tile i's bands to dst through a temporary file renamed into place, with
// the plan's hash and the tile's index as metadata, then the proof of its completion. An
// earlier proof goes first: a worker killed in between leaves a tile without one, computed
// again.
func writeTile(dst string, m *tiles.Manifest, i int, bands [][]float64) error {
	if err := os.Remove(tiles.ProofPath(dst)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("tile %d: %w", i, err)
	}
	tl := m.Tiles[i]
	w, err := gdalio.Create(dst, tl.Tile.Target(m.Output.Target()), tileOptions(m))
	if err != nil {
		return err
	}
	err = w.SetMetadata(tiles.MetaPlan, m.Hash)
	if err == nil {
		err = w.SetMetadata(tiles.MetaTile, strconv.Itoa(i))
	}
	for k := 0; err == nil && k < len(bands); k++ {
		if len(bands) > 1 {
			err = w.Describe(k+1, m.Output.Bands[k])
		}
		if err == nil {
			err = w.WriteRows(k+1, 0, tl.Rows, bands[k])
		}
	}
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(); err != nil {
		return err
	}
	return tiles.WriteProof(dst, m.Hash, i)
}
