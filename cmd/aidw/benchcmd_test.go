package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/paperbench"
	"github.com/urfave/cli/v2"
)

// parseBench parses an `aidw bench` command line without running it.
func parseBench(t *testing.T, args ...string) (benchOptions, error) {
	t.Helper()
	cmd := benchCommand()
	var o benchOptions
	var perr error
	cmd.Action = func(c *cli.Context) error { o, perr = benchOptionsOf(c); return nil }
	app := &cli.App{Name: "aidw", Commands: []*cli.Command{cmd}, Writer: &bytes.Buffer{}, ErrWriter: &bytes.Buffer{}}
	if err := app.Run(append([]string{"aidw", "bench"}, args...)); err != nil {
		return o, err
	}
	return o, perr
}

func TestBenchFlags(t *testing.T) {
	o, err := parseBench(t)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.cfg.Sizes, paperbench.PaperSizes) || len(o.cfg.Groups) != 3 || o.cfg.MaxRun.Minutes() != 10 ||
		o.cfg.CheckNodes != 1000 || o.filter.Device != "all" || o.out != "" {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parseBench(t, "-quick", "-o", "/tmp/x", "-device", "cpu", "-variants", "aidw/*,gdal")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.cfg.Sizes, []int{10240}) || !slices.Equal(o.cfg.Groups, []paperbench.Group{paperbench.Equal}) ||
		o.out != "/tmp/x" || o.filter.Device != "cpu" || !slices.Equal(o.filter.Patterns, []string{"aidw/*", "gdal"}) {
		t.Errorf("-quick -o -device -variants: %+v", o)
	}
	o, err = parseBench(t, "-sizes", "1K,2K", "-groups", "fixed-nodes", "-max-minutes", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.cfg.Sizes, []int{1024, 2048}) || o.cfg.Groups[0] != paperbench.FixedNodes || o.cfg.MaxRun.Seconds() != 30 {
		t.Errorf("-sizes -groups -max-minutes: %+v", o)
	}
	for _, bad := range [][]string{
		{"-sizes", "ten"}, {"-groups", "fixed"}, {"-max-minutes", "0"}, {"-check-nodes", "0"}, {"extra"},
	} {
		if _, err := parseBench(t, bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestBenchListAndBadFilters(t *testing.T) {
	var out bytes.Buffer
	o, err := parseBench(t, "-list", "-device", "gpu", "-variants", "*cdp*")
	if err != nil {
		t.Fatal(err)
	}
	if err := runBench(context.Background(), o, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+12 || !strings.Contains(lines[1], "idw2/gpu-cdp/SoA/f32") ||
		!strings.Contains(lines[1], "not run: "+paperbench.NoGPUEngine) {
		t.Errorf("-list -device gpu -variants *cdp*:\n%s", out.String())
	}
	for _, args := range [][]string{{"-variants", "kriging"}, {"-device", "tpu"}} {
		o, err := parseBench(t, args...)
		if err == nil {
			err = runBench(context.Background(), o, &out, &bytes.Buffer{})
		}
		if err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestBenchWritesReports runs a small configuration end to end (the -quick one takes about
// half a minute on two loaded cores): every CPU variant and peer, the GPU ones listed as not run.
func TestBenchWritesReports(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "bench")
	o, err := parseBench(t, "-sizes", "1K", "-groups", "equal", "-check-nodes", "200", "-o", prefix)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := runBench(context.Background(), o, &bytes.Buffer{}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"case 1/1: 1K samples x 1K nodes", "aidw/cpu-serial", "no longer exists in CUDA 12",
		"variants not run: " + paperbench.NoGPUEngine, "wrote " + prefix + ".md"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr.String())
		}
	}
	md, err := os.ReadFile(prefix + ".md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Version | Variant | Layout | Precision | 1K |", "`aidw/cpu-engine`",
		"`idw3/gpu-cdp/AoaS/f64` | AoaS | f64 | not run [1] |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	b, err := os.ReadFile(prefix + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rep paperbench.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range rep.Results {
		switch {
		case r.Device == paperbench.GPU && r.Status != paperbench.NotRun:
			t.Errorf("%s ran in the CPU build", r.Variant)
		case r.Device == paperbench.CPU && r.Status == paperbench.OK:
			ran++
		case r.Device == paperbench.CPU && !strings.Contains(r.Reason, "gdal_grid"):
			t.Errorf("%s: %s %s", r.Variant, r.Status, r.Reason)
		}
	}
	if ran < 8 || rep.Env.Cores < 1 || rep.Env.Commit == "" || rep.Env.LoadEnd == "" {
		t.Errorf("%d CPU runs; env %+v", ran, rep.Env)
	}
}
