package paperbench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Report is a run with everything needed to read it: environment, configuration, notes,
// the variants chosen and the results.
type Report struct {
	Env        Env           `json:"env"`
	Groups     []Group       `json:"groups"`
	Sizes      []int         `json:"sizes"`
	Seed       uint64        `json:"seed"`
	MaxRunMin  float64       `json:"max_run_minutes"`
	CheckNodes int           `json:"check_nodes"`
	Notes      []string      `json:"notes"`
	Variants   []VariantInfo `json:"variants"`
	Results    []Result      `json:"results"`
}

// VariantInfo is a variant as reports describe it.
type VariantInfo struct {
	Name      string    `json:"name"`
	Family    Family    `json:"family"`
	Device    Device    `json:"device"`
	Method    string    `json:"method"`
	Label     string    `json:"label"`
	Layout    Layout    `json:"layout,omitempty"`
	Precision Precision `json:"precision"`
	Baseline  bool      `json:"baseline,omitempty"`
	NotRun    string    `json:"not_run,omitempty"`
}

// NewReport assembles a report.
func NewReport(env Env, cfg Config, variants []Variant, results []Result) *Report {
	r := &Report{Env: env, Groups: cfg.Groups, Sizes: slices.Sorted(slices.Values(cfg.Sizes)), Seed: cfg.Seed,
		MaxRunMin: cfg.MaxRun.Minutes(), CheckNodes: cfg.CheckNodes, Results: results}
	for _, v := range variants {
		r.Variants = append(r.Variants, VariantInfo{Name: v.Name, Family: v.Family, Device: v.Device,
			Method: v.Method, Label: v.Label, Layout: v.Layout, Precision: v.Precision, Baseline: v.Baseline,
			NotRun: v.NotRun})
	}
	r.Notes = []string{
		fmt.Sprintf("Data as in the papers: samples and nodes (prediction points) uniform at random in a %g x %g "+
			"square, 1K = 1024; sample values a smooth surface plus noise (seed %d). AIDW: k = 15, alphas "+
			"1.5..3.5, rmin 0, rmax 2, study area the square's.", Side, Side, cfg.Seed),
		"Times are wall-clock milliseconds of the computation, data generation excluded; runs under 0.2 s are " +
			"repeated (up to 5 runs or 1 s) and the median is shown. CPU engine rows include the even-grid " +
			"index build. Other work on the machine slows the CPU rows: see the load averages.",
		fmt.Sprintf("Every run is checked against aidw's CPU float64 engine at %d nodes spread through the output "+
			"(relative error; the bounding box: error relative to the square's side).", cfg.CheckNodes),
		fmt.Sprintf("A run estimated (from the same variant's time on a smaller case) to take more than %s is "+
			"not run: its cell says so and gives the estimate, which is never shown as a time.", minutes(cfg.MaxRun)),
		"Speedups are over the CPU serial baseline of the same case (the papers' CPU version: one core, " +
			"float64, straightforward loops with math.Pow and a brute-force kNN); a speedup marked * is over a " +
			"baseline from an earlier run's results.",
		GDALNote,
		CDPNote,
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the report's tables, shaped like the papers' Table 1.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# aidw bench: the papers' experiments on this machine\n\n")
	r.writeEnv(&b)
	b.WriteString("Cells: time in ms (speedup over the CPU serial baseline, largest relative error against " +
		"the CPU float64 engine).\n\n")
	for _, n := range r.Notes {
		b.WriteString("- " + n + "\n")
	}
	for _, f := range Families {
		if !slices.ContainsFunc(r.Results, func(res Result) bool { return res.Family == f }) {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n", f.Title())
		for _, g := range f.Groups() {
			r.writeTable(&b, f, g)
		}
		r.writeStages(&b, f)
		writePublished(&b, f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) writeEnv(b *strings.Builder) {
	e := r.Env
	gpu := "none"
	if e.GPU != nil {
		gpu = e.GPU.Name
		if e.GPU.Driver != "" {
			gpu += ", driver " + e.GPU.Driver
		}
		if e.GPU.Memory != "" {
			gpu += ", " + e.GPU.Memory
		}
	}
	gdal := e.GDAL
	if gdal == "" {
		gdal = "not on PATH"
	}
	load := e.LoadStart + " at the start"
	if e.LoadEnd != "" {
		load += ", " + e.LoadEnd + " at the end"
	}
	rows := [][2]string{
		{"date", e.Date},
		{"commit", e.Commit},
		{"command", "`" + e.Command + "`"},
		{"CPU", fmt.Sprintf("%s, %d cores (CPU engine: %d workers)", e.CPU, e.Cores, e.Threads)},
		{"GPU", gpu},
		{"gdal_grid", gdal},
		{"Go", e.Go},
		{"load average (1, 5, 15 min)", load},
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", row[0], row[1])
	}
	b.WriteString("\n")
}

// groupTitle heads a group's table and names what its columns count.
func groupTitle(f Family, g Group) string {
	switch {
	case f == BBox:
		return "columns: samples"
	case g == FixedSamples:
		return FormatSize(FixedSize) + " samples; columns: nodes (Mei 2014, Figs. 4-5)"
	case g == FixedNodes:
		return FormatSize(FixedSize) + " nodes; columns: samples (Mei 2014, Figs. 6-7)"
	}
	return "as many nodes as samples; columns: samples = nodes"
}

// columns are the cases of a group at the report's sizes that have results of the family.
func (r *Report) columns(f Family, g Group) []Case {
	var out []Case
	for _, s := range r.Sizes {
		c := caseOf(g, s)
		if slices.ContainsFunc(r.Results, func(res Result) bool {
			return res.Family == f && res.Samples == c.Samples && res.Nodes == c.Nodes
		}) {
			out = append(out, c)
		}
	}
	return out
}

func (r *Report) writeTable(b *strings.Builder, f Family, g Group) {
	cols := r.columns(f, g)
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s\n\n| Version | Variant | Layout | Precision |", groupTitle(f, g))
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", FormatSize(sizeOf(g, c)))
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("--:|", len(cols)) + "\n")
	var notes footnotes
	for _, v := range r.Variants {
		if v.Family != f {
			continue
		}
		cells := make([]string, len(cols))
		any := false
		for i, c := range cols {
			res, ok := r.find(v.Name, c)
			if ok {
				cells[i], any = cell(res, &notes), true
			}
		}
		if !any {
			continue
		}
		layout := string(v.Layout)
		if layout == "" {
			layout = "-"
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s |\n", v.Label, v.Name, layout, v.Precision,
			strings.Join(cells, " | "))
	}
	notes.write(b)
}

func (r *Report) find(variant string, c Case) (Result, bool) {
	i := slices.IndexFunc(r.Results, func(res Result) bool {
		return res.Variant == variant && res.Samples == c.Samples && res.Nodes == c.Nodes
	})
	if i < 0 {
		return Result{}, false
	}
	return r.Results[i], true
}

// writeStages writes the stage breakdown of the family's equal series, like Mei, Xu & Xu
// 2016's Table 3, for the variants that report stages.
func (r *Report) writeStages(b *strings.Builder, f Family) {
	cols := r.columns(f, Equal)
	type row struct{ variant, stage string }
	var rows []row
	for _, v := range r.Variants {
		for _, c := range cols {
			if res, ok := r.find(v.Name, c); ok && v.Family == f {
				for _, s := range res.Stages {
					if !slices.Contains(rows, row{v.Name, s.Name}) {
						rows = append(rows, row{v.Name, s.Name})
					}
				}
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### Stages (ms), as in Mei, Xu & Xu 2016, Table 3\n\n| Variant | Stage |")
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", FormatSize(c.Nodes))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("--:|", len(cols)) + "\n")
	for _, rw := range rows {
		fmt.Fprintf(b, "| `%s` | %s |", rw.variant, rw.stage)
		for _, c := range cols {
			res, _ := r.find(rw.variant, c)
			i := slices.IndexFunc(res.Stages, func(s StageResult) bool { return s.Name == rw.stage })
			if i < 0 {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(b, " %s |", formatMs(res.Stages[i].Ms))
		}
		b.WriteString("\n")
	}
}

// cell is a result in a table cell.
func cell(res Result, notes *footnotes) string {
	switch res.Status {
	case NotRun:
		return "not run " + notes.ref(res.Reason)
	case Failed:
		return "failed " + notes.ref(res.Reason)
	}
	speedup := res.Speedup
	if res.Baseline {
		speedup = 1
	}
	var parts []string
	if speedup > 0 {
		s := formatSpeedup(speedup)
		if res.SpeedupFrom == "earlier run" {
			s += "*"
		}
		parts = append(parts, s)
	}
	if res.MaxRelErr != nil {
		parts = append(parts, formatErr(*res.MaxRelErr))
	}
	s := formatMs(res.Ms)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if res.Status == Wrong {
		s = "**" + s + " WRONG** " + notes.ref(res.Reason)
	}
	return s
}

// footnotes number the distinct reasons of one table.
type footnotes []string

func (n *footnotes) ref(reason string) string {
	i := slices.Index(*n, reason)
	if i < 0 {
		*n = append(*n, reason)
		i = len(*n) - 1
	}
	return fmt.Sprintf("[%d]", i+1)
}

func (n footnotes) write(b *strings.Builder) {
	if len(n) == 0 {
		return
	}
	b.WriteString("\n")
	for i, reason := range n {
		fmt.Fprintf(b, "[%d] %s  \n", i+1, reason)
	}
}

func formatMs(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func formatSpeedup(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1fx", v)
	}
	return fmt.Sprintf("%.0fx", v)
}

func formatErr(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0e", v)
}
