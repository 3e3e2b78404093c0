package paperbench

import (
	"context"
	"strings"
	"testing"
)

func TestRegistryCatalogue(t *testing.T) {
	r := NewRegistry()
	vs := r.Variants()
	for _, name := range []string{
		"idw2/cpu-serial", "idw3/cpu-engine", "aidw/cpu-serial", "aidw/cpu-engine", "idw2/gdal-invdist",
		"idwnn/gdal-invdistnn", "idw2/gpu-naive/SoA/f32", "idw3/gpu-tiled/AoaS/f64", "idw2/gpu-cdp/AoS/f32",
		"aidw/gpu-naive/AoaS/f32", "aidw/gpu-grid-tiled/SoA/f32", "aidw/gpu-engine/f64", "bbox/gpu-two-pass/f64",
		"bbox/gpu-atomic/f64", "bbox/gpu-retirement/f64",
	} {
		if r.find(name) < 0 {
			t.Errorf("no variant %s", name)
		}
	}
	baselines := map[Family]int{}
	for _, v := range vs {
		if v.Baseline {
			baselines[v.Family]++
		}
		if v.Device == GPU && (v.Run != nil || v.NotRun != NoGPUEngine) {
			t.Errorf("%s: the CPU build runs a GPU variant or gives another reason (%q)", v.Name, v.NotRun)
		}
		if v.Device == CPU && v.Run == nil && !strings.Contains(v.NotRun, "gdal_grid") {
			t.Errorf("%s: CPU variant not run: %s", v.Name, v.NotRun)
		}
	}
	for _, f := range []Family{IDW2, IDW3, AIDW, BBox} {
		if baselines[f] != 1 {
			t.Errorf("family %s has %d baselines, want 1", f, baselines[f])
		}
	}
}

func TestRegistryImplementAndAdd(t *testing.T) {
	r := NewRegistry()
	run := func(context.Context, *Input) (*Output, error) { return &Output{}, nil }
	if err := r.Implement("aidw/gpu-tiled/SoA/f32", run); err != nil {
		t.Fatal(err)
	}
	if err := r.Implement("aidw/gpu-tiled/soa/f32", run); err == nil {
		t.Error("implementing a misspelt name: no error")
	}
	if err := r.Implement("aidw/gpu-naive/SoA/f32", nil); err == nil {
		t.Error("nil run function: no error")
	}
	r.SetGPUNotRun("no CUDA device")
	for _, v := range r.Variants() {
		switch {
		case v.Name == "aidw/gpu-tiled/SoA/f32" && (v.Run == nil || v.NotRun != ""):
			t.Errorf("implemented variant: run %v, not run %q", v.Run != nil, v.NotRun)
		case v.Name != "aidw/gpu-tiled/SoA/f32" && v.Device == GPU && v.NotRun != "no CUDA device":
			t.Errorf("%s: reason %q after SetGPUNotRun", v.Name, v.NotRun)
		}
	}
	if err := r.SetNotRun("idw2/gpu-cdp/SoA/f64", "needs 48 KiB of shared memory"); err != nil {
		t.Fatal(err)
	}
	extra := Variant{Name: "aidw/gpu-tiled-exp2/SoA/f32", Family: AIDW, Device: GPU, Method: "gpu-tiled-exp2",
		Label: "GPU tiled, exp2/log2", Layout: SoA, Precision: F32, Run: run}
	if err := r.Add(extra); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Variant{
		extra, // twice
		{Name: "x/y", Family: "kriging", Device: GPU, Run: run},
		{Name: "aidw/z", Family: AIDW, Device: "tpu", Run: run},
		{Name: "aidw/w", Family: AIDW, Device: GPU},
		{Family: AIDW, Device: GPU, Run: run},
	} {
		if err := r.Add(bad); err == nil {
			t.Errorf("Add(%+v): no error", bad.Name)
		}
	}
}

func TestRegistrySelect(t *testing.T) {
	r := NewRegistry()
	names := func(f Filter) []string {
		t.Helper()
		vs, err := r.Select(f)
		if err != nil {
			t.Fatalf("Select(%+v): %v", f, err)
		}
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return out
	}
	for _, n := range names(Filter{Device: "gpu"}) {
		if !strings.Contains(n, "/gpu-") {
			t.Errorf("device gpu chose %s", n)
		}
	}
	got := names(Filter{Patterns: []string{"*/cpu-serial"}})
	if strings.Join(got, " ") != "idw2/cpu-serial idw3/cpu-serial aidw/cpu-serial bbox/cpu-serial" {
		t.Errorf("*/cpu-serial chose %v", got)
	}
	for _, n := range names(Filter{Device: "cpu", Patterns: []string{"aidw/*", "GDAL"}}) {
		if !strings.HasPrefix(n, "aidw/cpu-") && !strings.Contains(n, "gdal") {
			t.Errorf("aidw/* or gdal on the CPU chose %s", n)
		}
	}
	if got := names(Filter{Patterns: []string{"aidw/gpu-*/AoaS/*"}}); len(got) != 4 {
		t.Errorf("aidw/gpu-*/AoaS/* chose %v, want naive and tiled in f32 and f64", got)
	}
	for _, bad := range []Filter{{Device: "tpu"}, {Patterns: []string{"kriging"}}, {Patterns: []string{" "}},
		{Device: "gpu", Patterns: []string{"cpu-serial"}}} {
		if _, err := r.Select(bad); err == nil {
			t.Errorf("Select(%+v): no error", bad)
		}
	}
}
