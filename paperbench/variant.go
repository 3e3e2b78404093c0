package paperbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Family is what a variant computes; variants of one family are compared with one another
// and checked against the same CPU float64 reference.
type Family string

const (
	IDW2  Family = "idw2"  // standard IDW over all samples, power 2 (Mei 2014)
	IDW3  Family = "idw3"  // standard IDW over all samples, power 3.0 (Mei 2014)
	AIDW  Family = "aidw"  // global AIDW, k = 15 and the default alphas (Mei, Xu & Xu 2015, 2016)
	IDWNN Family = "idwnn" // IDW over the 12 nearest samples within a radius: gdal_grid invdistnn
	BBox  Family = "bbox"  // bounding box of the samples by parallel reduction (reduction article)
)

// Families are every family, in the order the report shows them.
var Families = []Family{IDW2, IDW3, AIDW, IDWNN, BBox}

// Title names the family in reports.
func (f Family) Title() string {
	switch f {
	case IDW2:
		return "Standard IDW, power 2, all samples (Mei 2014)"
	case IDW3:
		return "Standard IDW, power 3.0, all samples (Mei 2014)"
	case AIDW:
		return "AIDW, k = 15, all samples (Mei, Xu & Xu 2015 and 2016)"
	case IDWNN:
		return "IDW over the 12 nearest samples within a radius (gdal_grid invdistnn)"
	case BBox:
		return "Bounding box of the samples (the reduction article)"
	}
	return string(f)
}

// Groups are the series the family is run on: all three for the IDW paper's families, the
// equal series for the others (as in their papers).
func (f Family) Groups() []Group {
	if f == IDW2 || f == IDW3 {
		return Groups
	}
	return []Group{Equal}
}

// work is what a run's time grows with: sample-node pairs for the all-samples methods,
// samples for the bounding box, samples plus nodes for the neighbourhood method.
func (f Family) work(c Case) float64 {
	switch f {
	case BBox:
		return float64(c.Samples)
	case IDWNN:
		return float64(c.Samples + c.Nodes)
	}
	return c.Pairs()
}

// pairwise says whether the family's work is sample-node pairs.
func (f Family) pairwise() bool { return f != BBox && f != IDWNN }

// Algorithm is the family's algorithm for a case with n samples, in aidw's terms: what the CPU
// float64 reference computes. The bounding box has none.
func (f Family) Algorithm(n int) interp.Algorithm {
	switch f {
	case IDW2:
		return &interp.InvDist{Power: 2, FarField: true}
	case IDW3:
		return &interp.InvDist{Power: 3, FarField: true}
	case AIDW:
		a := interp.DefaultAIDW()
		a.Area = Side * Side // the papers pass the square's area
		return &a
	case IDWNN:
		return &interp.InvDistNN{Power: 2, MaxPoints: 12, Radius: nnRadius(n)}
	}
	return nil
}

// nnRadius is the search radius of the neighbourhood family: about 48 samples, four times
// max_points, fall within it on average, so that nearly every node finds its 12.
func nnRadius(n int) float64 { return math.Sqrt(48 * Side * Side / (math.Pi * float64(n))) }

// Device is where a variant runs.
type Device string

const (
	CPU Device = "cpu"
	GPU Device = "gpu"
)

// Layout is how a GPU variant stores points (Mei & Tian 2016): "" where it does not apply.
type Layout string

const (
	SoA  Layout = "SoA"  // structure of arrays
	AoS  Layout = "AoS"  // array of structures {x, y, z}
	AoaS Layout = "AoaS" // array of 16-byte aligned structures (float4 / double4-like)
)

// Precision is the arithmetic of a variant's inner loop.
type Precision string

const (
	F32 Precision = "f32"
	F64 Precision = "f64"
)

// defaultTolerance is the largest relative error against the CPU float64 engine accepted of a
// precision when the variant sets none.
func (p Precision) defaultTolerance() float64 {
	if p == F32 {
		return 1e-4
	}
	return 1e-9
}

// Input is what a variant runs on: one case's data and the family's algorithm.
type Input struct {
	*Data
	Family Family
	// Alg is the family's algorithm for this case (nil for BBox): *interp.InvDist,
	// *interp.AIDW (Area is the square's) or *interp.InvDistNN.
	Alg interp.Algorithm
	// Local are the samples relative to the square's centre (a local origin), as the engines
	// take them.
	Local *sample.Samples
}

// NewInput prepares a family's input from a case's data.
func NewInput(d *Data, f Family) *Input {
	s := &sample.Samples{X: slices.Clone(d.X), Y: slices.Clone(d.Y), Z: d.Z}
	s.MoveOrigin(Side/2, Side/2)
	return &Input{Data: d, Family: f, Alg: f.Algorithm(d.Samples), Local: s}
}

