package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/report"
	"github.com/airbusgeo/godal"
)

// cvSamples writes n random samples at UTM scale (a cluster, and a repeat of the first) to a
// CSV and returns them.
func cvSamples(t *testing.T, dir string, n int) (path string, xs, ys, zs []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(51, 52))
	var csv strings.Builder
	csv.WriteString("x,y,z\n")
	for i := range n {
		x, y := 450000+rng.Float64()*2000, 5400000+rng.Float64()*1500
		if i < n/3 {
			x, y = 450500+rng.NormFloat64()*60, 5400700+rng.NormFloat64()*60
		}
		z := 100 + 0.01*(x-450000) + 20*math.Sin((y-5400000)/300) + 5*rng.Float64()
		if i == n-1 {
			x, y, z = xs[0], ys[0], zs[0]+3
		}
		xs, ys, zs = append(xs, x), append(ys, y), append(zs, z)
		fmt.Fprintf(&csv, "%.17g,%.17g,%.17g\n", x, y, z)
	}
	path = filepath.Join(dir, "samples.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, xs, ys, zs
}

// bruteInvDist2 is IDW with power 2 over every sample, the first within 1e-13 taken as is.
func bruteInvDist2(xs, ys, zs []float64, x, y float64) float64 {
	var num, den float64
	for i := range xs {
		d2 := (xs[i]-x)*(xs[i]-x) + (ys[i]-y)*(ys[i]-y)
		if d2 < 1e-13 {
			return zs[i]
		}
		num, den = num+zs[i]/d2, den+1/d2
	}
	return num / den
}

// bruteNearest is the nearest sample's value, the last in input order on ties.
func bruteNearest(xs, ys, zs []float64, x, y float64) float64 {
	best, bestD := -1, math.Inf(1)
	for i := range xs {
		if d := math.Hypot(xs[i]-x, ys[i]-y); d <= bestD {
			best, bestD = i, d
		}
	}
	return zs[best]
}

// dropOne is a copy of the samples without sample i.
func dropOne(v []float64, i int) []float64 { return slices.Delete(slices.Clone(v), i, i+1) }

func bboxArea(xs, ys []float64) float64 {
	return (slices.Max(xs) - slices.Min(xs)) * (slices.Max(ys) - slices.Min(ys))
}

// bruteScores are RMSE, MAE, mean error and R^2 written out.
func bruteScores(obs, pred []float64) [4]float64 {
	var se, ae, e, mean, ss float64
	for i := range obs {
		d := pred[i] - obs[i]
		se, ae, e, mean = se+d*d, ae+math.Abs(d), e+d, mean+obs[i]
	}
	n := float64(len(obs))
	mean /= n
	for _, o := range obs {
		ss += (o - mean) * (o - mean)
	}
	return [4]float64{math.Sqrt(se / n), ae / n, e / n, 1 - se/ss}
}

func relClose(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-9*math.Abs(want)
}

