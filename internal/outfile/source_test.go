package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A destination that is a source under another name (a hard link, a symbolic link, another
// spelling), or that lies in a source directory, is refused; any other is not.
func TestCheckNotSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in", "pts.csv")
	os.Mkdir(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, []byte("x,y,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard, soft := filepath.Join(dir, "hard.csv"), filepath.Join(dir, "soft.csv")
	if err := os.Link(src, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, soft); err != nil {
		t.Fatal(err)
	}
	srcs := []string{src}
	for dst, want := range map[string]string{
		hard: "is the source", soft: "is the source", filepath.Join(dir, "in", "..", "in", "pts.csv"): "is the source",
		filepath.Join(dir, "in", "new.tif"): "inside the source directory", filepath.Join(dir, "out.tif"): "",
	} {
		sources := srcs
		if strings.HasSuffix(dst, "new.tif") {
			sources = []string{filepath.Dir(src)} // a directory given as the source
		}
		err := CheckNotSource(dst, sources, srcs)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", dst, err, want)
		}
	}
}
