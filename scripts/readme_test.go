// Package scripts holds no Go code of its own: its test keeps scripts/README.md, the index of
// this folder, true to the folder.
package scripts

import (
	"os"
	"regexp"
	"testing"
)

// TestReadmeIndexesEveryScript: every entry of scripts/ has a row in README.md, and every row
// names an entry that exists.
func TestReadmeIndexesEveryScript(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		listed[m[1]] = true
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if name == "README.md" || name == "readme_test.go" {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		present[name] = true
		if !listed[name] {
			t.Errorf("scripts/%s has no row in scripts/README.md", name)
		}
	}
	for name := range listed {
		if !present[name] {
			t.Errorf("scripts/README.md lists %s, which is not in scripts/", name)
		}
	}
}
