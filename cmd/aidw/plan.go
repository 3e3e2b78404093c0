package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/gridding"
	"github.com/aidw/aidw/tiles"
)

const planUsage = `<aidw grid's options and sources> <plan.json>

Plans a tiled job for many machines: takes aidw grid's arguments, the last one naming the plan
(a .json manifest), and writes the output grid, the tiles and the job-wide facts into it.
Each tile is then computed on its own, anywhere the inputs are at the same paths:

    aidw grid --manifest plan.json --plan-tile <i>   (or SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX)

into plan.tiles/tile-<i>.tif, and the tiles are assembled by

    aidw mosaic plan.json out.tif

Each tile reads the LAS/LAZ inputs where its samples lie; other inputs (text, OGR) are read
once, by aidw plan, into plan.samples/ beside the plan, which the tiles read.

The tile side is -tile <nodes>, or the one -memory <size> (default half the free memory)
allows. A global form (every sample at every node) whose samples do not fit half the worker's
budget streams them past each tile's nodes from plan.samples/, or from a spill of the LAS/LAZ
inputs in TMPDIR, as aidw grid -memory does.`

// runPlan is `aidw plan`: aidw grid's flags as options, the last argument naming the plan,
// and one call; the plan records the arguments, for its tiles' workers.
func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseGridArgs(args)
	if err != nil {
		return err
	}
	if err := gdalio.SetConfig(a.config); err != nil {
		return err
	}
	o, err := a.options(stdout, stderr)
	if err != nil {
		return err
	}
	o.Progress = nil
	gridArgs := slices.Clone(args)
	for i := len(gridArgs) - 1; i >= 0; i-- {
		if gridArgs[i] == a.dst {
			gridArgs = slices.Delete(gridArgs, i, i+1)
			break
		}
	}
	return gridding.Plan(ctx, o, gridArgs)
}

// runTileWorker is `aidw grid --manifest plan.json --plan-tile i`: tile i of the plan, computed
// with the plan's options.
func runTileWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := parseWorkerArgs(args)
	if err != nil {
		return err
	}
	if w.oldTile {
		fmt.Fprintf(stderr, "Warning: --tile <i> is now %s <i> (a plan's tile; -tile <nodes> is a tile's side).\n", planTileFlag)
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
	a.quiet = w.quiet // the worker's -q, not the planner's
	o, err := a.options(stdout, stderr)
	if err != nil {
		return err
	}
	return gridding.GridPlannedTile(ctx, o, m, mpath, i)
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

// workerArgs is `aidw grid --manifest <plan> [--plan-tile <i>] [-threads <n>] [-q]`.
type workerArgs struct {
	manifest string
	tile     int // -1: from the environment
	threads  int
	quiet    bool
	oldTile  bool // the tile was given as --tile, the spelling before --plan-tile
}

// planTileFlag names a plan's tile; --tile, one letter from -tile <nodes> (a tile's side),
// still works, with a warning.
const planTileFlag = "--plan-tile"

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
		case planTileFlag, "-plan-tile", "--tile", "-tile":
			v, err := next()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s %s: a tile index, 0 or more", planTileFlag, v)
			}
			w.tile, w.oldTile = n, !strings.HasSuffix(name, "plan-tile")
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
			return nil, fmt.Errorf("%s: with --manifest, aidw grid takes only --plan-tile, -threads and -q (the rest is in the plan)", args[i])
		}
	}
	if w.manifest == "" {
		return nil, fmt.Errorf("--manifest needs the plan's path")
	}
	return w, nil
}

// tileIndex is the tile to compute: --plan-tile, else SLURM_ARRAY_TASK_ID (a Slurm job
// array), else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job).
func tileIndex(w *workerArgs, n int) (int, error) {
	i, from := w.tile, planTileFlag
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
		return 0, fmt.Errorf("which tile? give --plan-tile <i>, or run as a Slurm array task (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)")
	}
	if i >= n {
		return 0, fmt.Errorf("%s %d: the plan has tiles 0 to %d", from, i, n-1)
	}
	return i, nil
}