// Problem is the input as an engine problem; its target is the square, one node, which only
// gives AIDW's fallback study area: nodes are computed by interp.EvaluateAt.
func (in *Input) Problem() *interp.Problem {
	return &interp.Problem{Samples: in.Local, Target: raster.NorthUp(0, 0, Side, Side, 1, 1), Alg: in.Alg}
}

// Output is a run's result.
type Output struct {
	// Values holds one value per node of the input, in order (BBox: minX, minY, maxX, maxY).
	Values []float64
	// NodeX and NodeY, when set, are the nodes that Values belong to instead of the input's:
	// gdal_grid computes at the nodes of a raster.
	NodeX, NodeY []float64
	// Elapsed is the time reported, as the variant measures it (see Timing).
	Elapsed time.Duration
	// Stages break Elapsed down (transfers, grid build, kNN, weighting), where the variant can.
	Stages []Stage
	// Timing says what Elapsed covers when it is not the plain wall time of the computation,
	// e.g. "CUDA events, host-device transfers included".
	Timing string
}

// Stage is one part of a run.
type Stage struct {
	Name    string
	Elapsed time.Duration
}

// RunFunc computes one variant on an input. It returns an error made by CannotRun when the
// variant cannot run on this input or machine (too large for the device, say): a reason, not
// a failure.
type RunFunc func(ctx context.Context, in *Input) (*Output, error)

// cannotRun is an error that explains why a variant was not run.
type cannotRun struct{ reason string }

func (e *cannotRun) Error() string { return e.reason }

// CannotRun returns the error a RunFunc gives when the variant cannot run here; the report
// shows "not run: reason".
func CannotRun(reason string) error { return &cannotRun{reason} }

func asCannotRun(err error) (string, bool) {
	var c *cannotRun
	if errors.As(err, &c) {
		return c.reason, true
	}
	return "", false
}

// Variant is one implementation to time.
type Variant struct {
	// Name is unique and stable (filters and JSON use it): family/method[/layout][/precision],
	// e.g. "aidw/gpu-tiled/SoA/f32"; see VariantName.
	Name      string
	Family    Family
	Device    Device
	Method    string // the method's id, e.g. "gpu-tiled"
	Label     string // the row's name in tables, e.g. "GPU tiled"
	Layout    Layout
	Precision Precision
	// Baseline marks the papers' CPU serial baseline: speedups are over it.
	Baseline bool
	// NearLinear marks a variant whose time grows about as samples + nodes (a far-field
	// sum), not as their product: the harness does not estimate it from pairs.
	NearLinear bool
	// Tolerance is the largest relative error against the CPU float64 engine accepted; 0 takes
	// 1e-4 for f32 and 1e-9 for f64.
	Tolerance float64
	// Run computes the variant; nil when it cannot run in this build (NotRun says why).
	Run    RunFunc
	NotRun string
}

// VariantName is the name a variant is registered under.
func VariantName(f Family, method string, l Layout, p Precision) string {
	parts := []string{string(f), method}
	if l != "" {
		parts = append(parts, string(l))
	}
	if p != "" {
		parts = append(parts, string(p))
	}
	return strings.Join(parts, "/")
}

func (v *Variant) tolerance() float64 {
	if v.Tolerance > 0 {
		return v.Tolerance
	}
	return v.Precision.defaultTolerance()
}

// NoGPUEngine is why the GPU variants do not run in the CPU build.
const NoGPUEngine = "this build has no GPU engine (build with -tags cuda)"

// CDPNote is said in every report: the 2014 and 2016 papers' CUDA Dynamic Parallelism versions
// cannot be rebuilt as they were.
const CDPNote = "True CUDA dynamic parallelism with device-side synchronisation (cudaDeviceSynchronize " +
	"in a parent kernel, which the papers' CDP versions wait on their child grids with) no longer exists in " +
	"CUDA 12 and later. The \"improved CDP\" rows are therefore the improved CDP version's work as one " +
	"ordinary kernel: one 1024-thread block per node, each thread summing a strided share of the samples, " +
	"then a block reduction, with no atomics and no child launch."

// GPUInfo describes the GPU of a run, set by the cuda build.
type GPUInfo struct {
	Name   string `json:"name"`
	Driver string `json:"driver"`
	Memory string `json:"memory,omitempty"`
}

