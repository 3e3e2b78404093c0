package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/sample"
)

// quadBuild gives gdal's quadtree as gdal builds it (quadtreeInserts below, one sample at a
// time, as port/cpl_quad_tree.cpp inserts): the same order, the same leaves and the same
// unsure marks, on uniform, clustered, lattice, repeated, collinear and few samples, with and
// without a Partial job's root and region.
func TestQuadBuildMatchesInserts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := map[string]func(i int) (float64, float64){
		"uniform":   func(int) (float64, float64) { return 450000 + 1000*rng.Float64(), 5400000 + 1000*rng.Float64() },
		"clustered": func(int) (float64, float64) { return 450000 + 10*rng.NormFloat64(), 5400000 + 3*rng.NormFloat64() },
		"lattice": func(int) (float64, float64) {
			return 450000 + math.Round(20*rng.Float64()), 5400000 + math.Round(20*rng.Float64())
		},
		"repeated":  func(i int) (float64, float64) { return 450000 + float64(i%3), 5400000 },
		"collinear": func(int) (float64, float64) { return 450000, 5400000 + 500*rng.Float64() },
	}
	for name, at := range cases {
		for _, n := range []int{1, 8, 9, 17, 100, 3000, 5 * quadParMin} { // the last builds quarters on cores of their own
			s := &sample.Samples{}
			for i := range n {
				x, y := at(i)
				s.X, s.Y, s.Z = append(s.X, x), append(s.Y, y), append(s.Z, 0)
			}
			s.MoveOrigin(450000, 5400000)
			minX, minY, maxX, maxY := s.Bounds()
			root := &quadRect{minX - 7, minY - 3, maxX + 5, maxY + 11}
			region := &[4]float64{minX + 0.3*(maxX-minX), minY - 1, maxX + 1, minY + 0.6*(maxY-minY)}
			for _, job := range []bool{false, true} {
				what := fmt.Sprintf("%s n=%d job=%v", name, n, job)
				var r *quadRect
				var reg *[4]float64
				if job {
					r, reg = root, region
				}
				rank, leaf, unsure := gdalQuadtreeIn(s, r, reg)
				wrank, wleaf, wunsure := quadtreeInserts(s, r, reg)
				checkQuadBuild(t, what, rank, leaf, unsure, wrank, wleaf, wunsure)
			}
		}
	}
}

func checkQuadBuild(t *testing.T, what string, rank, leaf []int32, unsure []bool, wrank, wleaf []int32, wunsure []bool) {
	t.Helper()
	for i := range wrank {
		if rank[i] != wrank[i] {
			t.Fatalf("%s: sample %d has rank %d, want %d", what, i, rank[i], wrank[i])
		}
	}
	if wleaf == nil {
		if leaf != nil || unsure != nil {
			t.Fatalf("%s: leaves without a region", what)
		}
		return
	}
	// Node numbers differ: the same samples share a node, and its mark, both ways.
	toWant, toGot := map[int32]int32{}, map[int32]int32{}
	for i := range wleaf {
		g, w := leaf[i], wleaf[i]
		if v, ok := toWant[g]; ok && v != w {
			t.Fatalf("%s: sample %d shares node %d with samples of node %d, want %d", what, i, g, v, w)
		}
		if v, ok := toGot[w]; ok && v != g {
			t.Fatalf("%s: sample %d is in node %d, its node mates in %d", what, i, g, v)
		}
		toWant[g], toGot[w] = w, g
		if unsure[g] != wunsure[w] {
			t.Fatalf("%s: sample %d's node unsure %v, want %v", what, i, unsure[g], wunsure[w])
		}
	}
}

type quadNode struct {
	rect  quadRect
	items []int32
	sub   int32 // index of the first of 4 subnodes, 0 when none
}

type quadtree struct {
	x, y  []float64
	nodes []quadNode
}

// add is CPLQuadTreeNodeAddFeatureAlg1 for a point.
func (t *quadtree) add(n, i int32) {
	px, py := t.x[i], t.y[i]
	for {
		if sub := t.nodes[n].sub; sub != 0 {
			k := int32(0)
			for k < 4 && !t.nodes[sub+k].rect.contains(px, py) {
				k++
			}
			if k == 4 {
				break
			}
			n = sub + k
			continue
		}
		if len(t.nodes[n].items) < quadBucket || !t.split(n, px, py) {
			break
		}
	}
	t.nodes[n].items = append(t.nodes[n].items, i)
}

