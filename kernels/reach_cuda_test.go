//go:build cuda

package kernels

import (
	"context"
	"math"
	"testing"

	"github.com/aidw/aidw/interp"
)

// The nearest and radius forms tell each node's reach (interp.Block.Reach) as the CPU engine
// does, bit for bit (the distance of the k-th nearest sample, or the radius weighed within),
// over a window of the target's columns with nodes skipped or none, in chunks of a few nodes;
// skipped nodes keep what they held.
func TestEngineTellsReach(t *testing.T) {
	const held = -7.25
	sets := append(testSets(), uniformSet(5, 9, 0, 0, 100, 13, 11))
	specs := []string{"aidw:max_points=15", "aidw:k=7:max_points=40:radius=60:min_points=10:nodata=-9999",
		"aidw:radius=45:min_points=3:nodata=-1", "aidw:k=4:radius=3"}
	for _, d := range sets {
		tg := d.target
		row0, rows := tg.Rows/5, tg.Rows-tg.Rows/5
		col0, cols := tg.Cols/4, tg.Cols/2
		for k, spec := range specs {
			skipping := k%2 == 0
			block := func() *interp.Block {
				b := &interp.Block{Row0: row0, Rows: rows, Col0: col0, Cols: cols, Values: make([]float64, rows*cols),
					Reach: make([]float64, rows*cols), Skip: make([]bool, rows*cols)}
				for i := range b.Reach {
					b.Reach[i] = held
					b.Skip[i] = skipping && i%7 == 3
				}
				return b
			}
			alg := mustParse(t, spec)
			e := NewEngine(testDev)
			e.chunkNodes = 100
			if !interp.TellsReach(e, alg) {
				t.Fatalf("%s: the GPU engine does not tell reach", spec)
			}
			p := &interp.Problem{Samples: d.samples, Target: tg, Alg: alg}
			got, want := block(), block()
			for _, c := range []struct {
				eng interp.Engine
				b   *interp.Block
			}{{e, got}, {&interp.CPU{}, want}} {
				prep, err := c.eng.Prepare(context.Background(), p)
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				if err := prep.Compute(context.Background(), c.b); err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				prep.Close()
			}
			compareValues(t, d.name+" "+spec, got.Values, want.Values, alg.NoData(), 1e-12)
			for i, r := range got.Reach {
				if got.Skip[i] && r != held {
					t.Fatalf("%s %s: skipped node %d of the window now reaches %v", d.name, spec, i, r)
				}
				if math.Float64bits(r) != math.Float64bits(want.Reach[i]) {
					t.Fatalf("%s %s: node %d of the window reaches %v on the GPU, %v on the CPU", d.name, spec, i, r,
						want.Reach[i])
				}
			}
		}
	}
}

// A form that searches no k nearest (gdal_grid's) tells no reach, and refuses a block that
// asks for it.
func TestEngineRefusesReach(t *testing.T) {
	d := clusteredSet(3, 500)
	alg := mustParse(t, "invdistnn:radius=30:max_points=12")
	e := NewEngine(testDev)
	if interp.TellsReach(e, alg) {
		t.Fatal("the GPU engine says it tells invdistnn's reach")
	}
	prep, err := e.Prepare(context.Background(), &interp.Problem{Samples: d.samples, Target: d.target, Alg: alg})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	n := d.target.Cols
	if err := prep.Compute(context.Background(), &interp.Block{Rows: 1, Values: make([]float64, n), Reach: make([]float64, n)}); err == nil {
		t.Fatal("a block asking invdistnn's reach was computed")
	}
}
