package paperbench

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func testReport() *Report {
	r := NewRegistry()
	vs, _ := r.Select(Filter{Patterns: []string{"aidw/cpu-serial", "aidw/gpu-tiled/SoA/f32"}})
	e1, e2 := 2e-14, 3e-2
	results := []Result{
		{Variant: "aidw/cpu-serial", Family: AIDW, Device: CPU, Baseline: true, Samples: 10 * K, Nodes: 10 * K,
			Status: OK, Ms: 6791.2, Reps: 1, MaxRelErr: &e1, Checked: 1000, Tolerance: 1e-9,
			Stages: []StageResult{{"kNN (brute force)", 91.5}, {"weighting", 6699.7}}},
		{Variant: "aidw/gpu-tiled/SoA/f32", Family: AIDW, Device: GPU, Samples: 10 * K, Nodes: 10 * K,
			Status: Wrong, Ms: 12.5, Reps: 5, Speedup: 543.3, SpeedupFrom: "this run", MaxRelErr: &e2,
			Checked: 1000, Tolerance: 1e-4, Reason: "max relative error 3.0e-02 exceeds the tolerance 1e-04"},
		{Variant: "aidw/cpu-serial", Family: AIDW, Device: CPU, Baseline: true, Samples: 50 * K, Nodes: 50 * K,
			Status: NotRun, Reason: "estimated 25 min > 10 min"},
		{Variant: "aidw/gpu-tiled/SoA/f32", Family: AIDW, Device: GPU, Samples: 50 * K, Nodes: 50 * K,
			Status: OK, Ms: 714, Reps: 1, Speedup: 300, SpeedupFrom: "earlier run", MaxRelErr: &e1, Checked: 1000},
	}
	cfg := runConfig(50*K, 10*K)
	cfg.CheckNodes = 1000
	env := Env{Date: "2026-11-21T00:00:00Z", Commit: "abc1234", Command: "aidw bench", CPU: "Test CPU",
		Cores: 2, Threads: 2, GPU: &GPUInfo{Name: "Test GPU", Driver: "999.1"}, LoadStart: "0.1 0.2 0.3"}
	return NewReport(env, cfg, vs, results)
}

func TestMarkdownIsShapedLikeTable1(t *testing.T) {
	var b bytes.Buffer
	if err := testReport().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| commit | abc1234 |",
		"| GPU | Test GPU, driver 999.1 |",
		"| CPU | Test CPU, 2 cores (CPU engine: 2 workers) |",
		"## AIDW, k = 15",
		"| Version | Variant | Layout | Precision | 10K | 50K |\n|---|---|---|---|--:|--:|\n",
		"| CPU serial, 1 core, brute-force kNN, math.Pow (papers' baseline) | `aidw/cpu-serial` | - | f64 | " +
			"6791 (1.0x, 2e-14) | not run [1] |\n",
		"| GPU tiled (brute-force kNN) | `aidw/gpu-tiled/SoA/f32` | SoA | f32 | **12.5 (543x, 3e-02) WRONG** [2] | " +
			"714 (300x*, 2e-14) |\n",
		"[1] estimated 25 min > 10 min",
		"[2] max relative error 3.0e-02 exceeds the tolerance 1e-04",
		"| `aidw/cpu-serial` | kNN (brute force) | 91.5 | |",
		"| GPU tiled | SoA | 61.3 | 714 | 2242 | 43843 | 168189 |", // the published table
		"no longer exists in CUDA 12",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Standard IDW") {
		t.Error("Markdown has a table for a family without results")
	}
}

func TestJSONRoundTrips(t *testing.T) {
	rep := testReport()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Results, rep.Results) || !reflect.DeepEqual(back.Env, rep.Env) {
		t.Errorf("round trip changed the report:\n%+v\n%+v", back.Results, rep.Results)
	}
	var raw map[string]any
	json.Unmarshal(b.Bytes(), &raw)
	for _, key := range []string{"env", "groups", "sizes", "seed", "max_run_minutes", "check_nodes", "notes",
		"variants", "results"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
	first := raw["results"].([]any)[0].(map[string]any)
	for _, key := range []string{"variant", "family", "device", "samples", "nodes", "status", "ms", "reps",
		"max_rel_err", "checked_nodes", "stages"} {
		if _, ok := first[key]; !ok {
			t.Errorf("a result lacks %q: %v", key, first)
		}
	}
	if back.MaxRunMin != 10 || back.Sizes[0] != 10*K {
		t.Errorf("max run %g min, sizes %v", back.MaxRunMin, back.Sizes)
	}
}

func TestMinutes(t *testing.T) {
	if s := minutes(18 * time.Hour); s != "1080 min (18.0 h)" {
		t.Errorf("minutes(18h) = %q", s)
	}
}
