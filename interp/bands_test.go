package interp

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// gridAllBands computes every band of the problem through GridBands on the CPU engine.
func gridAllBands(t *testing.T, p *Problem) [][]float64 {
	t.Helper()
	names := BandNames(p.Alg)
	out := make([][]float64, len(names))
	sink := func(row0, rows int, bands [][]float64) error {
		if len(bands) != len(names) {
			t.Fatalf("%d bands, want %d", len(bands), len(names))
		}
		for k, b := range bands {
			if len(out[k]) != row0*p.Target.Cols || len(b) != rows*p.Target.Cols {
				t.Fatalf("band %d: rows %d.. arrive after %d values with %d values", k, row0, len(out[k]), len(b))
			}
			out[k] = append(out[k], b...)
		}
		return nil
	}
	if err := GridBands(context.Background(), &CPU{Threads: 2}, p, sink, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAIDWDiagnosticsMatchDefinition checks every diagnostics band against issue 2's
// definition: alpha, r_obs, R and the number of samples weighted, node by node.
func TestAIDWDiagnosticsMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	pts := aidwClustered(rng)
	c := aidwCase{pts: pts, extent: aidwExtent, cols: 30, rows: 20}
	x, y := c.nodeXY(7, 5)
	c.pts = append(c.pts, aidwPoint{x, y, 150}) // an exact hit
	for _, tc := range []struct {
		name           string
		maxPts, minPts int
		radius         float64
	}{{"global", 0, 0, 0}, {"max_points", 10, 0, 0}, {"radius", 0, 5, 300}, {"max_points and radius", 12, 0, 250}} {
		t.Run(tc.name, func(t *testing.T) {
			o := aidwDefaults()
			o.MaxPoints, o.MinPoints, o.Radius, o.Diagnostics = tc.maxPts, tc.minPts, tc.radius, true
			c.opt = o
			bands := gridAllBands(t, c.problem())
			if len(bands) != 5 {
				t.Fatalf("%d bands, want 5", len(bands))
			}
			counts := map[int]bool{}
			for row := range c.rows {
				for col := range c.cols {
					i := row*c.cols + col
					nx, ny := c.nodeXY(col, row)
					want := aidwReference(c.pts, o, c.extent, nx, ny)
					for k, w := range []float64{want.value, want.alpha, want.rObs, want.r, float64(want.count)} {
						if g := bands[k][i]; aidwRelErr(g, w) > 1e-9 {
							t.Fatalf("node (%d,%d) band %s: got %.15g, want %.15g", col, row, BandNames(&o)[k], g, w)
						}
					}
					counts[want.count] = true
				}
			}
			if tc.radius > 0 && len(counts) < 3 {
				t.Errorf("neighbour counts %v: the case should give varied counts", counts)
			}
		})
	}
}

// TestAIDWDiagnosticsBands: names, the value band equal to the plain run, masked nodes
// nodata in every band, and Grid still giving the value alone.
func TestAIDWDiagnosticsBands(t *testing.T) {
	if got := BandNames(&AIDW{}); !slices.Equal(got, []string{"value"}) {
		t.Errorf("plain aidw bands %v", got)
	}
	a, _, err := ParseAlgorithm("aidw:diagnostics=yes:nodata=-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := BandNames(a); !slices.Equal(got, []string{"value", "alpha", "r_obs", "R", "neighbours"}) {
		t.Errorf("diagnostics bands %v", got)
	}
	for _, bad := range []string{"aidw:diagnostics=maybe", "aidw:diagnostic=yes"} {
		if _, _, err := ParseAlgorithm(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	s := utmSamples(300, 1000, 3)
	tg := utmTarget(1000, 20, 17)
	tg.Mask = func(row0, rows int, skip []bool) error {
		for i := range skip {
			skip[i] = (row0*17+i)%5 == 0
		}
		return nil
	}
	local := cloneSamples(s)
	local.MoveOrigin(tg.Centre())
	bands := gridAllBands(t, &Problem{Samples: local, Target: tg, Alg: a})
	plain := gridValues(t, "aidw:nodata=-1", s, tg)
	for i, v := range plain {
		if i%5 == 0 {
			for k := range bands {
				if bands[k][i] != -1 {
					t.Fatalf("masked node %d band %d = %g, want nodata", i, k, bands[k][i])
				}
			}
			continue
		}
		if bands[0][i] != v {
			t.Fatalf("node %d: value band %g, plain aidw %g", i, bands[0][i], v)
		}
		if bands[4][i] != 300 || !(bands[1][i] >= 1.5 && bands[1][i] <= 3.5) || math.IsNaN(bands[3][i]) {
			t.Fatalf("node %d: neighbours %g alpha %g R %g", i, bands[4][i], bands[1][i], bands[3][i])
		}
	}
	var values []float64
	sink := func(_, _ int, v []float64) error { values = append(values, v...); return nil }
	if err := Grid(context.Background(), &CPU{}, &Problem{Samples: local, Target: tg, Alg: a}, sink, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(values, bands[0]) {
		t.Error("Grid of aidw with diagnostics differs from its value band")
	}
}
