package kernels

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// problemFields are the fields of the Go mirror of struct Problem (engine.go, cuda build), in
// order, each 8 bytes; arrays as name[len]. TestProblemMirror (cuda build) checks the Go struct.
var problemFields = []string{"MinX", "MinY", "Cell", "InvCell", "Cols", "Rows", "N", "Start", "XY", "Order", "Z",
	"GX0", "GX1", "GX2", "GY0", "GY1", "GY2", "OX", "OY", "TCols", "K", "NQ", "MaxPoints", "R2", "MinPoints",
	"Nodata", "RExp", "RMin", "RMax", "Alphas[5]", "Power", "Smooth2", "HitD2", "Adaptive", "R1s", "R2s", "R12s",
	"Half", "Sq", "Stat", "Rank", "Flags", "MinPerQuad", "MaxPerQuad", "TieByCoords"}

// farTreeFields are the fields of the Go mirror of struct FarTree (far.go), as problemFields.
var farTreeFields = []string{"OX", "OY", "Side", "Depth", "XY", "Z", "LeafStart", "LevelStart", "Count",
	"Charges", "Charges64", "Cheb", "Points"}

// TestProblemLayout checks struct Problem of knn.cuh and struct FarTree of farfield.cuh against
// the Go field lists, name for name (case aside) and in order, without a GPU; the cuda tests
// check the sizes on the device.
func TestProblemLayout(t *testing.T) {
	for _, c := range []struct {
		file, name string
		want       []string
	}{{"knn.cuh", "Problem", problemFields}, {"farfield.cuh", "FarTree", farTreeFields}} {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?s)struct ` + c.name + ` \{(.*?)\n\};`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no struct %s", c.file, c.name)
		}
		var fields []string
		decl := regexp.MustCompile(`^\s*(?:const\s+)?(?:double2|double|float2|float|int|i64)\s*\*?\s*(.+?);`)
		for _, line := range strings.Split(string(m[1]), "\n") {
			line, _, _ = strings.Cut(line, "//")
			d := decl.FindStringSubmatch(line)
			if d == nil {
				if strings.TrimSpace(line) != "" {
					t.Errorf("%s: unparsed line in struct %s: %q", c.file, c.name, line)
				}
				continue
			}
			for _, f := range strings.Split(d[1], ",") {
				fields = append(fields, strings.Trim(strings.TrimSpace(f), "*"))
			}
		}
		if len(fields) != len(c.want) {
			t.Fatalf("struct %s has %d fields %v, Go %d", c.name, len(fields), fields, len(c.want))
		}
		for i, f := range fields {
			if !strings.EqualFold(f, c.want[i]) {
				t.Errorf("struct %s field %d is %s, Go has %s", c.name, i, f, c.want[i])
			}
		}
	}
}
