package paperbench

import (
	"context"
	"os/exec"
	"testing"
)

func TestRasterShapeHasExactlyTheNodes(t *testing.T) {
	for _, n := range append([]int{1, 2, 7, 10007, 100}, PaperSizes...) {
		cols, rows := rasterShape(n)
		if cols*rows != n || rows > cols || rows < 1 {
			t.Errorf("rasterShape(%d) = %d x %d", n, cols, rows)
		}
	}
	if cols, rows := rasterShape(10 * K); cols != 128 || rows != 80 {
		t.Errorf("rasterShape(10K) = %d x %d, want 128 x 80", cols, rows)
	}
	xs, ys := rasterNodes(4, 2)
	if xs[0] != 125 || ys[0] != 750 || xs[7] != 875 || ys[7] != 250 {
		t.Errorf("nodes of a 4 x 2 raster: %v %v", xs, ys)
	}
}

// TestGDALPeersAgreeWithTheEngine runs gdal_grid's invdist and invdistnn on a small case; the
// harness checks them against the CPU float64 engine at the raster's nodes.
func TestGDALPeersAgreeWithTheEngine(t *testing.T) {
	if _, err := exec.LookPath("gdal_grid"); err != nil {
		t.Skip("gdal_grid is not on PATH")
	}
	cfg := runConfig(600)
	res, err := Run(context.Background(), cfg, gdalVariants())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for _, r := range res {
		if r.Status != OK || r.Checked != 100 || r.Ms <= 0 {
			t.Errorf("%s: %+v", r.Variant, r)
		}
	}
}
