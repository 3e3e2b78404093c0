package paperbench

import (
	"slices"
	"testing"
)

func TestCasesCoverGroupsOnceSmallestFirst(t *testing.T) {
	got := Cases(Groups, []int{100 * K, 10 * K})
	want := []Case{
		{10 * K, 10 * K},
		{10 * K, 100 * K}, // fixed nodes
		{100 * K, 10 * K}, // fixed samples
		{100 * K, 100 * K},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Cases = %v, want %v", got, want)
	}
	for _, g := range Groups {
		for _, s := range []int{10 * K, 100 * K} {
			if c := caseOf(g, s); !inGroup(g, c, []int{10 * K, 100 * K}) || sizeOf(g, c) != s {
				t.Errorf("group %s size %d: case %v not in its group at its size", g, s, c)
			}
		}
	}
	if inGroup(FixedSamples, Case{10 * K, 10 * K}, []int{10 * K}) {
		t.Error("10K x 10K counted in the 100K-samples series")
	}
	if got := Cases([]Group{Equal}, PaperSizes); len(got) != 5 || got[4] != (Case{1000 * K, 1000 * K}) {
		t.Errorf("equal series = %v", got)
	}
}

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("10K, 50k,2048")
	if err != nil || !slices.Equal(got, []int{10240, 51200, 2048}) {
		t.Fatalf("ParseSizes = %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "0", "-1K", "10KK", "1.5K", "99999999999K"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q): no error", bad)
		}
	}
	if FormatSize(1000*K) != "1000K" || FormatSize(1500) != "1500" {
		t.Errorf("FormatSize: %s, %s", FormatSize(1000*K), FormatSize(1500))
	}
}

func TestGenerateIsDeterministicAndShared(t *testing.T) {
	a := Generate(Case{Samples: 3000, Nodes: 100}, 7)
	b := Generate(Case{Samples: 3000, Nodes: 700}, 7)
	c := Generate(Case{Samples: 3000, Nodes: 100}, 8)
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.Z, b.Z) {
		t.Error("the same samples differ between cases with different node counts")
	}
	if slices.Equal(a.X, c.X) {
		t.Error("another seed gives the same samples")
	}
	if again := Generate(a.Case, 7); !slices.Equal(again.NodeY, a.NodeY) || !slices.Equal(again.Y, a.Y) {
		t.Error("Generate is not deterministic")
	}
	if len(a.NodeX) != 100 || len(b.NodeX) != 700 || len(a.X) != 3000 {
		t.Fatalf("sizes: %d nodes, %d nodes, %d samples", len(a.NodeX), len(b.NodeX), len(a.X))
	}
	for i := range a.X {
		if a.X[i] < 0 || a.X[i] >= Side || a.Y[i] < 0 || a.Y[i] >= Side || a.Z[i] < 50 || a.Z[i] > 150 {
			t.Fatalf("sample %d (%g,%g,%g) outside the square or the value range", i, a.X[i], a.Y[i], a.Z[i])
		}
	}
}