// residualLayer reads the residual layer back through GDAL: per algorithm, the predictions
// and folds by sample number.
func residualLayer(t *testing.T, path string, n int) (pred map[string][]float64, fold []int) {
	t.Helper()
	ds, err := godal.Open(path, godal.VectorOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	pred, fold = map[string][]float64{}, make([]int, n)
	l := ds.Layers()[0]
	for f := l.NextFeature(); f != nil; f = l.NextFeature() {
		fl := f.Fields()
		alg, i := fl["algorithm"].String(), int(fl["sample"].Int())-1
		if pred[alg] == nil {
			pred[alg] = make([]float64, n)
		}
		pred[alg][i] = fl["predicted"].Float()
		if !relClose(fl["residual"].Float(), pred[alg][i]-fl["observed"].Float()) {
			t.Errorf("%s sample %d: residual %g is not predicted - observed", alg, i+1, fl["residual"].Float())
		}
		fold[i] = int(fl["fold"].Int())
		f.Close()
	}
	return pred, fold
}

// TestCVLeaveOneOut runs aidw cv and checks its scores, its residual layer and its plot
// against leave-one-out computed here by brute force: each sample removed from a copy, the
// definitions evaluated directly.
func TestCVLeaveOneOut(t *testing.T) {
	dir := t.TempDir()
	src, xs, ys, zs := cvSamples(t, dir, 90)
	res, plot := filepath.Join(dir, "res.gpkg"), filepath.Join(dir, "cv.png")
	code, stdout, stderr := runAidw(t, "cv", "-json", "-a", "aidw", "-a", "invdist:power=2",
		"-a_srs", "EPSG:32617", "-residuals", res, "-plot", plot, src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string][]float64{"aidw": make([]float64, len(xs)), "invdist:power=2": make([]float64, len(xs))}
	for i := range xs {
		rx, ry, rz := dropOne(xs, i), dropOne(ys, i), dropOne(zs, i)
		want["aidw"][i] = bruteAIDW(rx, ry, rz, xs[i], ys[i], bboxArea(rx, ry), 15, 0)
		want["invdist:power=2"][i] = bruteInvDist2(rx, ry, rz, xs[i], ys[i])
	}
	if want["aidw"][len(xs)-1] != zs[0] {
		t.Fatalf("the repeated sample should be predicted by its twin")
	}

	var summary struct {
		Source     string `json:"source"`
		Samples    int    `json:"samples"`
		Method     string `json:"method"`
		Engine     string `json:"engine"`
		Algorithms []struct {
			Algorithm string   `json:"algorithm"`
			N         int      `json:"n"`
			Missing   *int     `json:"missing"`
			RMSE      *float64 `json:"rmse"`
			MAE       *float64 `json:"mae"`
			MeanError *float64 `json:"mean_error"`
			R2        *float64 `json:"r2"`
		} `json:"algorithms"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&summary); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	if summary.Source != "samples" || summary.Samples != len(xs) || summary.Method != "leave-one-out" ||
		summary.Engine != "cpu" || len(summary.Algorithms) != 2 {
		t.Fatalf("report %+v", summary)
	}
	for _, a := range summary.Algorithms {
		s := bruteScores(zs, want[a.Algorithm])
		if a.N != len(xs) || a.Missing == nil || *a.Missing != 0 || a.RMSE == nil || a.MAE == nil || a.MeanError == nil || a.R2 == nil {
			t.Fatalf("%s: scores %+v", a.Algorithm, a)
		}
		for k, got := range []float64{*a.RMSE, *a.MAE, *a.MeanError, *a.R2} {
			if !relClose(got, s[k]) {
				t.Errorf("%s score %d: %.15g, want %.15g", a.Algorithm, k, got, s[k])
			}
		}
	}

	pred, fold := residualLayer(t, res, len(xs))
	for alg, w := range want {
		for i := range w {
			if !relClose(pred[alg][i], w[i]) {
				t.Errorf("%s sample %d: predicted %.15g, brute force %.15g", alg, i+1, pred[alg][i], w[i])
			}
			if fold[i] != i+1 {
				t.Errorf("sample %d in fold %d: leave-one-out gives each sample its own", i+1, fold[i])
			}
		}
	}

	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if w, h := report.PlotSize(2); err != nil || cfg.Width != w || cfg.Height != h {
		t.Errorf("plot: %v, %dx%d, want a %dx%d PNG", err, cfg.Width, cfg.Height, w, h)
	}
}

// TestCVKFold checks the deal (a partition into folds of near-equal size, the same for the
// same seed) and the predictions against brute force over the other folds' samples.
func TestCVKFold(t *testing.T) {
	dir := t.TempDir()
	src, xs, ys, zs := cvSamples(t, dir, 81)
	folds := func(seed string) ([]float64, []int) {
		res := filepath.Join(dir, "res"+seed+".gpkg")
		code, stdout, stderr := runAidw(t, "cv", "-q", "-folds", "4", "-seed", seed, "-a", "nearest", "-residuals", res, src)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.HasPrefix(stdout, "4-fold cross-validation of 81 samples") || !strings.Contains(stdout, "\nnearest ") {
			t.Errorf("table:\n%s", stdout)
		}
		pred, fold := residualLayer(t, res, len(xs))
		return pred["nearest"], fold
	}
	pred, fold := folds("9")
	size := map[int]int{}
	for _, f := range fold {
		size[f]++
	}
	if len(size) != 4 || slices.Min(mapValues(size)) < 20 || slices.Max(mapValues(size)) > 21 {
		t.Errorf("fold sizes %v, want four folds of 20 or 21", size)
	}
	for i := range xs {
		var tx, ty, tz []float64
		for j := range xs {
			if fold[j] != fold[i] {
				tx, ty, tz = append(tx, xs[j]), append(ty, ys[j]), append(tz, zs[j])
			}
		}
		if w := bruteNearest(tx, ty, tz, xs[i], ys[i]); pred[i] != w {
			t.Errorf("sample %d (fold %d): predicted %g, nearest of the other folds %g", i+1, fold[i], pred[i], w)
		}
	}
	if _, again := folds("9"); !slices.Equal(again, fold) {
		t.Error("the same seed dealt other folds")
	}
	if _, other := folds("10"); slices.Equal(other, fold) {
		t.Error("another seed dealt the same folds")
	}
}

func mapValues(m map[int]int) []int {
	var v []int
	for _, x := range m {
		v = append(v, x)
	}
	return v
}

// TestCVBadInput: each bad option gets one ERROR line naming it, exit code 1, and no file.
func TestCVBadInput(t *testing.T) {
	src, _, _, _ := cvSamples(t, t.TempDir(), 20)
	out := t.TempDir()
	res, plot := filepath.Join(out, "r.gpkg"), filepath.Join(out, "p.png")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"one fold", []string{"-folds", "1", src}, "-folds"},
		{"folds not a number", []string{"-folds", "x", src}, "-folds"},
		{"more folds than samples", []string{"-folds", "21", "-residuals", res, src}, "-folds 21"},
		{"negative seed", []string{"-folds", "3", "-seed", "-1", src}, "-seed"},
		{"plot not png", []string{"-plot", filepath.Join(out, "p.jpg"), src}, "-plot"},
		{"plot folder missing", []string{"-plot", filepath.Join(out, "no", "p.png"), src}, "p.png"},
		{"residuals format unknown", []string{"-residuals", filepath.Join(out, "r.nosuch"), src}, "r.nosuch"},
		{"unknown algorithm", []string{"-a", "aidw", "-a", "kriging", "-plot", plot, src}, "kriging"},
		{"bad algorithm key", []string{"-a", "aidw:k=0", "-residuals", res, src}, "k=0"},
		{"grid-only option", []string{"-tr", "1", "1", src}, "-tr"},
		{"no source", []string{"-a", "aidw"}, "source"},
		{"missing source", []string{filepath.Join(out, "nope.csv")}, "nope.csv"},
		{"bad diagnostics value", []string{"-a", "aidw:diagnostics=perhaps", src}, "diagnostics"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runAidw(t, append([]string{"cv", "-q"}, c.args...)...)
			msg := strings.TrimSpace(stderr)
			if code != 1 || !strings.HasPrefix(msg, "ERROR: ") || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("exit %d, stderr %q: want one ERROR line naming %q", code, stderr, c.want)
			}
			if names := dirtest.Names(t, out); len(names) != 0 {
				t.Errorf("files left: %v", names)
			}
		})
	}
}

// demoArgs are scripts/demo.sh's grid of the n43 samples.
var demoArgs = []string{"-zfield", "elevation", "-a_srs", "EPSG:4326", "-txe", "-80.0041667", "-78.9958333",
	"-tye", "42.9958333", "44.0041667", "-outsize", "121", "121", "-ot", "Float32"}

// TestGridDiagnosticsAndPreview grids the demo with diagnostics and a preview: the bands and
// their names, the value band equal to plain aidw's, each node's alpha the definition's
// function of its R, and R its r_obs over r_exp; the preview a PNG of the raster's size.
func TestGridDiagnosticsAndPreview(t *testing.T) {
	dir := t.TempDir()
	diag, plain, preview := filepath.Join(dir, "diag.tif"), filepath.Join(dir, "plain.tif"), filepath.Join(dir, "p.png")
	run := func(args ...string) {
		t.Helper()
		if code, _, stderr := runAidw(t, append(append([]string{"grid", "-q"}, demoArgs...), args...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	run("-a", "aidw:diagnostics=yes", "-preview", preview, "../../testdata/n43_samples.csv", diag)
	run("-a", "aidw", "../../testdata/n43_samples.csv", plain)

	ds, err := godal.Open(diag)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range ds.Bands() {
		names = append(names, b.Description())
	}
	ds.Close()
	if want := []string{"value", "alpha", "r_obs", "R", "neighbours"}; !slices.Equal(names, want) {
		t.Fatalf("bands %v, want %v", names, want)
	}
	band := func(k int) []float64 { return readRaster(t, diag, k).values }
	value, alpha, robs, r, count := band(1), band(2), band(3), band(4), band(5)
	if !slices.Equal(value, readRaster(t, plain, 1).values) {
		t.Error("the value band differs from plain aidw's raster")
	}
	// r_exp of 2500 samples over their bounding box, 1 degree square
	rExp := 1 / (2 * math.Sqrt(2500/1.0))
	hits := 0
	for i := range value {
		mu := 0.0
		switch {
		case r[i] >= 2:
			mu = 1
		case r[i] > 0:
			mu = 0.5 - 0.5*math.Cos(math.Pi*r[i]/2)
		}
		want := float32(alphaOf(mu))
		if alpha[i] != float64(want) && math.Abs(alpha[i]-float64(want)) > 1e-5 {
			t.Fatalf("node %d: alpha %g, want %g for R %g", i, alpha[i], want, r[i])
		}
		if math.Abs(r[i]-robs[i]/rExp) > 1e-5*r[i] {
			t.Fatalf("node %d: R %g is not r_obs %g over r_exp %g", i, r[i], robs[i], rExp)
		}
		switch count[i] {
		case 1:
			hits++
		case 2500:
		default:
			t.Fatalf("node %d: %g neighbours, want 2500 (or 1 at a sample)", i, count[i])
		}
	}
	if hits == 0 || hits == len(count) {
		t.Errorf("%d of %d nodes are exact hits: want some, not all", hits, len(count))
	}

	data, err := os.ReadFile(preview)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 121 || b.Dy() != 121 {
		t.Fatalf("preview %v, want 121x121", b)
	}
	colours := map[[4]uint32]bool{}
	for y := 0; y < 121; y += 3 {
		for x := 0; x < 121; x += 3 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	if len(colours) < 50 {
		t.Errorf("%d distinct colours: the preview is nearly uniform", len(colours))
	}
}

// alphaOf is issue 2's alpha for mu with the default levels.
func alphaOf(mu float64) float64 {
	a := []float64{1.5, 2, 2.5, 3, 3.5}
	switch {
	case mu <= 0.1:
		return a[0]
	case mu > 0.9:
		return a[4]
	}
	k := min(int((mu-0.1)/0.2), 3)
	m := 0.1 + 0.2*float64(k)
	return a[k]*(1-5*(mu-m)) + 5*a[k+1]*(mu-m)
}

// TestGridPreviewBadInput: a preview that cannot be written stops the run before any output.
func TestGridPreviewBadInput(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct{ preview, want string }{
		{filepath.Join(out, "p.jpg"), "PNG"},
		{filepath.Join(out, "no", "p.png"), "p.png"},
	} {
		args := append(append([]string{"grid", "-q"}, demoArgs...), "-preview", c.preview,
			"../../testdata/n43_samples.csv", filepath.Join(out, "o.tif"))
		code, _, stderr := runAidw(t, args...)
		if msg := strings.TrimSpace(stderr); code != 1 || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
			t.Errorf("-preview %s: exit %d, stderr %q", c.preview, code, stderr)
		}
		if names := dirtest.Names(t, out); len(names) != 0 {
			t.Errorf("files left: %v", names)
		}
	}
}
