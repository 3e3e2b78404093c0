package gridding

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/inputs"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/report"
	"github.com/aidw/aidw/sample"
)

// CVOptions are a cross-validation of algorithms over the samples: `aidw cv`'s options.
type CVOptions struct {
	// Sources, Select and Stdin are the samples, as Options' (one layer or -sql result).
	Sources []string
	Select  gdalio.SourceOptions
	Stdin   io.Reader
	// SRS is the residuals' CRS (-a_srs) when given, else the samples'.
	SRS string
	// Algorithms are the -a strings compared; none: DefaultAlgorithm.
	Algorithms []string
	// Folds deals the samples at random (Seed) into that many folds, each predicted from the
	// others; 0 is leave-one-out, each sample predicted from all the others.
	Folds int
	Seed  uint64
	// Residuals names a point layer of every sample with each algorithm's prediction; Plot a
	// PNG of predicted against observed. "" for none.
	Residuals, Plot string
	Threads         int    // CPU workers; 0: every core
	Device          string // as Options'; cross-validation runs on the CPU engine, the one that can hold a sample out
	GPUs            []int
	// Progress hears the fraction done; Warnings receives what the user should know, as
	// Options'.
	Progress func(done float64)
	Warnings io.Writer
}

// CVReport is a cross-validation's scores (`aidw cv -json` prints it).
type CVReport struct {
	Source     string     `json:"source"`
	Samples    int        `json:"samples"`
	Method     string     `json:"method"` // "leave-one-out" or "k-fold"
	Folds      int        `json:"folds,omitempty"`
	Seed       *uint64    `json:"seed,omitempty"`
	Engine     string     `json:"engine"`
	Algorithms []CVScores `json:"algorithms"`
}

// CVScores are one algorithm's scores; a score that does not exist (no prediction, or R^2 of
// constant observations) is nil.
type CVScores struct {
	Algorithm string   `json:"algorithm"`
	N         int      `json:"n"`
	Missing   int      `json:"missing"`
	RMSE      *float64 `json:"rmse"`
	MAE       *float64 `json:"mae"`
	MeanError *float64 `json:"mean_error"`
	R2        *float64 `json:"r2"`
}

