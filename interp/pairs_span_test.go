package interp

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/raster"
)

// The group form of average_distance_pts (pairSpan) gives every node the value the
// node-by-node form (Metric.squarePairs) gives, bit for bit, with each of pairSums's
// kernels, whatever the run's ends, with skipped nodes left alone: on uniform and lattice
// samples (many exactly on the radius or the square's side), with repeated ones, plain and
// compact, in a Partial job, radii equal or not or one of them 0, min_points and nodata, on
// north-up targets with nodes closer and farther apart than the radius, on a flipped and a
// rotated target, and on rows longer than a run of pairSpanGroups groups (whose nodes the
// lanes' sets share out by count).
func TestPairSpanMatchesNodes(t *testing.T) {
	has512, has2 := haveAVX512, haveAVX2FMA
	defer func() { haveAVX512, haveAVX2FMA = has512, has2 }()
	kernels := map[string][2]bool{"avx512": {true, true}, "avx2": {false, true}, "go": {false, false}}
	algs := []string{"average_distance_pts:radius=50", "average_distance_pts:radius1=50:radius2=30:nodata=-9",
		"average_distance_pts:radius1=40:radius2=0:nodata=-1", "average_distance_pts:radius=30:min_points=40:nodata=NaN"}
	rng := rand.New(rand.NewPCG(7, 8))
	for kname, k := range kernels {
		if k[0] && !has512 || k[1] && !has2 {
			continue // the CPU has not got it
		}
		haveAVX512, haveAVX2FMA = k[0], k[1]
		targets := maps.Clone(spanTargets)
		targets["long rows"] = raster.NorthUp(450990, 5401200, 451610, 5401230, 2*pairSpanLanes*pairSpanGroups+13, 3)
		for tname, tg := range targets {
			for _, c := range []struct{ lattice, compact, job bool }{{false, false, false}, {true, false, false},
				{true, true, false}, {false, false, true}} {
				s := windowSamples(1500, c.lattice, c.compact, false, 1500, tg)
				for _, alg := range algs {
					what := fmt.Sprintf("%s %s lattice=%v compact=%v job=%v %s", kname, tname, c.lattice, c.compact, c.job, alg)
					a, _, err := ParseAlgorithm(alg)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					p := &Problem{Samples: s, Target: tg, Alg: a}
					if c.job {
						// a Partial job's samples, whose order comes from comparisons that the
						// job must see (gdalOrder.compare)
						x0, y0, x1, y1 := s.Bounds()
						p.Job = &Job{N: s.Len(), Bounds: [4]float64{x0 - 1, y0 - 1, x1 + 1, y1 + 1}, Partial: true}
					}
					b, err := a.(cpuAlgorithm).bind(p, testIndex(t, p))
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					sp, ok := b.(*pairSpanSkipping)
					if !ok {
						t.Fatalf("%s: bound as %T, want the group form", what, b)
					}
					checkSpans(t, what, p, b, sp, rng)
				}
			}
		}
	}
}

// sortByHigh orders distinct IDs (the keys' high bits) as a plain sort does, whatever their
// count and width.
func TestSortByHigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 47, 48, 170, 600, 2048, 2049, 5000} {
		for _, idBits := range []int{1, 6, 8, 9, 20, 31} {
			seen := map[uint64]bool{}
			var keys []uint64
			for len(keys) < n && len(seen) < 1<<idBits {
				id := rng.Uint64N(1 << idBits)
				if !seen[id] {
					seen[id] = true
					keys = append(keys, id<<32|uint64(len(keys)))
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			got, _ := sortByHigh(keys, nil, idBits)
			if !slices.Equal(got, want) {
				t.Fatalf("%d keys of %d bits: not sorted", len(keys), idBits)
			}
		}
	}
}
