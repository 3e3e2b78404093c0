package paperbench

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aidw/aidw/interp"
)

// fakeVariant computes the right values with the CPU engine but reports perPair per sample-node
// pair as its time: a fake clock for the harness's estimates. It counts its runs by node count.
type fakeVariant struct {
	mu      sync.Mutex
	calls   map[int]int
	perPair time.Duration
	scale   float64 // multiplies the values, to make them wrong
	err     error
}

func (f *fakeVariant) run(ctx context.Context, in *Input) (*Output, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[int]int{}
	}
	f.calls[in.Nodes]++
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	out := &Output{Elapsed: time.Duration(in.Pairs() * float64(f.perPair))}
	if in.Pairs() > calibrateAbove {
		return out, nil // a large case: only its time matters to the test
	}
	eng, err := PointsRun(&interp.CPU{})(ctx, in)
	if err != nil {
		return nil, err
	}
	out.Values = eng.Values
	if f.scale != 0 {
		for i := range out.Values {
			out.Values[i] *= f.scale
		}
	}
	return out, nil
}

func (f *fakeVariant) variant(name string, p Precision) Variant {
	return Variant{Name: name, Family: IDW2, Device: GPU, Method: "fake", Label: "fake", Precision: p, Run: f.run}
}

func runConfig(sizes ...int) Config {
	return Config{Groups: []Group{Equal}, Sizes: sizes, Seed: 1, MaxRun: 10 * time.Minute, CheckNodes: 100}
}

func TestTenMinuteRuleSkipsWhatWouldTakeLonger(t *testing.T) {
	// 40 us a pair: 2048^2 pairs take 2.8 min, 4096^2 would take 11.2 min.
	f := &fakeVariant{perPair: 40 * time.Microsecond}
	var progress strings.Builder
	cfg := runConfig(4096, 1024, 2048)
	cfg.Progress = &progress
	res, err := Run(context.Background(), cfg, []Variant{f.variant("idw2/fake", F64)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	for i, n := range []int{1024, 2048} {
		if r := res[i]; r.Status != OK || r.Nodes != n || r.Ms != float64(n*n)*0.04 {
			t.Errorf("size %d: %+v, want ok in %g ms", n, r, float64(n*n)*0.04)
		}
	}
	if r := res[2]; r.Status != NotRun || r.Reason != "estimated 11 min > 10 min" || r.Ms != 0 {
		t.Errorf("4096: %+v, want not run, estimated 11 min > 10 min", r)
	}
	if f.calls[4096] != 0 {
		t.Errorf("the 4096 case was run %d times", f.calls[4096])
	}
	if !strings.Contains(progress.String(), "case 3/3: 4K samples x 4K nodes") ||
		!strings.Contains(progress.String(), "not run: estimated 11 min > 10 min") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestLargeFirstCaseIsCalibrated(t *testing.T) {
	f := &fakeVariant{perPair: time.Microsecond}
	n := 40 * K // 1.7e9 pairs: 28 min at 1 us a pair
	res, err := Run(context.Background(), runConfig(n), []Variant{f.variant("idw2/fake", F64)})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Status != NotRun || r.Reason != "estimated 28 min > 10 min" {
		t.Errorf("result %+v, want not run, estimated 28 min > 10 min", r)
	}
	sub := int(calibrationPairs / float64(n))
	if f.calls[n] != 0 || f.calls[sub] != 1 {
		t.Errorf("calls by node count %v, want one calibration on %d nodes", f.calls, sub)
	}
}

func TestChecksAgainstTheEngine(t *testing.T) {
	off := &fakeVariant{perPair: time.Nanosecond, scale: 1 + 1e-6}
	res, err := Run(context.Background(), runConfig(1024), []Variant{
		off.variant("idw2/off64", F64), off.variant("idw2/off32", F32),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Status != Wrong || r.MaxRelErr == nil || *r.MaxRelErr < 0.9e-6 || r.Checked != 100 {
		t.Errorf("f64 off by 1e-6: %+v, want wrong, error about 1e-6 over 100 nodes", r)
	}
	if r := res[1]; r.Status != OK || r.Tolerance != 1e-4 {
		t.Errorf("f32 off by 1e-6: %+v, want ok within 1e-4", r)
	}
	// A run under 0.2 s is repeated up to five times.
	if off.calls[1024] != 10 {
		t.Errorf("%d runs of two fast variants, want 5 each", off.calls[1024])
	}
	if res[0].Reps != 5 {
		t.Errorf("reps %d, want 5", res[0].Reps)
	}
}

func TestCannotRunAndFailures(t *testing.T) {
	cannot := &fakeVariant{err: CannotRun("needs 3 TB of device memory")}
	broken := &fakeVariant{err: errors.New("launch failed")}
	placeholder := Variant{Name: "idw2/gpu-x", Family: IDW2, Device: GPU, NotRun: NoGPUEngine}
	res, err := Run(context.Background(), runConfig(1024), []Variant{
		cannot.variant("idw2/cannot", F32), broken.variant("idw2/broken", F32), placeholder,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		s      Status
		reason string
	}{{NotRun, "needs 3 TB of device memory"}, {Failed, "launch failed"}, {NotRun, NoGPUEngine}}
	for i, w := range want {
		if res[i].Status != w.s || res[i].Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", res[i].Variant, res[i].Status, res[i].Reason, w.s, w.reason)
		}
	}
}

func TestSpeedupsAreOverTheBaseline(t *testing.T) {
	base := &fakeVariant{perPair: 100 * time.Nanosecond}
	fast := &fakeVariant{perPair: 4 * time.Nanosecond}
	bv := base.variant("idw2/base", F64)
	bv.Baseline = true
	// The fast variant comes first: its speedup is set once the baseline has run.
	res, err := Run(context.Background(), runConfig(1024), []Variant{fast.variant("idw2/fast", F64), bv})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; math.Abs(r.Speedup-25) > 1e-9 || r.SpeedupFrom != "this run" {
		t.Errorf("fast: speedup %g from %q, want 25 from this run", r.Speedup, r.SpeedupFrom)
	}
	// Without the baseline in the run, an earlier run's gives the speedup.
	cfg := runConfig(1024)
	cfg.Baseline = []Result{res[1]}
	res, err = Run(context.Background(), cfg, []Variant{fast.variant("idw2/fast", F64)})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; math.Abs(r.Speedup-25) > 1e-9 || r.SpeedupFrom != "earlier run" {
		t.Errorf("fast with an earlier baseline: speedup %g from %q", r.Speedup, r.SpeedupFrom)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeVariant{perPair: time.Nanosecond}
	if _, err := Run(ctx, runConfig(1024, 2048), []Variant{f.variant("idw2/fake", F64)}); err == nil {
		t.Error("cancelled run: no error")
	}
	if len(f.calls) != 0 {
		t.Errorf("a cancelled run ran %v", f.calls)
	}
}
