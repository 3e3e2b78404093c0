package tiles

import (
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// BenchmarkCheckNodes is the halo check (checkNodes) of a tile of the 1e9-point survey's run
// under -memory 8GB (4606 x 4606 nodes of a 1 m DEM), every node passing; it reports the time a
// node, the flags and reach reset included.
func BenchmarkCheckNodes(b *testing.B) {
	target := raster.NorthUp(450000, 5400000, 470000, 5420000, 20000, 20000)
	alg, _, err := interp.ParseAlgorithm("aidw:max_points=12")
	if err != nil {
		b.Fatal(err)
	}
	c := &Computer{cfg: Config{Target: target, Alg: alg}, facts: &Facts{Bounds: [4]float64{450000, 5400000, 470000, 5420000}},
		rule: Rule{Family: Nearest, K: 12}}
	tl := Tile{Col0: 4606, Row0: 4606, Cols: 4606, Rows: 4606}
	n := tl.Cols * tl.Rows
	pending, reach := make([]bool, n), make([]float64, n)
	region := Grow(tl.Box(target), 20)
	for b.Loop() {
		for i := range pending {
			pending[i], reach[i] = true, 1.5
		}
		if c.checkNodes(tl, region, pending, reach); pending[n/2] {
			b.Fatal("a node well inside its region did not pass")
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(n), "ns/node")
}
