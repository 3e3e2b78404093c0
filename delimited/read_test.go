package delimited

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aidw/aidw/sample"
)

// TestChunks crosses several parse chunks: every sample must come back in file order and
// an error deep in the file must name its line.
func TestChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3*textChunk/30 + 1234
	var b strings.Builder
	b.WriteString("x,y,z\n")
	want := make([][3]float64, n)
	for i := range want {
		want[i] = [3]float64{4.5e5 + rng.Float64()*1e4, 5.4e6 + rng.Float64()*1e4, rng.NormFloat64() * 100}
		fmt.Fprintf(&b, "%.3f,%.3f,%.17g\n", want[i][0], want[i][1], want[i][2])
		if i%1000 == 7 {
			b.WriteString("# comment\r\n")
		}
	}
	for i := range want {
		want[i][0] = math.Round(want[i][0]*1000) / 1000
		want[i][1] = math.Round(want[i][1]*1000) / 1000
	}
	s, _, err := Read(strings.NewReader(b.String()), int64(b.Len()), Options{}, &sample.Filter{ZMultiply: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][3]float64, s.Len())
	for i := range got {
		got[i] = [3]float64{s.X[i] + s.OriginX, s.Y[i] + s.OriginY, s.Z[i]}
	}
	if len(got) != n {
		t.Fatalf("got %d samples, want %d", len(got), n)
	}
	for i := range want {
		if math.Abs(got[i][0]-want[i][0]) > 1e-6 || math.Abs(got[i][1]-want[i][1]) > 1e-6 || got[i][2] != want[i][2] {
			t.Fatalf("sample %d = %v, want %v", i, got[i], want[i])
		}
	}
	lines := strings.Count(b.String(), "\n")
	if _, _, err := Read(strings.NewReader(b.String()+"1,2,x\n"), -1, Options{}, &sample.Filter{ZMultiply: 1}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d:", lines+1)) {
		t.Fatalf("error %v, want one naming line %d", err, lines+1)
	}
}
