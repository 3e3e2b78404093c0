package interp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aidw/aidw/raster"
)

// fakeDevice stands in for a GPU in the tests of Multi: it computes on the CPU engine, takes
// a random while over each part (so devices finish in any order), and can fail on its n-th
// part.
type fakeDevice struct {
	name   string
	cpu    *CPU
	failAt int64 // fail the failAt-th Compute, 0 never
	seed   uint64
	calls  atomic.Int64
}

func (f *fakeDevice) Name() string              { return f.name }
func (f *fakeDevice) Supports(a Algorithm) bool { return f.cpu.Supports(a) }
func (f *fakeDevice) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	pp, err := f.cpu.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	return &fakePrepared{f, pp, rand.New(rand.NewPCG(f.seed, 1))}, nil
}

type fakePrepared struct {
	f   *fakeDevice
	cpu Prepared
	rng *rand.Rand
}

func (p *fakePrepared) Compute(ctx context.Context, b *Block) error {
	n := p.f.calls.Add(1)
	if n == p.f.failAt {
		return errors.New("out of device memory")
	}
	time.Sleep(time.Duration(p.rng.IntN(300)) * time.Microsecond)
	return p.cpu.Compute(ctx, b)
}

func (p *fakePrepared) ComputeAt(ctx context.Context, xs, ys, values []float64) error {
	return p.cpu.(PointComputer).ComputeAt(ctx, xs, ys, values)
}

func (p *fakePrepared) Close() error { return p.cpu.Close() }

func fakeDevices(n int, seed uint64) []Engine {
	var out []Engine
	for i := range n {
		out = append(out, &fakeDevice{name: fmt.Sprintf("fake:%d", i), cpu: &CPU{Threads: 1 + i%2}, seed: seed + uint64(i)})
	}
	return out
}

