package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/tiles"
)

const planUsage = `<aidw grid's options and sources> <plan.json>

Plans a tiled job for many machines: takes aidw grid's arguments, the last one naming the plan
(a .json manifest), and writes the output grid, the tiles and the job-wide facts into it.
Each tile is then computed on its own, anywhere the inputs are at the same paths:

    aidw grid --manifest plan.json --tile <i>      (or SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX)

into plan.tiles/tile-<i>.tif, and the tiles are assembled by

    aidw mosaic plan.json out.tif

The tile side is -tile <nodes>, or the one -memory <size> (default half the free memory)
allows. A global form (every sample at every node) whose samples do not fit half the worker's
budget streams them past each tile's nodes from a spill in TMPDIR, as aidw grid -memory does.`

// runPlan is `aidw plan`: the census of the inputs, the job's facts and the tiles, written
// into the manifest.
func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseGridArgs(args)
	if err != nil {
		return err
	}
	if !strings.EqualFold(filepath.Ext(a.dst), ".json") {
		return fmt.Errorf("the last argument names the plan, a .json file (got %s)", a.dst)
	}
	if a.preview != "" {
		return fmt.Errorf("-preview: give it to aidw mosaic, which sees the whole raster")
	}
	if slices.ContainsFunc(a.srcs, gdalio.IsStdin) {
		return fmt.Errorf("standard input cannot be the source of a plan, whose tiles read it again: save it to a file")
	}
	if err := gdalio.SetConfig(a.config); err != nil {
		return err
	}
	alg, err := parseAlgorithm(a.alg, stderr)
	if err != nil {
		return err
	}
	if nd := alg.NoData(); math.IsNaN(nd) || math.IsInf(nd, 0) {
		return fmt.Errorf("nodata=%g: a plan holds finite nodata values only", nd)
	}
	if err := gdalio.CheckDestination(a.dst); err != nil {
		return err
	}
	j, err := prepareTiled(ctx, a, false)
	if err != nil {
		return err
	}
	las, err := j.census.LAS(j.target)
	if err != nil {
		return err
	}
	threads, err := a.threadCount()
	if err != nil {
		return err
	}
	// each tile of a global form streams every sample past its nodes when they do not fit
	// (runTileWorker)
	plan := tiles.NewPlan(j.target, j.facts, alg)
	side := a.tiles.side
	if side == 0 {
		if plan, err = tiles.PlanFor(j.target, j.facts, alg, len(interp.BandNames(alg)), a.budget()); err != nil {
			return err
		}
		side = plan.Side
	}
	c, err := tiles.NewComputer(tiles.Config{Target: j.target, Alg: alg, Threads: threads, Plan: plan}, j.facts, las)
	if err != nil {
		return err
	}
	in, err := las.Inputs()
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
	if a.like != "" {
		if like, err = filepath.Abs(a.like); err != nil {
			return err
		}
	}
	gridArgs := slices.Clone(args)
	for i := len(gridArgs) - 1; i >= 0; i-- {
		if gridArgs[i] == a.dst {
			gridArgs = slices.Delete(gridArgs, i, i+1)
			break
		}
	}
	nodata, setNoData := outputNoData(a, alg, j.tmpl) // before the plan records the algorithm
	names := interp.BandNames(alg)
	m := &tiles.Manifest{
		Version:   tiles.ManifestVersion,
		Args:      gridArgs,
		Dir:       dir,
		Algorithm: interp.Canonical(alg),
		Output: tiles.Output{Cols: j.target.Cols, Rows: j.target.Rows, GeoTransform: j.target.GeoTransform,
			SRS: j.srs, Type: a.outType, Format: a.format, Creation: nonNil(a.creation),
			NoData: nodata, SetNoData: setNoData || j.target.Mask != nil, Bands: names, Like: like},
		Facts:    *j.facts,
		Halo:     c.Rule().Info(),
		Inputs:   in,
		TileSize: side,
		Tiles:    planned,
	}
	if err := m.Write(a.dst); err != nil {
		return err
	}
	if !a.quiet {
		fmt.Fprintf(stdout, "%s: %d tiles of %d nodes over %d x %d nodes, %d samples in %d files (%s)\n",
			a.dst, len(planned), side, j.target.Cols, j.target.Rows, j.facts.N, len(in.Files), m.Hash)
		fmt.Fprintf(stdout, "tiles: aidw grid --manifest %s --tile <0..%d>; then aidw mosaic %s <output>\n", a.dst, len(planned)-1, a.dst)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// isWorker says whether `aidw grid`'s arguments ask for one tile of a plan.
func isWorker(args []string) bool {
	for _, a := range args {
		if l := strings.ToLower(a); l == "--manifest" || l == "-manifest" || strings.HasPrefix(l, "--manifest=") {
			return true
		}
	}
	return false
}

// workerArgs is `aidw grid --manifest <plan> [--tile <i>] [-threads <n>] [-q]`.
type workerArgs struct {
	manifest string
	tile     int // -1: from the environment
	threads  int
	quiet    bool
}

func parseWorkerArgs(args []string) (*workerArgs, error) {
	w := &workerArgs{tile: -1}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		name = strings.ToLower(name)
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		switch name {
		case "--manifest", "-manifest":
			v, err := next()
			if err != nil {
				return nil, err
			}
			w.manifest = v
		case "--tile", "-tile":
			v, err := next()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("--tile %s: a tile index, 0 or more", v)
			}
			w.tile = n
		case "-threads", "--threads":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if w.threads, err = parseThreads(v); err != nil {
				return nil, err
			}
		case "-q", "-quiet", "--quiet":
			w.quiet = true
		default:
			return nil, fmt.Errorf("%s: with --manifest, aidw grid takes only --tile, -threads and -q (the rest is in the plan)", args[i])
		}
	}
	if w.manifest == "" {
		return nil, fmt.Errorf("--manifest needs the plan's path")
	}
	return w, nil
}

