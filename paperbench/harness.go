package paperbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/aidw/aidw/interp"
)

// Config says what a run covers and how.
type Config struct {
	Groups []Group
	Sizes  []int
	Seed   uint64
	// MaxRun is the longest a single run may be estimated to take; longer ones are not run.
	// Estimates come from the same variant's measured work per second on smaller cases.
	MaxRun time.Duration
	// CheckNodes is how many nodes of every run are checked against the CPU float64 engine.
	CheckNodes int
	// Baseline holds earlier results whose baseline times give speedups to the cases this run
	// has no baseline for (a GPU-only run, say).
	Baseline []Result
	// Progress receives a line per case and per run; nil for none.
	Progress io.Writer
}

// Status is how a run ended.
type Status string

const (
	OK     Status = "ok"
	NotRun Status = "not run"
	Failed Status = "failed"
	// Wrong is a run whose values disagree with the CPU float64 engine beyond its tolerance.
	Wrong Status = "wrong"
)

// Result is one variant on one case.
type Result struct {
	Variant  string `json:"variant"`
	Family   Family `json:"family"`
	Device   Device `json:"device"`
	Baseline bool   `json:"baseline,omitempty"`
	Samples  int    `json:"samples"`
	Nodes    int    `json:"nodes"`
	Status   Status `json:"status"`
	// Reason says why a run did not run or failed.
	Reason string `json:"reason,omitempty"`
	// Ms is the median of Reps timed runs, in milliseconds.
	Ms   float64 `json:"ms,omitempty"`
	Reps int     `json:"reps,omitempty"`
	// Speedup is the baseline's Ms over this Ms for the same case; SpeedupFrom says where the
	// baseline time comes from ("this run" or "earlier run").
	Speedup     float64 `json:"speedup,omitempty"`
	SpeedupFrom string  `json:"speedup_from,omitempty"`
	// MaxRelErr is the largest relative error against the CPU float64 engine over Checked
	// nodes (BBox: the largest error relative to the square's side).
	MaxRelErr *float64      `json:"max_rel_err,omitempty"`
	Checked   int           `json:"checked_nodes,omitempty"`
	Tolerance float64       `json:"tolerance,omitempty"`
	Stages    []StageResult `json:"stages,omitempty"`
	Timing    string        `json:"timing,omitempty"`
}

// StageResult is one stage of a run, in milliseconds.
type StageResult struct {
	Name string  `json:"name"`
	Ms   float64 `json:"ms"`
}

// Repetition: a run under repeatBelow is repeated, up to maxReps runs or repeatBudget in all,
// and its median reported, so that short runs are not one noisy sample.
const (
	repeatBelow  = 200 * time.Millisecond
	repeatBudget = time.Second
	maxReps      = 5
)

// calibrationPairs is the size of the run that gives a variant its first estimate when its
// first case is larger than calibrateAbove pairs (a -sizes 1000K run, say).
const (
	calibrationPairs = 1e8
	calibrateAbove   = 1e9
)

// harness is one Run's state.
type harness struct {
	cfg     Config
	results []Result
	rates   map[string]rate // by variant: the largest measured run
}

// rate is a measured run: work done in seconds.
type rate struct{ work, secs float64 }

// Run times every variant on every case of the configuration that its family is run on, and
// checks each result against the CPU float64 engine. Results come in case order, then
// variant order. A cancelled context stops the run and returns the results so far.
func Run(ctx context.Context, cfg Config, variants []Variant) ([]Result, error) {
	if cfg.CheckNodes < 1 {
		return nil, fmt.Errorf("check nodes %d: must be at least 1", cfg.CheckNodes)
	}
	h := &harness{cfg: cfg, rates: map[string]rate{}}
	cases := Cases(cfg.Groups, cfg.Sizes)
	for i, c := range cases {
		if vs := h.applicable(c, variants); len(vs) > 0 {
			h.logf("case %d/%d: %s\n", i+1, len(cases), c)
			if err := h.runCase(ctx, c, vs); err != nil {
				return h.finish(), err
			}
		}
	}
	return h.finish(), nil
}

// runCase runs the variants on one case, a progress line for each that runs and one for each
// reason others cannot.
func (h *harness) runCase(ctx context.Context, c Case, vs []Variant) error {
	cs := &caseState{c: c, seed: h.cfg.Seed, inputs: map[Family]*Input{}, refs: map[Family]*reference{}}
	notRun := map[string]int{}
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := h.run(ctx, v, cs)
		h.results = append(h.results, r)
		if v.Run == nil {
			notRun[r.Reason]++
			continue
		}
		h.logf("  %-32s %s\n", v.Name, h.summary(r))
	}
	reasons := slices.Sorted(maps.Keys(notRun))
	for _, reason := range reasons {
		h.logf("  %d variants not run: %s\n", notRun[reason], reason)
	}
	return ctx.Err()
}

