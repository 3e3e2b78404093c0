package interp

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// takerCPU stands in for a GPU engine that takes samples as they are read: its sink keeps
// them, and it prepares a problem they hold on the CPU engine, moved to the problem's origin.
type takerCPU struct {
	CPU
	hold int
}

func (e *takerCPU) WhyNotHold(_ Algorithm, n int) string {
	if n > e.hold {
		return "too many"
	}
	return ""
}

func (e *takerCPU) Take(_ Algorithm, proto *sample.Samples, n int) (sample.Sink, error) {
	form := *proto
	return &keptSink{form: form, kept: form}, nil
}

func (e *takerCPU) Prepare(ctx context.Context, p *Problem) (Prepared, error) {
	if p.Held == nil {
		return e.CPU.Prepare(ctx, p)
	}
	s := p.Held.(*keptSink).kept
	s.MoveOrigin(p.Samples.OriginX, p.Samples.OriginY)
	if err := sample.Canonicalize(ctx, &s); err != nil { // the CPU engine breaks ties by place
		return nil, err
	}
	own := *p
	own.Samples, own.Held = &s, nil
	return e.CPU.Prepare(ctx, &own)
}

// keptSink keeps what it is handed, in windows of 7 samples.
type keptSink struct{ form, kept sample.Samples }

func (k *keptSink) Next(full *sample.Samples) (*sample.Samples, error) {
	if full != nil {
		k.kept.QX, k.kept.QY, k.kept.Z = append(k.kept.QX, full.QX...), append(k.kept.QY, full.QY...), append(k.kept.Z, full.Z...)
	}
	w := k.form
	w.QX, w.QY, w.Z = make([]int32, 0, 7), make([]int32, 0, 7), make([]float64, 0, 7)
	return &w, nil
}

func (k *keptSink) Len() int     { return k.kept.Len() }
func (k *keptSink) Close() error { return nil }

// A problem whose samples an engine took (Problem.Held) is gridded as the same samples in
// memory are; Take offers a sink only to an engine that takes compact samples it can hold,
// whose coordinates need no check one by one.
func TestHeldProblemGridsAsInMemory(t *testing.T) {
	target := raster.NorthUp(1000, 2000, 1100, 2080, 25, 20)
	read := &sample.Samples{OriginX: 1040, OriginY: 2050, QuantumX: 0.25, QuantumY: 0.25}
	for i := range 500 {
		read.QX = append(read.QX, int32((i*37)%400-160))
		read.QY = append(read.QY, int32((i*53)%320-200))
		read.Z = append(read.Z, float64(i%11))
	}
	alg, _, err := ParseAlgorithm("aidw:max_points=6")
	if err != nil {
		t.Fatal(err)
	}
	eng := &takerCPU{hold: read.Len()}
	proto := &sample.Samples{OriginX: read.OriginX, OriginY: read.OriginY, QuantumX: read.QuantumX, QuantumY: read.QuantumY}
	sink, err := Take(eng, alg, proto, read.Len())
	if err != nil || sink == nil {
		t.Fatalf("no sink: %v", err)
	}
	w, _ := sink.Next(nil)
	for i := range read.Len() {
		w.QX, w.QY, w.Z = append(w.QX, read.QX[i]), append(w.QY, read.QY[i]), append(w.Z, read.Z[i])
		if w.Len() == cap(w.QX) || i == read.Len()-1 {
			w, _ = sink.Next(w)
		}
	}
	proto.MoveOrigin(target.Centre())
	held := &Problem{Samples: proto, Held: sink, Target: target, Alg: alg}
	if held.Len() != read.Len() {
		t.Fatalf("the problem has %d samples, the sink took %d", held.Len(), read.Len())
	}
	values := func(p *Problem) []float64 {
		var out []float64
		err := GridBands(context.Background(), eng, p, func(_, _ int, bands [][]float64) error {
			out = append(out, bands[0]...)
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	inMemory := &sample.Samples{OriginX: read.OriginX, OriginY: read.OriginY, QuantumX: read.QuantumX, QuantumY: read.QuantumY,
		QX: slices.Clone(read.QX), QY: slices.Clone(read.QY), Z: read.Z}
	inMemory.MoveOrigin(target.Centre())
	if err := sample.Canonicalize(context.Background(), inMemory); err != nil {
		t.Fatal(err)
	}
	got, want := values(held), values(&Problem{Samples: inMemory, Target: target, Alg: alg})
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("node %d: %v held, %v in memory", i, got[i], want[i])
		}
	}

	plain := &sample.Samples{OriginX: 1040, OriginY: 2050}
	coarse := &sample.Samples{QuantumX: 1e200, QuantumY: 1}
	for _, c := range []struct {
		what  string
		eng   Engine
		proto *sample.Samples
		n     int
	}{
		{"the CPU engine", &CPU{}, proto, 10},
		{"more than it holds", eng, proto, read.Len() + 1},
		{"plain samples", eng, plain, 10},
		{"quanta beyond maxOffset", eng, coarse, 10},
		{"a group whose engines take alone", &Multi{Engines: []Engine{eng, eng}}, proto, 10},
	} {
		if sink, err := Take(c.eng, alg, c.proto, c.n); sink != nil || err != nil {
			t.Errorf("%s: a sink (%v)", c.what, err)
		}
	}
}