// tileIndex is the tile to compute: --tile, else SLURM_ARRAY_TASK_ID (a Slurm job array),
// else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job).
func tileIndex(w *workerArgs, n int) (int, error) {
	i, from := w.tile, "--tile"
	if i < 0 {
		for _, env := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
			v := os.Getenv(env)
			if v == "" {
				continue
			}
			k, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || k < 0 {
				return 0, fmt.Errorf("%s=%q is not a tile index", env, v)
			}
			i, from = k, env
			break
		}
	}
	if i < 0 {
		return 0, fmt.Errorf("which tile? give --tile <i>, or run as a Slurm array task (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)")
	}
	if i >= n {
		return 0, fmt.Errorf("%s %d: the plan has tiles 0 to %d", from, i, n-1)
	}
	return i, nil
}

// runTileWorker is `aidw grid --manifest plan.json --tile i`: tile i of the plan into its own
// raster beside the plan, atomically; a tile already done for this plan is left as it is.
func runTileWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseWorkerArgs(args)
	if err != nil {
		return err
	}
	mpath, err := filepath.Abs(w.manifest)
	if err != nil {
		return err
	}
	m, err := tiles.ReadManifest(mpath)
	if err != nil {
		return err
	}
	i, err := tileIndex(w, len(m.Tiles))
	if err != nil {
		return err
	}
	dst := tiles.TilePath(mpath, i)
	if done, err := tileDone(dst, m, i); err != nil {
		return err
	} else if done {
		if !w.quiet {
			fmt.Fprintf(stdout, "tile %d: done already (%s)\n", i, dst)
		}
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
	a, err := parseGridArgs(append(slices.Clone(m.Args), mpath))
	if err != nil {
		return fmt.Errorf("the plan's arguments: %w", err)
	}
	if err := gdalio.SetConfig(a.config); err != nil {
		return err
	}
	if w.threads > 0 {
		a.threads = w.threads
	}
	threads, err := a.threadCount()
	if err != nil {
		return err
	}
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
	if a.device == "gpu" {
		if engines, err = tileEngines(a.device, a.gpus, alg, threads, stderr); err != nil {
			return err
		}
	}
	cfg := tiles.Config{Target: target, Alg: alg, Engines: engines, Threads: threads}
	var src tiles.Source = m.Inputs.LAS(a.sourceOptions(), target)
	if tiles.RuleFor(alg, facts.N).Family == tiles.Global {
		if cfg.Plan, err = tiles.PlanFor(target, &facts, alg, len(m.Output.Bands), a.budget()); err != nil {
			return err
		}
		if chunk := cfg.Plan.Chunk; chunk > 0 {
			spill, err := spillPlanned(ctx, a, target, facts)
			if err != nil {
				return err
			}
			defer spill.Close()
			src = spill.Spill
			if !w.quiet {
				fmt.Fprintf(stdout, "tile %d: the %d samples stream past its nodes, %d at a time\n", i, facts.N, chunk)
			}
		}
	}
	c, err := tiles.NewComputer(cfg, &facts, src)
	if err != nil {
		return err
	}
	tl := m.Tiles[i].Tile
	out := make([][]float64, c.Bands())
	if !w.quiet {
		bar := newTermProgress(stdout)
		bar.Update(0)
		c.SetProgress(bar.Update)
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

// spillPlanned takes the census of the plan's inputs into a spill file, from which a tile of
// a global form streams every sample past its nodes in the job's order, as aidw grid -memory
// does; the census must find the facts the plan recorded.
func spillPlanned(ctx context.Context, a *gridArgs, t raster.Target, planned tiles.Facts) (*tiles.Census, error) {
	census, err := tiles.TakeCensus(ctx, a.srcs, a.sourceOptions(), true, "")
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

// tileDone says whether dst is tile i of plan m, finished. A raster there of another plan is
// replaced.
func tileDone(dst string, m *tiles.Manifest, i int) (bool, error) {
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
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
// the plan's hash and the tile's index as metadata.
func writeTile(dst string, m *tiles.Manifest, i int, bands [][]float64) error {
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
	return w.Commit()
}