func gridWith(t *testing.T, eng Engine, p *Problem) [][]float64 {
	t.Helper()
	var out [][]float64
	sink := func(row0, rows int, bands [][]float64) error {
		if out == nil {
			out = make([][]float64, len(bands))
		}
		for k, b := range bands {
			out[k] = append(out[k], b...)
		}
		return nil
	}
	if err := GridBands(context.Background(), eng, p, sink, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// One problem spread over 1 to 8 devices gives the raster of one device, bit for bit, for
// every registered algorithm, whatever the part size and the order the devices finish in.
func TestMultiEqualsOneDevice(t *testing.T) {
	s := compactSamples(400)
	tg := raster.NorthUp(499950, 3999970, 500150, 4000090, 23, 17)
	algs := append(Names(), "aidw:max_points=8", "aidw:diagnostics=yes", "invdist:power=3")
	for _, spec := range algs {
		alg, _, err := ParseAlgorithm(spec)
		if err != nil {
			t.Fatal(err)
		}
		p := &Problem{Samples: s, Target: tg, Alg: alg}
		want := gridWith(t, &CPU{Threads: 1}, p)
		for n := 1; n <= 8; n++ {
			m := &Multi{Engines: fakeDevices(n, uint64(n)), PartRows: 1 + n%3}
			got := gridWith(t, m, p)
			for k := range want {
				for i := range want[k] {
					if math.Float64bits(got[k][i]) != math.Float64bits(want[k][i]) {
						t.Fatalf("%s on %d devices: band %d node %d is %v, one device gives %v", spec, n, k, i, got[k][i], want[k][i])
					}
				}
			}
		}
	}
}

// Scattered nodes (the papers' cases, cross-checks) split over devices too.
func TestMultiComputeAt(t *testing.T) {
	s := compactSamples(300)
	tg := raster.NorthUp(499950, 3999970, 500150, 4000090, 10, 10)
	alg, _, _ := ParseAlgorithm("aidw")
	rng := rand.New(rand.NewPCG(3, 4))
	xs, ys := make([]float64, 200_000), make([]float64, 200_000)
	for i := range xs {
		xs[i], ys[i] = 499950+200*rng.Float64(), 3999970+120*rng.Float64()
	}
	p := &Problem{Samples: s, Target: tg, Alg: alg}
	want, err := EvaluateAt(context.Background(), &CPU{}, p, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EvaluateAt(context.Background(), &Multi{Engines: fakeDevices(3, 9)}, p, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("node %d: %v on 3 devices, %v on one", i, got[i], want[i])
		}
	}
}

// A device that fails stops the run, and the error names it.
func TestMultiDeviceFailure(t *testing.T) {
	s := compactSamples(200)
	tg := raster.NorthUp(499950, 3999970, 500150, 4000090, 40, 40)
	alg, _, _ := ParseAlgorithm("aidw:max_points=6")
	devs := fakeDevices(4, 5)
	devs[2].(*fakeDevice).failAt = 3
	prep, err := (&Multi{Engines: devs, PartRows: 1}).Prepare(context.Background(), &Problem{Samples: s, Target: tg, Alg: alg})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	for _, c := range prep.(*multiPrepared).ready {
		<-c // every device takes parts
	}
	err = prep.Compute(context.Background(), &Block{Rows: tg.Rows, Values: make([]float64, tg.Rows*tg.Cols)})
	if err == nil || !strings.Contains(err.Error(), "fake:2: out of device memory") {
		t.Fatalf("error %v, want one naming fake:2", err)
	}
}

// groupDevice is a fakeDevice that prepares a problem together with the others of its group
// (together): each engine of the group prepares once through the group's function, never
// alone; declineWith makes the group refuse, each engine then preparing alone.
type groupDevice struct {
	*fakeDevice
	alone, grouped *atomic.Int64
	decline        bool
}

func (g groupDevice) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	g.alone.Add(1)
	return g.fakeDevice.Prepare(ctx, p)
}

func (g groupDevice) Together(group []Engine, p *Problem) func(context.Context, int) (Prepared, error) {
	if g.decline {
		return nil
	}
	return func(ctx context.Context, i int) (Prepared, error) {
		g.grouped.Add(1)
		return group[i].(groupDevice).fakeDevice.Prepare(ctx, p)
	}
}

// Engines that prepare together prepare through their group, each once, and give one
// device's raster; a group that declines prepares each engine alone.
func TestMultiPreparesTogether(t *testing.T) {
	p, want := smallProblem(t)
	for _, decline := range []bool{false, true} {
		var alone, grouped atomic.Int64
		var engines []Engine
		for _, d := range fakeDevices(3, 7) {
			engines = append(engines, groupDevice{d.(*fakeDevice), &alone, &grouped, decline})
		}
		got := gridWith(t, &Multi{Engines: engines}, p)
		for i := range want {
			if math.Float64bits(got[0][i]) != math.Float64bits(want[i]) {
				t.Fatalf("declined %v: node %d is %v, one device gives %v", decline, i, got[0][i], want[i])
			}
		}
		wantAlone, wantGrouped := int64(0), int64(3)
		if decline {
			wantAlone, wantGrouped = 3, 0
		}
		if alone.Load() != wantAlone || grouped.Load() != wantGrouped {
			t.Errorf("declined %v: %d engines prepared alone and %d together, want %d and %d", decline, alone.Load(), grouped.Load(), wantAlone, wantGrouped)
		}
	}
}

// lateDevice is a fakeDevice whose Prepare waits until the test lets it go, then fails with
// fail when it is set.
type lateDevice struct {
	*fakeDevice
	go_  chan struct{}
	fail error
}

func (d *lateDevice) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	<-d.go_
	if d.fail != nil {
		return nil, d.fail
	}
	return d.fakeDevice.Prepare(ctx, p)
}

