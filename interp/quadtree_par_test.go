package interp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aidw/aidw/sample"
)

// TestQuadtreeRanksParallel: the partitioned build gives insertion's ranks (gdal's quadtree
// order) on uniform, clustered, duplicated and collinear samples, and on samples that all lie
// at one point (a node that never splits).
func TestQuadtreeRanksParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := map[string][][2]float64{}
	for _, n := range []int{1, 9, 100, 300_000} {
		var u, c, d, l [][2]float64
		for i := range n {
			u = append(u, [2]float64{1000 * rng.Float64(), 1000 * rng.Float64()})
			c = append(c, [2]float64{500 + 3*rng.NormFloat64(), 200 + 40*rng.NormFloat64()})
			p := [2]float64{float64(rng.IntN(50)), float64(rng.IntN(50))}
			d = append(d, p, p)
			l = append(l, [2]float64{float64(i % 997), 7}, [2]float64{3, float64(i % 13)})
		}
		sets["uniform"+string(rune('a'+len(sets)))] = u
		sets["clustered"+string(rune('a'+len(sets)))] = c
		sets["duplicated"+string(rune('a'+len(sets)))] = d
		sets["collinear"+string(rune('a'+len(sets)))] = l
	}
	sets["one point"] = slices.Repeat([][2]float64{{5, 5}}, 40)
	for name, pts := range sets {
		s := &sample.Samples{OriginX: 1e5, OriginY: -3e5}
		for _, p := range pts {
			s.Add(p[0]+1e5, p[1]-3e5, 1)
		}
		got, _, _ := gdalQuadtreeIn(s, nil, nil)
		want := insertionRanks(s)
		if !slices.Equal(got, want) {
			t.Errorf("%s (%d samples): the partitioned quadtree's ranks differ from insertion's", name, s.Len())
		}
	}
}

// insertionRanks is gdalQuadtreeIn's tree built by insertion, sample by sample, as gdal does.
func insertionRanks(s *sample.Samples) []int32 {
	n := s.Len()
	t := &quadtree{x: make([]float64, n), y: make([]float64, n)}
	for i := range n {
		x, y := s.XY(int32(i))
		t.x[i], t.y[i] = x+s.OriginX, y+s.OriginY
	}
	root := quadRect{t.x[0], t.y[0], t.x[0], t.y[0]}
	for i := 1; i < n; i++ {
		root.minX, root.maxX = min(root.minX, t.x[i]), max(root.maxX, t.x[i])
		root.minY, root.maxY = min(root.minY, t.y[i]), max(root.maxY, t.y[i])
	}
	t.nodes = []quadNode{{rect: root}}
	for i := range n {
		t.add(0, int32(i))
	}
	rank := make([]int32, n)
	next := int32(0)
	stack := []int32{0}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &t.nodes[id]
		for _, i := range nd.items {
			rank[i] = next
			next++
		}
		if nd.sub != 0 {
			stack = append(stack, nd.sub+3, nd.sub+2, nd.sub+1, nd.sub)
		}
	}
	return rank
}
