package gpu

import (
	"go/constant"
	"os"
	"regexp"
	"testing"

	"github.com/aidw/aidw/kernels/cuda"
)

// TestSourcesAgree checks paper.cuh's #defines against the Go constants that launch its
// kernels, and that every kernel name Go builds is an entry of the papers' PTX; no GPU needed.
func TestSourcesAgree(t *testing.T) {
	got, _, err := cuda.Defines("paper.cuh")
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]int{"PAPER_BLOCK": paperBlock, "CDP_BLOCK": cdpBlock, "PAPER_K": paperK,
		"LAYOUT_SOA": int(SoA), "LAYOUT_AOS": int(AoS), "LAYOUT_AOAS": int(AoaS)} {
		g, ok := got[name]
		if !ok {
			t.Errorf("paper.cuh: no #define %s", name)
			continue
		}
		if f, _ := constant.Float64Val(g); f != float64(v) {
			t.Errorf("paper.cuh: #define %s %s, Go has %d", name, g.ExactString(), v)
		}
	}
	ptx, err := os.ReadFile("paper.ptx")
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]bool{}
	for _, m := range regexp.MustCompile(`\.entry\s+([A-Za-z0-9_]+)\(`).FindAllSubmatch(ptx, -1) {
		entries[string(m[1])] = true
	}
	names := []string{"aidw_grid_alpha", "bbox_atomic", "bbox_retire"}
	for _, l := range []PointLayout{SoA, AoS, AoaS} {
		for _, f64 := range []bool{false, true} {
			for _, m := range []Method{Naive, Tiled, CDP} {
				names = append(names, idwKernel(m, false, f64, l), idwKernel(m, true, f64, l))
			}
			names = append(names, aidwKernel(Naive, f64, l), aidwKernel(Tiled, f64, l))
		}
	}
	for _, f64 := range []bool{false, true} {
		names = append(names, aidwKernel(GridNaive, f64, SoA), aidwKernel(GridTiled, f64, SoA))
	}
	for _, name := range names {
		if !entries[name] {
			t.Errorf("kernel %s is not in paper.ptx", name)
		}
	}
	if len(names) != 3+36+12+4 {
		t.Errorf("%d kernel names", len(names))
	}
}