// A problem is ready once its first engine is: an engine still preparing joins the blocks
// after it is ready, the nodes the same bit for bit, and one that fails then stops the run at
// the next block, named; Close waits for every preparation.
func TestMultiLateEngineJoins(t *testing.T) {
	p, want := smallProblem(t)
	tg := p.Target
	block := func(prep Prepared) ([]float64, error) {
		b := &Block{Rows: tg.Rows, Values: make([]float64, tg.Rows*tg.Cols)}
		return b.Values, prep.Compute(context.Background(), b)
	}
	for _, fail := range []error{nil, errors.New("no device memory")} {
		devs := fakeDevices(2, 11)
		late := &lateDevice{devs[1].(*fakeDevice), make(chan struct{}), fail}
		m := &Multi{Engines: []Engine{devs[0], late}, PartRows: 1}
		prep, err := m.Prepare(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := block(prep); err != nil {
			t.Fatalf("before the late engine is ready: %v", err)
		}
		if late.calls.Load() != 0 {
			t.Fatalf("the late engine computed before it was prepared")
		}
		close(late.go_)
		<-prep.(*multiPrepared).ready[1]
		got, err := block(prep)
		if fail != nil {
			if err == nil || !strings.Contains(err.Error(), "fake:1: no device memory") {
				t.Errorf("a late engine that fails: %v, want its error named", err)
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			if late.calls.Load() == 0 {
				t.Errorf("the late engine, ready, computed no part")
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("node %d is %v with a late engine, one device gives %v", i, got[i], want[i])
				}
			}
		}
		if err := prep.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// every engine failing: no problem, every engine named
	devs := fakeDevices(2, 12)
	failing := []Engine{
		&lateDevice{devs[0].(*fakeDevice), make(chan struct{}), errors.New("gone")},
		&lateDevice{devs[1].(*fakeDevice), make(chan struct{}), errors.New("gone")},
	}
	for _, e := range failing {
		close(e.(*lateDevice).go_)
	}
	_, err := (&Multi{Engines: failing}).Prepare(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "fake:0: gone") || !strings.Contains(err.Error(), "fake:1: gone") {
		t.Errorf("every engine failing: %v, want both named", err)
	}
}

// hookDevice is a fakeDevice that calls hook(part) before computing its part-th part.
type hookDevice struct {
	*fakeDevice
	hook func(part int64)
}

func (d hookDevice) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	pp, err := d.fakeDevice.Prepare(ctx, p)
	return hookPrepared{pp.(*fakePrepared), d.hook}, err
}

type hookPrepared struct {
	*fakePrepared
	hook func(part int64)
}

func (p hookPrepared) Compute(ctx context.Context, b *Block) error {
	p.hook(p.f.calls.Load() + 1)
	return p.fakePrepared.Compute(ctx, b)
}

// An engine that becomes ready while a block is computed takes parts of that block: the first
// engine lets the late one go at its first part, then waits at its second until the late one
// has computed a part (without the late one joining, the block never ends).
func TestMultiLateEngineJoinsMidBlock(t *testing.T) {
	p, want := smallProblem(t)
	tg := p.Target
	devs := fakeDevices(2, 13)
	release, joined := make(chan struct{}), make(chan struct{})
	late := lateHook{release, hookDevice{devs[1].(*fakeDevice), func(part int64) {
		if part == 1 {
			close(joined)
		}
	}}}
	first := hookDevice{devs[0].(*fakeDevice), func(part int64) {
		switch part {
		case 1:
			close(release)
		case 2:
			<-joined
		}
	}}
	m := &Multi{Engines: []Engine{first, late}, PartRows: 1}
	prep, err := m.Prepare(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	b := &Block{Rows: tg.Rows, Values: make([]float64, tg.Rows*tg.Cols)}
	if err := prep.Compute(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float64bits(b.Values[i]) != math.Float64bits(want[i]) {
			t.Fatalf("node %d is %v with an engine joining mid-block, one device gives %v", i, b.Values[i], want[i])
		}
	}
}

// lateHook is a hookDevice whose Prepare waits until the test lets it go.
type lateHook struct {
	go_ chan struct{}
	hookDevice
}

func (d lateHook) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	<-d.go_
	return d.hookDevice.Prepare(ctx, p)
}

// smallProblem is local AIDW of 300 compact samples onto 19 x 13 nodes, and its values on the
// CPU engine.
func smallProblem(t *testing.T) (*Problem, []float64) {
	tg := raster.NorthUp(499950, 3999970, 500150, 4000090, 19, 13)
	alg, _, _ := ParseAlgorithm("aidw:max_points=8")
	p := &Problem{Samples: compactSamples(300), Target: tg, Alg: alg}
	return p, gridWith(t, &CPU{Threads: 1}, p)[0]
}

// smallDevice is a fakeDevice whose memory holds at most hold samples.
type smallDevice struct {
	fakeDevice
	hold int
}

func (d *smallDevice) WhyNotHold(a Algorithm, n int) string {
	if n > d.hold {
		return fmt.Sprintf("%s holds %d samples", d.name, d.hold)
	}
	return ""
}

// TestMultiHoldsWhatEachHolds: several devices hold a problem only if each holds every sample;
// the CPU engine says nothing.
func TestMultiHoldsWhatEachHolds(t *testing.T) {
	alg := &InvDist{Power: 2}
	cpu := &CPU{}
	m := &Multi{Engines: []Engine{&smallDevice{fakeDevice{name: "a", cpu: cpu}, 100},
		&smallDevice{fakeDevice{name: "b", cpu: cpu}, 50}}}
	for _, c := range []struct {
		e    Engine
		n    int
		want string
	}{{m, 50, ""}, {m, 51, "b holds 50 samples"}, {m, 101, "a holds 100 samples"}, {cpu, 1 << 40, ""}} {
		if got := WhyNotHold(c.e, alg, c.n); got != c.want {
			t.Errorf("%s, %d samples: %q, want %q", c.e.Name(), c.n, got, c.want)
		}
	}
}
