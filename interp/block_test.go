package interp

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// held is what a block's buffers hold before Compute: a skipped node must still hold it after.
const held = -123456.75

// windowBlock is a block of rows [row0, row0+rows) and columns [col0, col0+cols) of target t
// (cols 0: every column), every buffer filled with held; bands > 1 adds Extra, reach Reach;
// skip, when set, marks the nodes to skip by their place in the target.
func windowBlock(t raster.Target, row0, rows, col0, cols, bands int, reach bool, skip func(col, row int) bool) *Block {
	width := cols
	if cols == 0 {
		width = t.Cols
	}
	n := rows * width
	filled := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = held
		}
		return v
	}
	b := &Block{Row0: row0, Rows: rows, Col0: col0, Cols: cols, Values: filled()}
	for range bands - 1 {
		b.Extra = append(b.Extra, filled())
	}
	if reach {
		b.Reach = filled()
	}
	if skip != nil {
		b.Skip = make([]bool, n)
		for i := range b.Skip {
			b.Skip[i] = skip(col0+i%width, row0+i/width)
		}
	}
	return b
}

// blockBands is the block's bands, the value first, and its reach last when it has one.
func blockBands(b *Block) [][]float64 {
	out := append([][]float64{b.Values}, b.Extra...)
	if b.Reach != nil {
		out = append(out, b.Reach)
	}
	return out
}

// A block over a window of the target's columns computes, node by node, what a block of the
// same whole rows computes at the same nodes, bit for bit, in every band and reach, with every
// algorithm, by runs of a row's nodes (spanners) and node by node; its skipped nodes keep what
// they held.
func TestWindowedBlockEqualsWholeRows(t *testing.T) {
	s := looSamples(1500, 31)
	tg := utmTarget(1000, 10, 91)
	tg.Rows = 37
	s.MoveOrigin(tg.Centre())
	// the window's rows 5-17 and columns 13-52: a chunk of the CPU engine's nodes spans rows,
	// and neither edge falls on one of the whole rows' chunks
	const row0, rows, col0, cols = 5, 13, 13, 40
	skip := func(col, row int) bool { return (col*7+row*3)%5 == 0 }
	specs := append(everyAlgorithm(50), "aidw:k=8:max_points=20:radius=90:diagnostics=yes")
	for _, spec := range specs {
		alg, _, err := ParseAlgorithm(spec)
		if err != nil {
			t.Fatal(err)
		}
		p := &Problem{Samples: s, Target: tg, Alg: alg}
		prep, err := (&CPU{Threads: 2}).Prepare(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		bands := len(BandNames(alg))
		// without reach and extra bands (a spanner's runs), then with every band and reach
		for _, all := range []bool{false, true} {
			nb := 1
			if all {
				nb = bands
			}
			whole := windowBlock(tg, row0, rows, 0, 0, nb, all, skip)
			win := windowBlock(tg, row0, rows, col0, cols, nb, all, skip)
			for _, b := range []*Block{whole, win} {
				if err := prep.Compute(context.Background(), b); err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
			}
			wb, gb := blockBands(whole), blockBands(win)
			for k := range gb {
				for i, got := range gb[k] {
					r, c := i/cols, i%cols
					want := wb[k][r*tg.Cols+col0+c]
					if skip(col0+c, row0+r) {
						want = held
					}
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s (every band %v): band %d of node (%d, %d) is %v in the window, %v in whole rows",
							spec, all, k, col0+c, row0+r, got, want)
					}
				}
			}
		}
		prep.Close()
	}
}

// nodeLattice is a sample at every node of t, whose value names the node: col + 1000 row.
func nodeLattice(t raster.Target) *sample.Samples {
	s := &sample.Samples{}
	for row := range t.Rows {
		for col := range t.Cols {
			x, y := t.Node(col, row, 0, 0)
			s.Add(x, y, float64(col+1000*row))
		}
	}
	s.MoveOrigin(t.Centre())
	return s
}

// A windowed block's nodes are the window's (by the nearest sample, which names its node), on
// the CPU engine and spread over several engines, each by runs of a row and node by node; a
// window beyond the target is refused.
func TestWindowedBlockNodesAreTheWindows(t *testing.T) {
	tg := raster.NorthUp(0, 0, 300, 70, 300, 70)
	s := nodeLattice(tg)
	alg, _, err := ParseAlgorithm("nearest")
	if err != nil {
		t.Fatal(err)
	}
	engines := map[string]Engine{"cpu": &CPU{Threads: 2}, "multi": &Multi{Engines: fakeDevices(3, 7), PartRows: 2}}
	for name, eng := range engines {
		prep, err := eng.Prepare(context.Background(), &Problem{Samples: s, Target: tg, Alg: alg})
		if err != nil {
			t.Fatal(err)
		}
		for _, reach := range []bool{false, true} {
			const row0, rows, col0, cols = 9, 11, 250, 37
			b := windowBlock(tg, row0, rows, col0, cols, 1, reach, nil)
			if err := prep.Compute(context.Background(), b); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i, v := range b.Values {
				if want := float64(col0 + i%cols + 1000*(row0+i/cols)); v != want {
					t.Fatalf("%s (reach %v): node %d of the window of columns %d-%d, rows %d-%d has the value of (%d, %d), want (%d, %d)",
						name, reach, i, col0, col0+cols-1, row0, row0+rows-1, int(v)%1000, int(v)/1000, col0+i%cols, row0+i/cols)
				}
			}
		}
		for _, w := range [][2]int{{290, 11}, {-1, 5}, {3, 0}} {
			b := windowBlock(tg, 0, 1, w[0], w[1], 1, false, nil)
			if w[1] == 0 {
				b.Values = make([]float64, tg.Cols)
			}
			err := prep.Compute(context.Background(), b)
			if err == nil || !strings.Contains(err.Error(), "does not lie within the target's 300 columns") {
				t.Errorf("%s: a block of %d columns from column %d: %v, want it refused", name, w[1], w[0], err)
			}
		}
		prep.Close()
	}
}