// MethodName is the method in words: "leave-one-out" or "k-fold cross-validation".
func (r *CVReport) MethodName() string {
	if r.Method == "k-fold" {
		return fmt.Sprintf("%d-fold cross-validation", r.Folds)
	}
	return "leave-one-out"
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// cvAlgorithm parses an -a string for cross-validation: a prediction the algorithm cannot
// make must be told from a value, so nodata is NaN unless the string sets it.
func cvAlgorithm(s string, warnings io.Writer) (interp.Algorithm, error) {
	p, err := interp.Parse(s)
	if err == nil && !p.NoDataGiven() {
		p, err = interp.Parse(s + ":nodata=nan")
	}
	if err != nil {
		return nil, err
	}
	for _, w := range p.Warnings { // as GDAL prints CPLE_AppDefined warnings
		fmt.Fprintf(warnings, "Warning 1: %s\n", w)
	}
	return p.Algorithm, nil
}

// cvResult is one algorithm's predictions and scores.
type cvResult struct {
	label     string
	alg       interp.Algorithm
	predicted []float64 // NaN where the algorithm made no prediction
	scores    interp.Scores
}

// CrossValidate predicts each sample from the others by every algorithm, and scores the
// predictions; it writes the residuals and the plot when asked. Cross-validation runs on the
// CPU engine: the GPU engine cannot hold a sample out.
func CrossValidate(ctx context.Context, c *CVOptions) (*CVReport, error) {
	warnings := c.Warnings
	if warnings == nil {
		warnings = io.Discard
	}
	labels := c.Algorithms
	if len(labels) == 0 {
		labels = []string{DefaultAlgorithm}
	}
	algs := make([]interp.Algorithm, len(labels))
	for i, s := range labels {
		a, err := cvAlgorithm(s, warnings)
		if err != nil {
			return nil, err
		}
		algs[i] = a
	}
	threads := threadsOr(c.Threads)
	if err := gdalio.CheckSRS("-a_srs", c.SRS); err != nil {
		return nil, err
	}
	paths, err := inputs.Expand(c.Sources)
	if err != nil {
		return nil, err
	}
	if c.Residuals != "" {
		if err := gdalio.CheckVectorDestination(c.Residuals); err != nil {
			return nil, fmt.Errorf("-residuals: %w", err)
		}
		if err := outfile.CheckNotSource(c.Residuals, c.Sources, paths); err != nil {
			return nil, fmt.Errorf("-residuals: %w", err)
		}
	}
	if c.Plot != "" {
		if err := gdalio.CheckDestination(c.Plot); err != nil {
			return nil, fmt.Errorf("-plot: %w", err)
		}
	}
	if _, err := chooseEngine(c.Device, c.GPUs, nil, true, threads, warnings); err != nil {
		return nil, err
	}
	stdin := c.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	in, err := gdalio.OpenStdin(ctx, stdin, paths, c.Select, false)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	opt := c.Select
	opt.Stdin = in.Stream()
	sources, err := gdalio.ReadInputs(ctx, in.Paths(paths), opt)
	if err != nil {
		return nil, err
	}
	if len(sources) != 1 {
		return nil, fmt.Errorf("cross-validation takes one layer or -sql result, got %d: give one -l or -sql", len(sources))
	}
	reportSkipped(sources, warnings)
	src := sources[0]
	s := src.Samples
	n := s.Len()
	switch {
	case n < 2:
		return nil, fmt.Errorf("%s: %d sample: cross-validation needs at least 2", src.Name, n)
	case c.Folds > n:
		return nil, fmt.Errorf("-folds %d: more folds than the %d samples of %s", c.Folds, n, src.Name)
	}
	target := cvTarget(s)
	s.MoveOrigin(target.Centre())
	observed := s.Z
	var fold []int
	if c.Folds > 0 {
		fold = interp.Folds(n, c.Folds, c.Seed)
	}

	if c.Progress != nil {
		c.Progress(0)
	}
	results := make([]cvResult, len(algs))
	for i, a := range algs {
		var pred []float64
		if fold == nil {
			pred, err = interp.LeaveOneOut(ctx, a, s, target, threads)
		} else {
			pred, err = interp.KFold(ctx, a, s, target, fold, c.Folds, threads)
		}
		if err != nil {
			return nil, fmt.Errorf("cross-validating %s: %w", labels[i], err)
		}
		for k, v := range pred {
			if interp.Missing(v, a.NoData()) {
				pred[k] = math.NaN()
			}
		}
		results[i] = cvResult{label: labels[i], alg: a, predicted: pred, scores: interp.Score(observed, pred, math.NaN())}
		if c.Progress != nil {
			c.Progress(float64(i+1) / float64(len(algs)))
		}
	}

	summary := &CVReport{Source: src.Name, Samples: n, Method: "leave-one-out", Engine: "cpu"}
	if fold != nil {
		seed := c.Seed
		summary.Method, summary.Folds, summary.Seed = "k-fold", c.Folds, &seed
	}
	for _, r := range results {
		summary.Algorithms = append(summary.Algorithms, CVScores{Algorithm: r.label, N: r.scores.N,
			Missing: r.scores.Missing, RMSE: finite(r.scores.RMSE), MAE: finite(r.scores.MAE),
			MeanError: finite(r.scores.MeanError), R2: finite(r.scores.R2)})
	}
	if c.Residuals != "" {
		if err := writeResiduals(c, s, fold, results, src.SRS); err != nil {
			return nil, err
		}
	}
	if c.Plot != "" {
		series := make([]report.PlotSeries, len(results))
		for i, r := range results {
			series[i] = report.PlotSeries{Label: r.label, Observed: observed, Predicted: r.predicted,
				Stats: fmt.Sprintf("RMSE %.4g  R2 %.4f", r.scores.RMSE, r.scores.R2)}
		}
		title := fmt.Sprintf("%s, %s: predicted against observed", src.Name, summary.MethodName())
		png, err := report.PlotPNG(title, series)
		if err == nil {
			err = outfile.WriteAtomic(c.Plot, png)
		}
		if err != nil {
			return nil, fmt.Errorf("-plot: %w", err)
		}
	}
	return summary, nil
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

// writeResiduals writes every sample with its fold and each algorithm's prediction.
func writeResiduals(c *CVOptions, s *sample.Samples, fold []int, results []cvResult, srs string) error {
	n := s.Len()
	r := gdalio.Residuals{X: make([]float64, n), Y: make([]float64, n), Observed: s.Z, Fold: make([]int, n),
		SRS: srs}
	if c.SRS != "" {
		r.SRS = c.SRS
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
	return gdalio.WriteResiduals(c.Residuals, r)
}
