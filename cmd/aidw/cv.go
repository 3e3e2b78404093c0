package main

import (
	"context"
	"encoding/json"
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
	"github.com/aidw/aidw/report"
	"github.com/aidw/aidw/sample"
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

// cvAlgorithm parses an -a string for cross-validation: a prediction the algorithm cannot
// make must be told from a value, so nodata is NaN unless the string sets it.
func cvAlgorithm(s string, stderr io.Writer) (interp.Algorithm, error) {
	spec := s
	if p, err := interp.Parse(s); err == nil && !p.NoDataGiven() {
		spec += ":nodata=nan"
	}
	return parseAlgorithm(spec, stderr)
}

// cvResult is one algorithm's predictions and scores.
type cvResult struct {
	label     string
	alg       interp.Algorithm
	predicted []float64 // NaN where the algorithm made no prediction
	scores    interp.Scores
}

// runCV is `aidw cv`: read the samples, predict each from the others by every algorithm, and
// report. Cross-validation runs on the CPU engine: the GPU engine cannot hold a sample out.
func runCV(ctx context.Context, c *cvArgs, stdout, stderr io.Writer) error {
	if err := gdalio.SetConfig(c.config); err != nil {
		return err
	}
	algs := make([]interp.Algorithm, len(c.algs))
	for i, s := range c.algs {
		a, err := cvAlgorithm(s, stderr)
		if err != nil {
			return err
		}
		algs[i] = a
	}
	threads, err := c.threadCount()
	if err != nil {
		return err
	}
	if err := gdalio.CheckSRS("-a_srs", c.srs); err != nil {
		return err
	}
	if c.residuals != "" {
		if err := gdalio.CheckVectorDestination(c.residuals); err != nil {
			return fmt.Errorf("-residuals: %w", err)
		}
		if err := gdalio.CheckNotSource(c.residuals, c.srcs); err != nil {
			return fmt.Errorf("-residuals: %w", err)
		}
	}
	if c.plot != "" {
		if err := gdalio.CheckDestination(c.plot); err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
	}
	if _, err := chooseEngine(c.device, c.gpus, nil, true, threads, stderr); err != nil {
		return err
	}
	in, err := gdalio.OpenStdin(ctx, os.Stdin, c.srcs, c.sourceOptions(), false)
	if err != nil {
		return err
	}
	defer in.Close()
	opt := c.sourceOptions()
	opt.Stdin = in.Stream()
	sources, err := gdalio.ReadInputs(ctx, in.Paths(c.srcs), opt)
	if err != nil {
		return err
	}
	if len(sources) != 1 {
		return fmt.Errorf("cross-validation takes one layer or -sql result, got %d: give one -l or -sql", len(sources))
	}
	reportSkipped(sources, stderr)
	src := sources[0]
	s := src.Samples
	n := s.Len()
	switch {
	case n < 2:
		return fmt.Errorf("%s: %d sample: cross-validation needs at least 2", src.Name, n)
	case c.folds > n:
		return fmt.Errorf("-folds %d: more folds than the %d samples of %s", c.folds, n, src.Name)
	}
	target := cvTarget(s)
	s.MoveOrigin(target.Centre())
	observed := s.Z
	var fold []int
	if c.folds > 0 {
		fold = interp.Folds(n, c.folds, c.seed)
	}

	var bar *termProgress
	if !c.quiet && !c.json {
		bar = newTermProgress(stdout)
		bar.Update(0)
	}
	results := make([]cvResult, len(algs))
	for i, a := range algs {
		var pred []float64
		if fold == nil {
			pred, err = interp.LeaveOneOut(ctx, a, s, target, threads)
		} else {
			pred, err = interp.KFold(ctx, a, s, target, fold, c.folds, threads)
		}
		if err != nil {
			return fmt.Errorf("cross-validating %s: %w", c.algs[i], err)
		}
		for k, v := range pred {
			if interp.Missing(v, a.NoData()) {
				pred[k] = math.NaN()
			}
		}
		results[i] = cvResult{label: c.algs[i], alg: a, predicted: pred, scores: interp.Score(observed, pred, math.NaN())}
		if bar != nil {
			bar.Update(float64(i+1) / float64(len(algs)))
		}
	}

	summary := cvReport{Source: src.Name, Samples: n, Method: "leave-one-out", Engine: "cpu"}
	if fold != nil {
		summary.Method, summary.Folds, summary.Seed = "k-fold", c.folds, &c.seed
	}
	for _, r := range results {
		summary.Algorithms = append(summary.Algorithms, cvScores{Algorithm: r.label, N: r.scores.N,
			Missing: r.scores.Missing, RMSE: finite(r.scores.RMSE), MAE: finite(r.scores.MAE),
			MeanError: finite(r.scores.MeanError), R2: finite(r.scores.R2)})
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(summary); err != nil {
			return err
		}
	} else {
		summary.table(stdout)
	}
	if c.residuals != "" {
		if err := writeResiduals(c, s, fold, results, src.SRS); err != nil {
			return err
		}
	}
	if c.plot != "" {
		series := make([]report.PlotSeries, len(results))
		for i, r := range results {
			series[i] = report.PlotSeries{Label: r.label, Observed: observed, Predicted: r.predicted,
				Stats: fmt.Sprintf("RMSE %.4g  R2 %.4f", r.scores.RMSE, r.scores.R2)}
		}
		title := fmt.Sprintf("%s, %s: predicted against observed", src.Name, summary.method())
		png, err := report.PlotPNG(title, series)
		if err == nil {
			err = gdalio.WriteAtomic(c.plot, png)
		}
		if err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
	}
	return nil
}

// cvTarget stands in for the output raster where an algorithm needs one (AIDW's study area
// when the samples' bounding box has none): the samples' bounding box, a side of no length
// counted as one unit so that the target stays valid.
func cvTarget(s *sample.Samples) raster.Target {
	xmin, ymin, xmax, ymax := s.Bounds()
	if xmax == xmin {
		xmin, xmax = xmin-0.5, xmax+0.5
	}
	if ymax == ymin {
		ymin, ymax = ymin-0.5, ymax+0.5
	}
	return raster.NorthUp(xmin, ymin, xmax, ymax, 1, 1)
}

func writeResiduals(c *cvArgs, s *sample.Samples, fold []int, results []cvResult, srs string) error {
	n := s.Len()
	r := gdalio.Residuals{X: make([]float64, n), Y: make([]float64, n), Observed: s.Z, Fold: make([]int, n),
		SRS: srs}
	if c.srs != "" {
		r.SRS = c.srs
	}
	for i := range n {
		x, y := s.XY(int32(i))
		r.X[i], r.Y[i] = x+s.OriginX, y+s.OriginY
		r.Fold[i] = i + 1 // leave-one-out: each sample is a fold
		if fold != nil {
			r.Fold[i] = fold[i] + 1
		}
	}
	for _, res := range results {
		r.Algorithms = append(r.Algorithms, res.label)
		r.Predicted = append(r.Predicted, res.predicted)
	}
	return gdalio.WriteResiduals(c.residuals, r)
}

// cvReport is what `aidw cv -json` prints.
type cvReport struct {
	Source     string     `json:"source"`
	Samples    int        `json:"samples"`
	Method     string     `json:"method"` // "leave-one-out" or "k-fold"
	Folds      int        `json:"folds,omitempty"`
	Seed       *uint64    `json:"seed,omitempty"`
	Engine     string     `json:"engine"`
	Algorithms []cvScores `json:"algorithms"`
}

// cvScores are one algorithm's scores; a score that does not exist (no prediction, or R^2 of
// constant observations) is null.
type cvScores struct {
	Algorithm string   `json:"algorithm"`
	N         int      `json:"n"`
	Missing   int      `json:"missing"`
	RMSE      *float64 `json:"rmse"`
	MAE       *float64 `json:"mae"`
	MeanError *float64 `json:"mean_error"`
	R2        *float64 `json:"r2"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func (r cvReport) method() string {
	if r.Method == "k-fold" {
		return fmt.Sprintf("%d-fold cross-validation", r.Folds)
	}
	return "leave-one-out"
}

// table prints the scores as a table: the algorithm left-aligned, the numbers right-aligned.
func (r cvReport) table(w io.Writer) {
	m := r.method()
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
