package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A source resolves as Expand's rules say: LAS tiles of a directory, OGR folders, quoted
// patterns, files named twice, names left to OGR.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	touch(t, j("tiles", "b.las"), j("tiles", "a.LAZ"), j("tiles", "notes.txt"), j("tiles", "sub", "c.las"),
		j("shapes", "p.shp"), j("pts", "1.csv"), j("pts", "2.csv"), j("one.las"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		// a directory with LAS/LAZ files gives them, in name order, not its subdirectories'
		{[]string{j("tiles")}, []string{j("tiles", "a.LAZ"), j("tiles", "b.las")}},
		// any other directory is an OGR datasource
		{[]string{j("shapes")}, []string{j("shapes")}},
		// a glob pattern, quoted, gives its matches; a file named twice is read once
		{[]string{j("pts", "*.csv"), j("pts", "1.csv")}, []string{j("pts", "1.csv"), j("pts", "2.csv")}},
		// the shell's expansion: several files
		{[]string{j("one.las"), j("tiles", "b.las")}, []string{j("one.las"), j("tiles", "b.las")}},
		// a pattern matching directories expands each
		{[]string{j("t*")}, []string{j("tiles", "a.LAZ"), j("tiles", "b.las")}},
		// what does not exist is left to OGR (connection strings, /vsi paths)
		{[]string{"PG:dbname=x"}, []string{"PG:dbname=x"}},
	} {
		got, err := Expand(c.args)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q) = %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	if _, err := Expand([]string{j("none", "*.las")}); err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("a pattern without matches: %v", err)
	}
}