// applicable are the variants whose family is run on a group that holds the case.
func (h *harness) applicable(c Case, variants []Variant) []Variant {
	var out []Variant
	for _, v := range variants {
		for _, g := range v.Family.Groups() {
			if slices.Contains(h.cfg.Groups, g) && inGroup(g, c, h.cfg.Sizes) {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// caseState holds one case's data, made when a variant first needs it, and its references.
type caseState struct {
	c      Case
	seed   uint64
	data   *Data
	inputs map[Family]*Input
	refs   map[Family]*reference
}

func (cs *caseState) input(f Family) *Input {
	if cs.data == nil {
		cs.data = Generate(cs.c, cs.seed)
	}
	if cs.inputs[f] == nil {
		cs.inputs[f] = NewInput(cs.data, f)
	}
	return cs.inputs[f]
}

func (h *harness) run(ctx context.Context, v Variant, cs *caseState) Result {
	r := Result{Variant: v.Name, Family: v.Family, Device: v.Device, Baseline: v.Baseline,
		Samples: cs.c.Samples, Nodes: cs.c.Nodes}
	if v.Run == nil {
		r.Status, r.Reason = NotRun, v.NotRun
		return r
	}
	in := cs.input(v.Family)
	if reason, err := h.tooLong(ctx, v, in); err != nil || reason != "" {
		return ended(r, reason, err)
	}
	outs, err := measure(ctx, v, in)
	if err != nil {
		return ended(r, "", err)
	}
	med := median(outs)
	r.Status, r.Reps, r.Ms, r.Timing = OK, len(outs), ms(med.Elapsed), med.Timing
	for _, s := range med.Stages {
		r.Stages = append(r.Stages, StageResult{Name: s.Name, Ms: ms(s.Elapsed)})
	}
	h.record(v, in.Case, med.Elapsed)
	maxErr, checked, err := h.check(ctx, in, outs[0], cs)
	if err != nil {
		r.Status, r.Reason = Failed, "checking against the CPU float64 engine: "+err.Error()
		return r
	}
	r.MaxRelErr, r.Checked, r.Tolerance = &maxErr, checked, v.tolerance()
	if !(maxErr <= r.Tolerance) {
		r.Status = Wrong
		r.Reason = fmt.Sprintf("max relative error %.1e exceeds the tolerance %.0e", maxErr, r.Tolerance)
	}
	h.speedup(&r, h.results)
	return r
}

// ended is a run that stopped before a time: not run for a reason, or failed.
func ended(r Result, reason string, err error) Result {
	if err == nil {
		r.Status, r.Reason = NotRun, reason
		return r
	}
	if reason, ok := asCannotRun(err); ok {
		r.Status, r.Reason = NotRun, reason
		return r
	}
	r.Status, r.Reason = Failed, err.Error()
	return r
}

// tooLong returns why the variant is not run on the input when its estimated time exceeds
// MaxRun. Without a measured run to estimate from, a large case is calibrated first on a
// subset of its nodes.
func (h *harness) tooLong(ctx context.Context, v Variant, in *Input) (string, error) {
	if v.NearLinear {
		return "", nil
	}
	work := v.Family.work(in.Case)
	rt, ok := h.rates[v.Name]
	if !ok && v.Family.pairwise() && work > calibrateAbove {
		sub := subInput(in, max(1, int(calibrationPairs/float64(in.Samples))))
		h.logf("  %-32s calibrating on %s\n", v.Name, sub.Case)
		out, err := v.Run(ctx, sub)
		if err != nil {
			return "", err
		}
		h.record(v, sub.Case, out.Elapsed)
		rt, ok = h.rates[v.Name]
	}
	if !ok || rt.secs <= 0 {
		return "", nil
	}
	est := time.Duration(work / rt.work * rt.secs * float64(time.Second))
	if est <= h.cfg.MaxRun {
		return "", nil
	}
	return fmt.Sprintf("estimated %s > %s", minutes(est), minutes(h.cfg.MaxRun)), nil
}

// subInput is the input with only its first n nodes.
func subInput(in *Input, n int) *Input {
	n = min(n, in.Nodes)
	d := *in.Data
	d.Case.Nodes, d.NodeX, d.NodeY = n, d.NodeX[:n], d.NodeY[:n]
	sub := *in
	sub.Data = &d
	return &sub
}

// record keeps the largest run of a variant as the base of its estimates.
func (h *harness) record(v Variant, c Case, elapsed time.Duration) {
	work := v.Family.work(c)
	if rt, ok := h.rates[v.Name]; !ok || work >= rt.work {
		h.rates[v.Name] = rate{work: work, secs: elapsed.Seconds()}
	}
}

// measure runs the variant once, or up to maxReps times while runs are short.
func measure(ctx context.Context, v Variant, in *Input) ([]*Output, error) {
	var outs []*Output
	var total time.Duration
	for len(outs) < maxReps {
		out, err := v.Run(ctx, in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, errors.New("the run returned no output")
		}
		outs = append(outs, out)
		total += out.Elapsed
		if outs[0].Elapsed >= repeatBelow || total >= repeatBudget {
			break
		}
	}
	return outs, nil
}

// median is the output with the median time (the lower of the two middle ones).
func median(outs []*Output) *Output {
	s := slices.Clone(outs)
	slices.SortStableFunc(s, func(a, b *Output) int { return cmp.Compare(a.Elapsed, b.Elapsed) })
	return s[(len(s)-1)/2]
}

// reference is the CPU float64 engine's values at the checked nodes of a case's input.
type reference struct {
	idx    []int
	values []float64
}

// check returns the largest relative error of the output against the CPU float64 engine, at
// CheckNodes nodes spread evenly through the output's nodes.
func (h *harness) check(ctx context.Context, in *Input, out *Output, cs *caseState) (float64, int, error) {
	if in.Family == BBox {
		return checkBBox(in, out)
	}
	nx, ny := in.NodeX, in.NodeY
	if out.NodeX != nil {
		nx, ny = out.NodeX, out.NodeY
	}
	if len(ny) != len(nx) || len(out.Values) != len(nx) {
		return 0, 0, fmt.Errorf("%d values for %d nodes", len(out.Values), len(nx))
	}
	ref := cs.refs[in.Family]
	if ref == nil || out.NodeX != nil || len(ref.idx) > len(nx) {
		var err error
		if ref, err = h.reference(ctx, in, nx, ny); err != nil {
			return 0, 0, err
		}
		if out.NodeX == nil && len(nx) == in.Nodes {
			cs.refs[in.Family] = ref
		}
	}
	worst := 0.0
	for j, i := range ref.idx {
		worst = max(worst, relErr(out.Values[i], ref.values[j]))
	}
	return worst, len(ref.idx), nil
}

func (h *harness) reference(ctx context.Context, in *Input, nx, ny []float64) (*reference, error) {
	n := min(h.cfg.CheckNodes, len(nx))
	ref := &reference{idx: make([]int, n)}
	xs, ys := make([]float64, n), make([]float64, n)
	for j := range n {
		i := int(int64(j) * int64(len(nx)) / int64(n))
		ref.idx[j], xs[j], ys[j] = i, nx[i], ny[i]
	}
	var err error
	ref.values, err = interp.EvaluateAt(ctx, &interp.CPU{}, in.Problem(), xs, ys)
	return ref, err
}

// checkBBox compares a bounding box with the exact one, errors relative to the square's side.
func checkBBox(in *Input, out *Output) (float64, int, error) {
	if len(out.Values) != 4 {
		return 0, 0, fmt.Errorf("%d values for a bounding box, want minX, minY, maxX, maxY", len(out.Values))
	}
	want := boundingBox(in.X, in.Y)
	worst := 0.0
	for i, w := range want {
		worst = max(worst, relErr(out.Values[i]-w, 0)/Side)
	}
	return worst, 4, nil
}

// relErr is |got-want|/|want| (|got| when want is 0); NaN and infinities are infinitely wrong.
func relErr(got, want float64) float64 {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return math.Inf(1)
	}
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// speedup sets r's speedup over the baseline of its family and case among results, else
// among the configuration's earlier results.
func (h *harness) speedup(r *Result, results []Result) {
	if r.Baseline || r.Ms <= 0 {
		return
	}
	for _, src := range []struct {
		from    string
		results []Result
	}{{"this run", results}, {"earlier run", h.cfg.Baseline}} {
		for _, b := range src.results {
			if b.Baseline && b.Status == OK && b.Family == r.Family && b.Samples == r.Samples && b.Nodes == r.Nodes {
				r.Speedup, r.SpeedupFrom = b.Ms/r.Ms, src.from
				return
			}
		}
	}
}

// finish sets the speedups that a baseline measured after its variant gives, and returns
// the results.
func (h *harness) finish() []Result {
	for i := range h.results {
		if h.results[i].Speedup == 0 {
			h.speedup(&h.results[i], h.results)
		}
	}
	return h.results
}

func (h *harness) logf(format string, args ...any) {
	if h.cfg.Progress != nil {
		fmt.Fprintf(h.cfg.Progress, format, args...)
	}
}

// summary is a result in a progress line.
func (h *harness) summary(r Result) string {
	switch r.Status {
	case NotRun:
		return "not run: " + r.Reason
	case Failed:
		return "FAILED: " + r.Reason
	}
	s := fmt.Sprintf("%10s ms", formatMs(r.Ms))
	if r.Speedup > 0 {
		s += fmt.Sprintf("  %7s", formatSpeedup(r.Speedup))
	} else {
		s += "         "
	}
	if r.Family == BBox {
		s += fmt.Sprintf("  max err %s of the side", formatErr(*r.MaxRelErr))
	} else {
		s += fmt.Sprintf("  max rel err %s (%d nodes)", formatErr(*r.MaxRelErr), r.Checked)
	}
	if r.Status == Wrong {
		s += "  WRONG: " + r.Reason
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// minutes writes a duration in whole minutes, with hours beside long ones.
func minutes(d time.Duration) string {
	s := fmt.Sprintf("%.0f min", d.Minutes())
	if d >= 2*time.Hour {
		s += fmt.Sprintf(" (%.1f h)", d.Hours())
	}
	return s
}
