package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/gridding"
)

// cvArgs is an `aidw cv` command line: the source selection of `aidw grid`, one or more
// algorithms, and how to validate and report.
type cvArgs struct {
	gridArgs           // the source selection flags, parsed as aidw grid parses them
	algs      []string // -a, repeatable
	folds     int      // -folds: 0 is leave-one-out
	seed      uint64   // -seed of the k-fold deal
	json      bool     // -json: the scores as JSON on stdout instead of the table
	residuals string   // -residuals: the per-sample point layer
	plot      string   // -plot: predicted against observed, as PNG
}

// cvSourceFlags are the flags of `aidw grid` that `aidw cv` takes too: those that select and
// filter the samples, and how to run.
var cvSourceFlags = []string{
	"-zfield", "-z_increase", "-z_multiply", "-l", "-where", "-sql", "-spat", "-clipsrcsql",
	"-clipsrclayer", "-clipsrcwhere", "-oo", "-a_srs", "-q", "-quiet", "--config", "-class",
	"-returns", "-drop_withheld", "-drop_overlap", "-zrange", "-threads", "-device",
}

const cvUsage = `[-a <algorithm>[:<key>=<value>]...]... [-folds <k> [-seed <n>]] [-json]
    [-residuals <layer file>] [-plot <file.png>]
    [-zfield <field>] [-z_increase <v>] [-z_multiply <v>] [-l <layer>] [-where <expr>]
    [-sql <select>] [-spat <xmin> <ymin> <xmax> <ymax>] [-clipsrc ...] [-oo <NAME>=<VALUE>]...
    [-a_srs <srs>] [-threads <n>] [-device auto|gpu|cpu] [-q] [--config <KEY> <VALUE>]
    <src_datasource>...

Leave-one-out by default (each sample predicted from all the others); -folds k deals the
samples at random into k folds (-seed, default 1) and predicts each fold from the others.
Prints RMSE, MAE, mean error (predicted - observed) and R^2 per algorithm.`

func parseCVArgs(args []string) (*cvArgs, error) {
	c := &cvArgs{gridArgs: *newGridArgs(), seed: 1}
	own := map[string]flagSpec{
		"-a":         {1, func(_ *gridArgs, v []string) error { c.algs = append(c.algs, v[0]); return nil }},
		"-folds":     {1, func(_ *gridArgs, v []string) error { return parseFolds(v[0], &c.folds) }},
		"-seed":      {1, func(_ *gridArgs, v []string) error { return parseSeed(v[0], &c.seed) }},
		"-json":      {0, func(_ *gridArgs, _ []string) error { c.json = true; return nil }},
		"-residuals": {1, func(_ *gridArgs, v []string) error { c.residuals = v[0]; return nil }},
		"-plot":      {1, func(_ *gridArgs, v []string) error { c.plot = v[0]; return nil }},
	}
	positional, err := c.parseFlags(args, func(name string) (flagSpec, bool) {
		if s, ok := own[name]; ok {
			return s, true
		}
		if slices.Contains(cvSourceFlags, name) {
			return gridFlags[name], true
		}
		return flagSpec{}, false
	})
	if err != nil {
		return nil, err
	}
	if len(positional) == 0 {
		return nil, fmt.Errorf("expected a source datasource")
	}
	c.srcs = positional
	if len(c.algs) == 0 {
		c.algs = []string{"aidw"}
	}
	if c.plot != "" && !strings.EqualFold(filepath.Ext(c.plot), ".png") {
		return nil, fmt.Errorf("-plot %s: the plot is a PNG: give a .png file", c.plot)
	}
	return c, c.las.Validate()
}

func parseFolds(s string, dst *int) error {
	k, err := strconv.Atoi(s)
	if err != nil || k < 2 {
		return fmt.Errorf("%q is not a number of folds of 2 or more", s)
	}
	*dst = k
	return nil
}

func parseSeed(s string, dst *uint64) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number >= 0", s)
	}
	*dst = v
	return nil
}

// runCV is `aidw cv`: the flags as options, one call, and the scores printed as a table or
// JSON.
func runCV(ctx context.Context, c *cvArgs, stdout, stderr io.Writer) error {
	if err := gdalio.SetConfig(c.config); err != nil {
		return err
	}
	threads, err := c.threadCount()
	if err != nil {
		return err
	}
	o := &gridding.CVOptions{Sources: c.srcs, Select: c.sourceOptions(), SRS: c.srs, Algorithms: c.algs,
		Folds: c.folds, Seed: c.seed, Residuals: c.residuals, Plot: c.plot, Threads: threads,
		Device: c.device, GPUs: c.gpus, Warnings: stderr}
	if !c.quiet && !c.json {
		o.Progress = progressOn(stdout)
	}
	r, err := gridding.CrossValidate(ctx, o)
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	table(r, stdout)
	return nil
}

// table prints the scores as a table: the algorithm left-aligned, the numbers right-aligned.
func table(r *gridding.CVReport, w io.Writer) {
	m := r.MethodName()
	fmt.Fprintf(w, "%s of %d samples of %s (%s engine)\n", strings.ToUpper(m[:1])+m[1:], r.Samples, r.Source, r.Engine)
	rows := [][]string{{"algorithm", "predicted", "missing", "RMSE", "MAE", "mean error", "R2"}}
	for _, a := range r.Algorithms {
		rows = append(rows, []string{a.Algorithm, strconv.Itoa(a.N), strconv.Itoa(a.Missing),
			score(a.RMSE), score(a.MAE), score(a.MeanError), score(a.R2)})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for k, cell := range row {
			width[k] = max(width[k], len(cell))
		}
	}
	for _, row := range rows {
		line := fmt.Sprintf("%-*s", width[0], row[0])
		for k, cell := range row[1:] {
			line += fmt.Sprintf("  %*s", width[k+1], cell)
		}
		fmt.Fprintln(w, line)
	}
}

func score(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}
