// Package dirtest lists a folder for the tests that check what a run left in it. Tests only.
package dirtest

import (
	"os"
	"testing"
)

// Names is the names of dir's entries in order (nil for none); a folder that cannot be read
// fails t.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
