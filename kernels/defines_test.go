package kernels

import (
	"fmt"
	"go/constant"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/kernels/cuda"
)

// TestSourcesAgree checks the CUDA sources' #defines and kernel instantiations against the Go
// constants that launch the kernels (shapes.go): one definition in Go, checked here without a
// GPU.
func TestSourcesAgree(t *testing.T) {
	want := map[string]map[string]any{
		"build.cuh": {
			"BBOX_BLOCK": bboxBlock, "SCAN_BLOCK": scanBlock, "SCAN_ITEMS": scanItems, "SCAN_TILE": scanTile,
			"SPINE_BLOCK": spineBlock, "SORT_BLOCK": sortBlock, "SORT_ITEMS": sortItems, "SORT_TILE": sortTile,
			"RADIX_BITS": radixBits, "RADIX": radix,
		},
		"knn.cuh": {"HIT_D2": exactHitD2, "NEAR_CORR": nearCorr},
		"weigh.cuh": {
			"WF32_BLOCK": wf32Block, "WF32_TILE": wf32Tile, "WF64_BLOCK": wf64Block, "BRUTE_BLOCK": bruteBlock,
		},
		"farfield.cuh": {"FF_BLOCK": farBlock, "FF_BATCH": farBatch, "FF_NEAR": farfield.NearR},
		"forms.cuh": {
			"FLAG_RANKS": flagRanks, "QUAD_KEEP": quadKeep, "STAT_AVERAGE": int(interp.DeviceAverage), "STAT_COUNT": int(interp.DeviceCount),
			"STAT_MINIMUM": int(interp.DeviceMinimum), "STAT_MAXIMUM": int(interp.DeviceMaximum),
			"STAT_RANGE": int(interp.DeviceRange), "STAT_DISTANCE": int(interp.DeviceDistance),
			"STAT_PAIRS": int(interp.DevicePairs), "QUAD_BUCKET": interp.QuadtreeBucket,
			"QUAD_SPLIT": interp.QuadtreeSplitRatio, "FLAG_HOST_ORDER": flagHostOrder,
		},
	}
	calls := map[string]map[string][]string{}
	for file, names := range want {
		got, c, err := cuda.Defines(file)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range names {
			g, ok := got[name]
			if !ok {
				t.Errorf("%s: no #define %s", file, name)
				continue
			}
			var w float64
			switch v := v.(type) {
			case int:
				w = float64(v)
			case float64:
				w = v
			}
			if f, _ := constant.Float64Val(g); f != w {
				t.Errorf("%s: #define %s %s, Go has %v", file, name, g.ExactString(), v)
			}
		}
		calls[file] = map[string][]string{}
		for macro, list := range c {
			for _, args := range list {
				calls[file][macro] = append(calls[file][macro], strings.Join(args, ","))
			}
		}
	}
	var ks []string
	for _, k := range nodeKs {
		ks = append(ks, fmt.Sprint(k))
	}
	if got := calls["knn.cuh"]["NODE_KERNELS"]; !slices.Equal(got, ks) {
		t.Errorf("knn.cuh instantiates NODE_KERNELS for %v, Go's nodeKs are %v", got, ks)
	}
	if got := calls["forms.cuh"]["INVDISTNN_KERNEL"]; !slices.Equal(got, ks) {
		t.Errorf("forms.cuh instantiates INVDISTNN_KERNEL for %v, Go's nodeKs are %v", got, ks)
	}
	for _, k := range nodeKs {
		want := nodeKernels{fmt.Sprintf("knn_list_%d", k), fmt.Sprintf("node_prep_%d", k), fmt.Sprintf("local_%d", k),
			fmt.Sprintf("radius_%d", k)}
		if nodeKernelsOf[k] != want {
			t.Errorf("the kernels of NODE_KERNELS(%d) are %v, Go names them %v", k, want, nodeKernelsOf[k])
		}
	}
	if len(nodeKernelsOf) != len(nodeKs) || !slices.IsSorted(nodeKs[:]) {
		t.Errorf("nodeKernelsOf %v and nodeKs %v disagree", nodeKernelsOf, nodeKs)
	}
	if nodeKs[len(nodeKs)-1] != MaxK {
		t.Errorf("MaxK %d is not the largest neighbour list %d", MaxK, nodeKs[len(nodeKs)-1])
	}
	var f32 []string
	for _, w := range f32Weightings {
		if w.name != "weigh_naive_f32" {
			f32 = append(f32, fmt.Sprintf("%d,%d", w.npt, w.npoly))
			if w.name != fmt.Sprintf("weigh_all_f32_%d_%d", w.npt, w.npoly) {
				t.Errorf("f32 weighting %s has npt %d, npoly %d", w.name, w.npt, w.npoly)
			}
		}
	}
	var orders []string
	for _, o := range farOrders {
		orders = append(orders, fmt.Sprint(o))
	}
	if got := calls["farfield.cuh"]["FAR_KERNEL"]; !slices.Equal(got, orders) {
		t.Errorf("farfield.cuh instantiates FAR_KERNEL for %v, Go's farOrders are %v", got, orders)
	}
	got := calls["weigh.cuh"]["WEIGH_F32"]
	slices.Sort(got)
	slices.Sort(f32)
	if !slices.Equal(got, f32) {
		t.Errorf("weigh.cuh instantiates WEIGH_F32 for %v, Go knows %v", got, f32)
	}
}

// TestKernelNamesInPTX checks that every kernel the launchers name is an entry of aidw.ptx,
// and that aidw.ptx holds no other: the engine's module is only what the engine runs (the
// papers' kernels are paperbench/gpu's module).
func TestKernelNamesInPTX(t *testing.T) {
	ptx, err := os.ReadFile("aidw.ptx")
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]bool{}
	for _, m := range regexp.MustCompile(`\.entry\s+([A-Za-z0-9_]+)\(`).FindAllSubmatch(ptx, -1) {
		entries[string(m[1])] = true
	}
	src, err := os.ReadFile("launch.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`\.Launch\("([a-z0-9_]+)"`).FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) < 15 {
		t.Fatalf("found %d kernel names in launch.go", len(names))
	}
	for _, k := range nodeKs {
		n := nodeKernelsOf[k]
		names = append(names, n.knnList, n.nodePrep, n.local, n.radius)
	}
	for _, w := range f32Weightings {
		names = append(names, w.name)
	}
	for _, name := range formKernels {
		names = append(names, name)
	}
	for _, k := range nodeKs {
		names = append(names, invdistnnKernel(k))
	}
	names = append(names, "gather_ranks", invdistnnQuadKernel, pairsKernel)
	for _, o := range farOrders {
		leaves, parents, weigh := farKernels(o)
		names = append(names, leaves, parents, weigh)
	}
	launched := map[string]bool{}
	for _, name := range names {
		launched[name] = true
		if !entries[name] {
			t.Errorf("kernel %s is not in aidw.ptx", name)
		}
	}
	for name := range entries {
		if !launched[name] {
			t.Errorf("aidw.ptx holds kernel %s, which the engine never launches", name)
		}
	}
}