// Registry holds the variants a run chooses from: the CPU variants and peers, and a catalogue
// of the GPU variants the papers call for, which the cuda build implements (see Implement).
// It is built once, then read.
type Registry struct {
	variants []Variant
	// GPU is the device the GPU variants run on; the cuda build sets it.
	GPU GPUInfo
}

// NewRegistry returns the CPU variants, the gdal_grid peers and the GPU catalogue, every GPU
// variant not run with NoGPUEngine as the reason until a cuda build implements it.
func NewRegistry() *Registry {
	r := &Registry{}
	for _, vs := range [][]Variant{cpuVariants(), gdalVariants(), gpuCatalog()} {
		for _, v := range vs {
			if err := r.Add(v); err != nil {
				panic(err) // the built-in lists are fixed: a duplicate is a programming error
			}
		}
	}
	return r
}

// Add registers a variant not in the catalogue (a GPU helper's extra kernel, say).
func (r *Registry) Add(v Variant) error {
	switch {
	case v.Name == "":
		return errors.New("variant has no name")
	case r.find(v.Name) >= 0:
		return fmt.Errorf("variant %s is registered twice", v.Name)
	case !slices.Contains(Families, v.Family):
		return fmt.Errorf("variant %s: unknown family %q", v.Name, v.Family)
	case v.Device != CPU && v.Device != GPU:
		return fmt.Errorf("variant %s: device %q is neither cpu nor gpu", v.Name, v.Device)
	case v.Run == nil && v.NotRun == "":
		return fmt.Errorf("variant %s has neither a run function nor a reason it cannot run", v.Name)
	}
	r.variants = append(r.variants, v)
	return nil
}

// Implement gives a catalogued variant its run function; an unknown name is an error, so a
// typo cannot leave a variant silently unimplemented.
func (r *Registry) Implement(name string, run RunFunc) error {
	i := r.find(name)
	if i < 0 {
		return fmt.Errorf("no variant %s to implement (see aidw bench -list)", name)
	}
	if run == nil {
		return fmt.Errorf("variant %s: nil run function", name)
	}
	r.variants[i].Run, r.variants[i].NotRun = run, ""
	return nil
}

// SetNotRun records why a variant cannot run in this build.
func (r *Registry) SetNotRun(name, reason string) error {
	i := r.find(name)
	if i < 0 {
		return fmt.Errorf("no variant %s", name)
	}
	r.variants[i].Run, r.variants[i].NotRun = nil, reason
	return nil
}

// SetGPUNotRun gives every GPU variant still without a run function the reason (no device
// answered, say, or "not implemented yet").
func (r *Registry) SetGPUNotRun(reason string) {
	for i := range r.variants {
		if v := &r.variants[i]; v.Device == GPU && v.Run == nil {
			v.NotRun = reason
		}
	}
}

func (r *Registry) find(name string) int {
	return slices.IndexFunc(r.variants, func(v Variant) bool { return v.Name == name })
}

// Variants returns every variant in registration order.
func (r *Registry) Variants() []Variant { return slices.Clone(r.variants) }

// Filter chooses variants: by device ("" or "all" for both) and by name patterns, each a
// substring of the name or, with '*', a glob over the whole name ("aidw/*", "*/cpu-*").
type Filter struct {
	Device   string
	Patterns []string
}

// Select returns the variants the filter chooses; a pattern that chooses none is an error.
func (r *Registry) Select(f Filter) ([]Variant, error) {
	if f.Device != "" && f.Device != "all" && f.Device != string(CPU) && f.Device != string(GPU) {
		return nil, fmt.Errorf("device %q: want cpu, gpu or all", f.Device)
	}
	matchers := make([]func(string) bool, len(f.Patterns))
	for i, p := range f.Patterns {
		m, err := namePattern(p)
		if err != nil {
			return nil, err
		}
		matchers[i] = m
	}
	var out []Variant
	used := make([]bool, len(matchers))
	for _, v := range r.variants {
		if f.Device != "" && f.Device != "all" && string(v.Device) != f.Device {
			continue
		}
		ok := len(matchers) == 0
		for i, m := range matchers {
			if m(v.Name) {
				ok, used[i] = true, true
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("no variant matches %q (see aidw bench -list)", f.Patterns[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no variant on device %s", f.Device)
	}
	return out, nil
}

func namePattern(p string) (func(string) bool, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return nil, errors.New("empty variant pattern")
	}
	lp := strings.ToLower(p)
	if !strings.Contains(p, "*") {
		return func(name string) bool { return strings.Contains(strings.ToLower(name), lp) }, nil
	}
	parts := strings.Split(lp, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	return func(name string) bool { return re.MatchString(strings.ToLower(name)) }, nil
}
