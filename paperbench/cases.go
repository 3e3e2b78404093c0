// Package paperbench re-runs the experiments of the papers aidw is built from (Mei 2014 IDW,
// Mei, Xu & Xu 2015 and 2016 AIDW, Mei & Tian 2016 data layouts, and the reduction article) on
// today's hardware: it generates their synthetic cases, keeps a registry of the variants to
// time (CPU ones here, GPU ones registered by the cuda build), times and checks each against
// the CPU float64 engine, and writes the papers' Table 1 shaped results as Markdown and JSON.
// It knows nothing of GDAL's library; gdal_grid, the peer, runs as a separate process.
package paperbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// K is the papers' unit of size: 1K = 1024.
const K = 1024

// PaperSizes are the papers' five sizes: 10K, 50K, 100K, 500K and 1000K.
var PaperSizes = []int{10 * K, 50 * K, 100 * K, 500 * K, 1000 * K}

// FixedSize is the fixed side of the IDW paper's second and third series: 100K.
const FixedSize = 100 * K

// Side is the side of the square that samples and nodes are drawn in.
const Side = 1000.0

// Group is one of the papers' series of cases.
type Group string

const (
	// Equal has as many nodes as samples: the series of all four papers.
	Equal Group = "equal"
	// FixedSamples has 100K samples and a varying number of nodes (Mei 2014, Figs. 4-5).
	FixedSamples Group = "fixed-samples"
	// FixedNodes has 100K nodes and a varying number of samples (Mei 2014, Figs. 6-7).
	FixedNodes Group = "fixed-nodes"
)

// Groups are every group, in the papers' order.
var Groups = []Group{Equal, FixedSamples, FixedNodes}

// ParseGroup checks a group name.
func ParseGroup(s string) (Group, error) {
	for _, g := range Groups {
		if string(g) == s {
			return g, nil
		}
	}
	return "", fmt.Errorf("unknown group %q (known: equal, fixed-samples, fixed-nodes)", s)
}

// Case is one experiment: how many samples and how many nodes (prediction points).
type Case struct {
	Samples, Nodes int
}

// Pairs is the number of sample-node pairs that the papers' all-samples methods visit.
func (c Case) Pairs() float64 { return float64(c.Samples) * float64(c.Nodes) }

func (c Case) String() string {
	return FormatSize(c.Samples) + " samples x " + FormatSize(c.Nodes) + " nodes"
}

// caseOf is the case of a group at one size.
func caseOf(g Group, size int) Case {
	switch g {
	case FixedSamples:
		return Case{Samples: FixedSize, Nodes: size}
	case FixedNodes:
		return Case{Samples: size, Nodes: FixedSize}
	}
	return Case{Samples: size, Nodes: size}
}

// sizeOf is the size that a group's tables show a case under.
func sizeOf(g Group, c Case) int {
	if g == FixedNodes {
		return c.Samples
	}
	return c.Nodes
}

// inGroup says whether the case belongs to the group at one of the sizes.
func inGroup(g Group, c Case, sizes []int) bool {
	return slices.Contains(sizes, sizeOf(g, c)) && caseOf(g, sizeOf(g, c)) == c
}

// Cases lists the distinct cases of the groups at the sizes, smallest work first so that the
// time of a large case is estimated from smaller ones. A case shared by several groups (100K x
// 100K is in all three) appears once.
func Cases(groups []Group, sizes []int) []Case {
	var out []Case
	for _, g := range groups {
		for _, s := range sizes {
			if c := caseOf(g, s); !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Case) int {
		if a.Pairs() != b.Pairs() {
			return int(math.Copysign(1, a.Pairs()-b.Pairs()))
		}
		return a.Samples - b.Samples
	})
	return out
}

// FormatSize writes a size in the papers' unit when it is a whole number of K: 10240 is "10K".
func FormatSize(n int) string {
	if n >= K && n%K == 0 {
		return strconv.Itoa(n/K) + "K"
	}
	return strconv.Itoa(n)
}

// ParseSizes reads a comma-separated list of sizes such as "10K,50K" or "2048".
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		if t, ok := strings.CutSuffix(strings.ToUpper(f), "K"); ok {
			f, mult = t, K
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > math.MaxInt32/mult {
			return nil, fmt.Errorf("size %q: want a positive whole number, optionally with K (x1024)", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// Data is one case's points, in absolute coordinates: samples and nodes uniform at random in
// the square [0,Side)^2. The samples' values are a smooth surface plus noise, positive and away
// from zero so that relative errors mean something.
type Data struct {
	Case
	X, Y, Z      []float64 // samples
	NodeX, NodeY []float64 // nodes
}

// Generate returns the case's data. Samples depend only on (seed, number of samples) and nodes
// on (seed, number of nodes), so 100K samples are the same points in every case that has them.
func Generate(c Case, seed uint64) *Data {
	d := &Data{Case: c}
	rng := rand.New(rand.NewPCG(seed, uint64(c.Samples)<<1))
	d.X, d.Y, d.Z = make([]float64, c.Samples), make([]float64, c.Samples), make([]float64, c.Samples)
	for i := range d.X {
		x, y := Side*rng.Float64(), Side*rng.Float64()
		d.X[i], d.Y[i] = x, y
		d.Z[i] = 100 + 40*math.Sin(x/97)*math.Cos(y/131) + 10*rng.Float64()
	}
	rng = rand.New(rand.NewPCG(seed, uint64(c.Nodes)<<1|1))
	d.NodeX, d.NodeY = make([]float64, c.Nodes), make([]float64, c.Nodes)
	for i := range d.NodeX {
		d.NodeX[i], d.NodeY[i] = Side*rng.Float64(), Side*rng.Float64()
	}
	return d
}