// split gives node n four subnodes and redispatches its samples, if a sample at (px,py) fits a
// quarter and the quarters differ from the node (a node of zero size never splits).
func (t *quadtree) split(n int32, px, py float64) bool {
	r := t.nodes[n].rect
	h1, h2 := r.split()
	q1, q2 := h1.split()
	q3, q4 := h2.split()
	quads := [4]quadRect{q1, q2, q3, q4}
	fits := false
	for _, q := range quads {
		if q.same(r) {
			return false
		}
		fits = fits || q.contains(px, py)
	}
	if !fits {
		return false
	}
	sub := int32(len(t.nodes))
	for _, q := range quads {
		t.nodes = append(t.nodes, quadNode{rect: q})
	}
	old := t.nodes[n].items
	t.nodes[n].items, t.nodes[n].sub = nil, sub
	for _, i := range old {
		t.add(n, i)
	}
	return true
}

func quadtreeInserts(s *sample.Samples, root *quadRect, region *[4]float64) (rank, leaf []int32, unsure []bool) {
	n := s.Len()
	t := &quadtree{x: make([]float64, n), y: make([]float64, n)}
	for i := range n {
		x, y := s.XY(int32(i))
		t.x[i], t.y[i] = x+s.OriginX, y+s.OriginY
	}
	if root == nil {
		root = &quadRect{t.x[0], t.y[0], t.x[0], t.y[0]}
		for i := 1; i < n; i++ {
			root.minX, root.maxX = min(root.minX, t.x[i]), max(root.maxX, t.x[i])
			root.minY, root.maxY = min(root.minY, t.y[i]), max(root.maxY, t.y[i])
		}
	}
	t.nodes = append(make([]quadNode, 0, n/4+1), quadNode{rect: *root})
	for i := range n {
		t.add(0, int32(i))
	}
	rank = make([]int32, n)
	if region != nil {
		leaf, unsure = make([]int32, n), make([]bool, len(t.nodes))
	}
	next := int32(0)
	stack := []int32{0}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		nd := &t.nodes[id]
		stack = stack[:len(stack)-1]
		for _, i := range nd.items {
			rank[i] = next
			next++
			if leaf != nil {
				leaf[i] = id
			}
		}
		if nd.sub != 0 {
			stack = append(stack, nd.sub+3, nd.sub+2, nd.sub+1, nd.sub)
		} else if r := nd.rect; unsure != nil && len(nd.items) <= quadBucket {
			unsure[id] = !(r.minX > region[0] && r.minY > region[1] && r.maxX < region[2] && r.maxY < region[3])
		}
	}
	return rank, leaf, unsure
}

// BenchmarkQuadBuild is gdal's quadtree order of 1M uniform samples over a 10 km square, the
// order average_distance_pts and gdal's pair count read (scripts/bench-cpu-single.sh's case).
func BenchmarkQuadBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := &sample.Samples{}
	for range 1_000_000 {
		s.X, s.Y, s.Z = append(s.X, 450000+1e4*rng.Float64()), append(s.Y, 5400000+1e4*rng.Float64()), append(s.Z, 0)
	}
	s.MoveOrigin(450000, 5400000)
	var u0, u1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u0)
	for b.Loop() {
		gdalQuadtreeRanks(s)
	}
	// CPU time, which a shared machine's load leaves alone, where wall time is not
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u1)
	cpu := time.Duration(u1.Utime.Nano() + u1.Stime.Nano() - u0.Utime.Nano() - u0.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// quarters (with AVX-512 where the CPU has it, 8 samples at a time) gives each sample
// quarterOf's quarter and counts them, on samples inside, on and outside the quarters' sides,
// NaN among them, for every length's tail.
func TestQuartersMatchQuarterOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for round := range 200 {
		r := quadRect{rng.Float64(), rng.Float64(), 0, 0}
		r.maxX, r.maxY = r.minX+rng.Float64()*float64(round%3), r.minY+rng.Float64()
		h1, h2 := r.split()
		q1, q2 := h1.split()
		q3, q4 := h2.split()
		quads := [4]quadRect{q1, q2, q3, q4}
		var sides []float64 // every quad's sides, and just past them
		for _, q := range quads {
			for _, v := range []float64{q.minX, q.minY, q.maxX, q.maxY} {
				sides = append(sides, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
			}
		}
		n := rng.IntN(60)
		x, y := make([]float64, n), make([]float64, n)
		for k := range n {
			x[k], y[k] = sides[rng.IntN(len(sides))], sides[rng.IntN(len(sides))]
			switch rng.IntN(5) {
			case 0:
				x[k] = r.minX - 0.1 + 1.2*rng.Float64()*(r.maxX-r.minX)
			case 1:
				y[k] = math.NaN()
			}
		}
		quarter := make([]uint8, n)
		count := quarters(&quads, x, y, quarter)
		var want [5]int
		for k := range n {
			q := quarterOf(&quads, x[k], y[k])
			want[q]++
			if quarter[k] != q {
				t.Fatalf("round %d: sample %d (%v, %v) in quarter %d, want %d", round, k, x[k], y[k], quarter[k], q)
			}
		}
		if count != want {
			t.Fatalf("round %d: counts %v, want %v", round, count, want)
		}
	}
}
