package env

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	root       = "../.."
	docPath    = root + "/docs/environment.md"
	tableStart = "<!-- generated from internal/env.Vars -->\n"
	tableEnd   = "<!-- end of generated table -->\n"
)

// reads finds the AIDW_* variables a source file reads or sets for a program it runs: Go's
// os.Getenv/LookupEnv/Setenv, a shell's $AIDW_X and AIDW_X=..., Python's os.environ. Metadata
// keys and settings that share the prefix (AIDW_ALGORITHM, AIDW_EXECUTABLE) are not matched.
var reads = map[string]*regexp.Regexp{
	".go": regexp.MustCompile(`(?:Getenv|LookupEnv|Setenv)\("(AIDW_[A-Z0-9_]+)"`),
	".sh": regexp.MustCompile(`(?m)(?:\$\{?|(?:^|[\s;(])(?:export\s+)?)(AIDW_[A-Z0-9_]+)`),
	".py": regexp.MustCompile(`environ(?:\.get\(|\[)\s*['"](AIDW_[A-Z0-9_]+)`),
}

// TestEveryVariableDeclared: the variables the code reads are Vars, no more and no fewer.
func TestEveryVariableDeclared(t *testing.T) {
	used := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" || name == "testdata" || path == root+"/bench/results" {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if path == root+"/.ci/run" {
			ext = ".sh"
		}
		re := reads[ext]
		if re == nil {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			used[m[1]] = append(used[m[1]], strings.TrimPrefix(path, root+"/"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, files := range used {
		if !slices.ContainsFunc(Vars, func(v Var) bool { return v.Name == name }) {
			t.Errorf("%s is read by %s but not declared in internal/env.Vars", name, strings.Join(slices.Compact(files), ", "))
		}
	}
	for _, v := range Vars {
		if used[v.Name] == nil {
			t.Errorf("%s is declared in internal/env.Vars but nothing reads it", v.Name)
		}
	}
}

// TestGeneratedEnvironmentTable: docs/environment.md's table is Markdown(); AIDW_UPDATE=1
// go test ./internal/env -run TestGenerated rewrites it.
func TestGeneratedEnvironmentTable(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated table between %q and %q", docPath, tableStart, tableEnd)
	}
	got, want := doc[i+len(tableStart):j], Markdown()
	if got == want {
		return
	}
	if os.Getenv("AIDW_UPDATE") != "" {
		if err := os.WriteFile(docPath, []byte(doc[:i+len(tableStart)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/environment.md's table disagrees with internal/env.Vars: run AIDW_UPDATE=1 go test ./internal/env -run TestGenerated\ngot:\n%s\nwant:\n%s", got, want)
}
