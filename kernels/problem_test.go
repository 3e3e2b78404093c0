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
	"Nodata", "RExp", "RMin", "RMax", "Alphas[5]", "Power", "Smooth2", "HitD2", "Adaptive"}

// TestProblemLayout checks struct Problem of knn.cuh against the Go field list, name for name
// (case aside) and in order, without a GPU; the cuda tests check the sizes on the device.
func TestProblemLayout(t *testing.T) {
	src, err := os.ReadFile("knn.cuh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)struct Problem \{(.*?)\n\};`).FindSubmatch(src)
	if m == nil {
		t.Fatal("knn.cuh: no struct Problem")
	}
	var fields []string
	decl := regexp.MustCompile(`^\s*(?:const\s+)?(?:double2|double|int|i64)\s*\*?\s*(.+?);`)
	for _, line := range strings.Split(string(m[1]), "\n") {
		line, _, _ = strings.Cut(line, "//")
		d := decl.FindStringSubmatch(line)
		if d == nil {
			if strings.TrimSpace(line) != "" {
				t.Errorf("knn.cuh: unparsed line in struct Problem: %q", line)
			}
			continue
		}
		for _, f := range strings.Split(d[1], ",") {
			fields = append(fields, strings.TrimSpace(f))
		}
	}
	if len(fields) != len(problemFields) {
		t.Fatalf("struct Problem has %d fields %v, Go %d", len(fields), fields, len(problemFields))
	}
	for i, f := range fields {
		if !strings.EqualFold(f, problemFields[i]) {
			t.Errorf("struct Problem field %d is %s, Go has %s", i, f, problemFields[i])
		}
	}
}
