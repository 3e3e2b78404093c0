package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/paperbench"
	"github.com/urfave/cli/v2"
)

// benchCommand is `aidw bench`: the papers' experiments, timed and checked on this machine.
func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "re-run the papers' experiments (IDW, AIDW, data layouts, reductions) beside gdal_grid",
		Description: "Generates the papers' synthetic cases (uniform random samples and nodes in a square, " +
			"10K..1000K with 1K = 1024), times every variant on them with a progress line per case, checks " +
			"each against the CPU float64 engine, and writes Markdown tables shaped like the papers' Table 1 " +
			"plus JSON. GPU variants run in the cuda build.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quick", Usage: "the 10K samples = nodes case only (CI; about a minute on 2 cores)"},
			&cli.StringFlag{Name: "sizes", Usage: "sizes to run, e.g. 10K,50K (1K = 1024; default all five of the papers')"},
			&cli.StringFlag{Name: "groups", Usage: "series: equal, fixed-samples, fixed-nodes (default all)"},
			&cli.StringFlag{Name: "variants", Usage: "comma-separated name patterns: substrings, or globs with * (see -list)"},
			&cli.StringFlag{Name: "device", Value: "all", Usage: "cpu, gpu or all"},
			&cli.StringFlag{Name: "o", Usage: "write `PREFIX`.md and PREFIX.json (default: Markdown to stdout)"},
			&cli.Float64Flag{Name: "max-minutes", Value: 10, Usage: "runs estimated to take longer are not run"},
			&cli.IntFlag{Name: "check-nodes", Value: 1000, Usage: "nodes of each run checked against the CPU float64 engine"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the synthetic data"},
			&cli.StringFlag{Name: "baseline", Usage: "a results `JSON` whose CPU serial times give speedups where this run has none"},
			&cli.BoolFlag{Name: "list", Usage: "list the variants the filters choose, and exit"},
		},
		Action: func(c *cli.Context) error {
			o, err := benchOptionsOf(c)
			if err != nil {
				return err
			}
			return runBench(c.Context, o, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// benchOptions is a parsed `aidw bench` command line.
type benchOptions struct {
	cfg      paperbench.Config
	filter   paperbench.Filter
	out      string // output prefix; "" writes Markdown to stdout
	baseline string
	list     bool
	command  string
}

func benchOptionsOf(c *cli.Context) (benchOptions, error) {
	if c.Args().Len() > 0 {
		return benchOptions{}, fmt.Errorf("bench takes no arguments, got %q", c.Args().Slice())
	}
	o := benchOptions{
		out:      c.String("o"),
		baseline: c.String("baseline"),
		list:     c.Bool("list"),
		filter:   paperbench.Filter{Device: c.String("device")},
		command:  "aidw " + strings.Join(os.Args[1:], " "),
		cfg: paperbench.Config{
			Groups:     paperbench.Groups,
			Sizes:      paperbench.PaperSizes,
			Seed:       c.Uint64("seed"),
			MaxRun:     time.Duration(c.Float64("max-minutes") * float64(time.Minute)),
			CheckNodes: c.Int("check-nodes"),
		},
	}
	if c.Bool("quick") {
		o.cfg.Groups, o.cfg.Sizes = []paperbench.Group{paperbench.Equal}, []int{10 * paperbench.K}
	}
	var err error
	if s := c.String("sizes"); s != "" {
		if o.cfg.Sizes, err = paperbench.ParseSizes(s); err != nil {
			return o, fmt.Errorf("-sizes: %w", err)
		}
	}
	if s := c.String("groups"); s != "" {
		o.cfg.Groups = nil
		for _, name := range strings.Split(s, ",") {
			g, err := paperbench.ParseGroup(strings.TrimSpace(name))
			if err != nil {
				return o, fmt.Errorf("-groups: %w", err)
			}
			o.cfg.Groups = append(o.cfg.Groups, g)
		}
	}
	if s := c.String("variants"); s != "" {
		o.filter.Patterns = strings.Split(s, ",")
	}
	if !(o.cfg.MaxRun > 0) {
		return o, fmt.Errorf("-max-minutes %g: must be positive", c.Float64("max-minutes"))
	}
	if o.cfg.CheckNodes < 1 {
		return o, fmt.Errorf("-check-nodes %d: must be at least 1", o.cfg.CheckNodes)
	}
	// Say now, not after the runs, that the report cannot be written.
	if o.out != "" {
		if err := gdalio.CheckDestination(o.out + ".md"); err != nil {
			return o, fmt.Errorf("-o %s: %w", o.out, err)
		}
	}
	return o, nil
}

// runBench runs the chosen variants and writes the report; runs that fail or disagree with
// the CPU float64 engine make it return an error once the report is written.
func runBench(ctx context.Context, o benchOptions, stdout, stderr io.Writer) error {
	reg := paperbench.NewRegistry()
	if err := paperbench.RegisterGPU(reg); err != nil {
		return fmt.Errorf("registering the GPU variants: %w", err)
	}
	variants, err := reg.Select(o.filter)
	if err != nil {
		return err
	}
	if o.list {
		return listVariants(stdout, variants)
	}
	if o.baseline != "" {
		if o.cfg.Baseline, err = readBaseline(o.baseline); err != nil {
			return err
		}
	}
	env := paperbench.CollectEnv(o.command)
	if reg.GPU.Name != "" {
		gpu := reg.GPU
		env.GPU = &gpu
	}
	o.cfg.Progress = stderr
	fmt.Fprintf(stderr, "aidw bench: %d variants, CPU %s x %d, commit %s\nNote: %s\n",
		len(variants), env.CPU, env.Cores, env.Commit, paperbench.CDPNote)
	results, runErr := paperbench.Run(ctx, o.cfg, variants)
	env.LoadEnd = paperbench.LoadAverage()
	report := paperbench.NewReport(env, o.cfg, variants, results)
	if err := writeBenchReport(report, o.out, stdout, stderr); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	bad := 0
	for _, r := range results {
		if r.Status == paperbench.Failed || r.Status == paperbench.Wrong {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d runs failed or disagreed with the CPU float64 engine (see the report)", bad)
	}
	return nil
}

// writeBenchReport writes prefix.md and prefix.json, or the Markdown to stdout without a prefix.
func writeBenchReport(r *paperbench.Report, prefix string, stdout, stderr io.Writer) error {
	if prefix == "" {
		return r.WriteMarkdown(stdout)
	}
	for _, out := range []struct {
		ext   string
		write func(io.Writer) error
	}{{".md", r.WriteMarkdown}, {".json", r.WriteJSON}} {
		path := prefix + out.ext
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		err = out.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	fmt.Fprintf(stderr, "wrote %s.md and %s.json\n", prefix, prefix)
	return nil
}

// readBaseline reads the results of an earlier run's JSON report.
func readBaseline(path string) ([]paperbench.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	var r paperbench.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading the baseline %s: %w", path, err)
	}
	return r.Results, nil
}

// listVariants writes one line per variant: name, device, label and, when it cannot run in
// this build, why.
func listVariants(w io.Writer, variants []paperbench.Variant) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIANT\tDEVICE\tVERSION\tSTATUS")
	for _, v := range variants {
		status := "runs"
		if v.Run == nil {
			status = "not run: " + v.NotRun
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Name, v.Device, v.Label, status)
	}
	return tw.Flush()
}
