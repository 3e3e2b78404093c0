package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
)

// Files generated from interp.Registry, checked here so that they cannot drift from it.
// AIDW_UPDATE=1 go test ./cmd/aidw -run TestGenerated rewrites them.
const (
	readmePath     = "../../README.md"
	qgisSchemaPath = "../../qgis/aidw_processing/algorithms.json" // the plugin's fallback and its tests' fixture
	tableStart     = "<!-- generated from interp.Registry: go run ./cmd/aidw algorithms --markdown -->\n"
	tableEnd       = "<!-- end of generated table -->\n"
)

func TestGeneratedREADMETable(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, tableStart), strings.Index(readme, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated table between %q and %q", tableStart, tableEnd)
	}
	got, want := readme[i+len(tableStart):j], interp.MarkdownTable()
	if got == want {
		return
	}
	if os.Getenv("AIDW_UPDATE") != "" {
		if err := os.WriteFile(readmePath, []byte(readme[:i+len(tableStart)]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's Algorithms table disagrees with interp.Registry: replace it with the output of "+
		"`go run ./cmd/aidw algorithms --markdown` (or run AIDW_UPDATE=1 go test ./cmd/aidw -run TestGenerated)\ngot:\n%s\nwant:\n%s", got, want)
}

func TestGeneratedQGISSchema(t *testing.T) {
	var want bytes.Buffer
	if err := writeAlgorithmsJSON(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(qgisSchemaPath)
	if err == nil && bytes.Equal(got, want.Bytes()) {
		return
	}
	if os.Getenv("AIDW_UPDATE") != "" {
		if err := os.WriteFile(qgisSchemaPath, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is not `aidw algorithms --json` (%v): run go run ./cmd/aidw algorithms --json > qgis/aidw_processing/algorithms.json",
		qgisSchemaPath, err)
}

// TestAlgorithmsCommand runs `aidw algorithms` in its three forms.
func TestAlgorithmsCommand(t *testing.T) {
	code, out, stderr := runAidw(t, "algorithms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var algs []map[string]any
	if err := json.Unmarshal([]byte(out), &algs); err != nil {
		t.Fatal(err)
	}
	if len(algs) != len(interp.Registry) {
		t.Fatalf("%d algorithms, want %d", len(algs), len(interp.Registry))
	}
	for i, a := range algs {
		d := interp.Registry[i]
		if a["name"] != d.Name || a["description"] != d.Help || a["gdal_compatible"] != d.GDAL || a["default"] != (i == 0) {
			t.Errorf("algorithm %d: %v, want %s", i, a, d.Name)
		}
		opts, _ := a["options"].([]any)
		if len(opts) != len(d.Options) {
			t.Fatalf("%s: %d options, want %d", d.Name, len(opts), len(d.Options))
		}
		for k, o := range opts {
			o := o.(map[string]any)
			for _, key := range []string{"name", "type", "default", "min", "max", "min_exclusive", "help"} {
				if _, ok := o[key]; !ok {
					t.Errorf("%s option %v: no %s", d.Name, o, key)
				}
			}
			if o["name"] != d.Options[k].Name || o["type"] != d.Options[k].Type.String() {
				t.Errorf("%s option %d: %v", d.Name, k, o)
			}
		}
	}
	if a := algs[0]["options"].([]any)[4].(map[string]any); a["name"] != "alphas" || len(a["default"].([]any)) != 5 {
		t.Errorf("aidw's alphas: %v", a)
	}
	code, out, _ = runAidw(t, "algorithms")
	if code != 0 || !strings.Contains(out, "alphas=1.5,2,2.5,3,3.5") || !strings.Contains(out, "linear: ") {
		t.Errorf("aidw algorithms: exit %d:\n%s", code, out)
	}
	code, out, _ = runAidw(t, "algorithms", "--markdown")
	if code != 0 || out != interp.MarkdownTable() {
		t.Errorf("aidw algorithms --markdown: exit %d:\n%s", code, out)
	}
}

// TestGridHelp: `aidw grid --help` describes every flag and lists every algorithm's keys with
// their defaults, and the synopsis names every flag.
func TestGridHelp(t *testing.T) {
	code, out, stderr := runAidw(t, "grid", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range gridFlagList {
		if f.help == "" || !strings.Contains(out, "  "+strings.TrimSpace(f.name+" "+f.args)) {
			t.Errorf("help lacks flag %s", f.name)
		}
		if !strings.Contains(gridUsage, "["+f.name) && !strings.HasPrefix(f.help, "the same as ") {
			t.Errorf("synopsis lacks flag %s", f.name)
		}
	}
	for _, d := range interp.Registry {
		if !strings.Contains(out, "  "+d.Name) {
			t.Errorf("help lacks algorithm %s", d.Name)
		}
	}
	if !strings.Contains(out, "max_points=12") || !strings.Contains(out, "alphas=1.5,2,2.5,3,3.5") {
		t.Errorf("help lacks the keys' defaults:\n%s", out)
	}
}
