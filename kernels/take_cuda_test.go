//go:build cuda

package kernels

import (
	"math"
	"slices"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/sample"
)

// stream hands s's samples to sink window by window, as lidar.Stream does.
func stream(t *testing.T, sink sample.Sink, s *sample.Samples) {
	t.Helper()
	w, err := sink.Next(nil)
	for i := 0; err == nil && i < s.Len(); {
		k := min(cap(w.QX)-w.Len(), s.Len()-i)
		w.QX, w.QY, w.Z = append(w.QX, s.QX[i:i+k]...), append(w.QY, s.QY[i:i+k]...), append(w.Z, s.Z[i:i+k]...)
		if i += k; w.Len() == cap(w.QX) || i == s.Len() {
			w, err = sink.Next(w)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestTakenEqualsPrepared: samples that GPUs take window by window, in input order and relative
// to the origin they were read at, give the nodes that the same samples moved to the target's
// centre and prepared from the host give, bit for bit: on one GPU and on groups that take
// them together. Algorithms whose form needs the canonical order are not taken.
func TestTakenEqualsPrepared(t *testing.T) {
	read, target := latticeSet(81)
	for range 6 { // many windows of the test's size, the last part full
		read.QX, read.QY, read.Z = append(read.QX, read.QX...), append(read.QY, read.QY...), append(read.Z, read.Z...)
	}
	for i := range read.Z {
		read.Z[i] += float64(i % 7)
	}
	read.OriginX += 12.5 // read where the headers' centre is, not the target's
	read.QX = slicesAdd(read.QX, -25)
	moved := &sample.Samples{OriginX: read.OriginX, OriginY: read.OriginY, QuantumX: read.QuantumX, QuantumY: read.QuantumY,
		QX: slices.Clone(read.QX), QY: slices.Clone(read.QY), Z: read.Z}
	cx, cy := target.Centre()
	moved.MoveOrigin(cx, cy)
	moved.InputOrder = true
	gpus, engines := testGroup(t, 3)
	for _, e := range gpus {
		e.takeWindow = 1000
	}
	for _, spec := range []string{"aidw:max_points=12", "aidw:max_points=5:radius=3"} {
		alg := mustParse(t, spec)
		want := gridValues(t, engines[0], &interp.Problem{Samples: moved, Target: target, Alg: alg})
		for n := 1; n <= len(engines); n++ {
			var eng interp.Engine = engines[0]
			if n > 1 {
				eng = &interp.Multi{Engines: engines[:n]}
			}
			proto := &sample.Samples{OriginX: read.OriginX, OriginY: read.OriginY, QuantumX: read.QuantumX, QuantumY: read.QuantumY}
			sink, err := interp.Take(eng, alg, proto, read.Len())
			if err != nil || sink == nil {
				t.Fatalf("%s on %d GPUs: no sink (%v)", spec, n, err)
			}
			stream(t, sink, read)
			if sink.Len() != read.Len() {
				t.Fatalf("%s on %d GPUs: %d samples taken of %d", spec, n, sink.Len(), read.Len())
			}
			proto.InputOrder = true
			proto.MoveOrigin(cx, cy)
			got := gridValues(t, eng, &interp.Problem{Samples: proto, Held: sink, Target: target, Alg: alg})
			if err := sink.Close(); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s on %d GPUs: node %d is %v taken, %v prepared", spec, n, i, got[i], want[i])
				}
			}
		}
	}
	proto := &sample.Samples{OriginX: read.OriginX, OriginY: read.OriginY, QuantumX: read.QuantumX, QuantumY: read.QuantumY}
	if sink, err := interp.Take(engines[0], mustParse(t, "invdist:power=2"), proto, read.Len()); sink != nil || err != nil {
		t.Fatalf("the global form, which needs the canonical order, was taken: %v", err)
	}
}

func slicesAdd(q []int32, d int32) []int32 {
	for i := range q {
		q[i] += d
	}
	return q
}
