package cuda

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var includeRe = regexp.MustCompile(`^\s*#include\s+"([^"]+)"`)

// Sources lists the CUDA sources that the translation units roots (in dir) are made of: the
// roots and every file they include with #include "..." (relative to the including file),
// transitively, as paths relative to dir, sorted.
func Sources(dir string, roots ...string) ([]string, error) {
	seen := map[string]bool{}
	var visit func(name string) error
	visit = func(name string) error {
		name = filepath.Clean(name)
		if seen[name] {
			return nil
		}
		seen[name] = true
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if m := includeRe.FindStringSubmatch(line); m != nil {
				if err := visit(filepath.Join(filepath.Dir(name), m[1])); err != nil {
					return fmt.Errorf("included by %s: %w", name, err)
				}
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := visit(r); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// CheckSums checks that the device code generated from the translation units roots (in dir)
// is current: the checksum file sumFile (in dir, as scripts/gen-ptx.sh writes it: SHA-256 and
// a name relative to dir a line, # comments) must list exactly their Sources and the
// generated files, each with its current SHA-256. It needs no GPU and no cuda build.
func CheckSums(dir, sumFile string, roots []string, generated ...string) []error {
	recorded, err := readSums(filepath.Join(dir, sumFile))
	if err != nil {
		return []error{fmt.Errorf("reading %s: %w (run scripts/gen-ptx.sh)", sumFile, err)}
	}
	sources, err := Sources(dir, roots...)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, name := range append(sources, generated...) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h := sha256.Sum256(data)
		switch rec, ok := recorded[name]; {
		case !ok:
			errs = append(errs, fmt.Errorf("%s is not in %s: regenerate the device code (scripts/gen-ptx.sh)", name, sumFile))
		case rec != hex.EncodeToString(h[:]):
			errs = append(errs, fmt.Errorf("%s changed since the device code (%s) was generated: regenerate it (scripts/gen-ptx.sh)",
				name, strings.Join(generated, ", ")))
		}
		delete(recorded, name)
	}
	for name := range recorded {
		errs = append(errs, fmt.Errorf("%s lists %s, which the device code is not made of", sumFile, name))
	}
	return errs
}

// readSums reads a checksum file into name -> SHA-256.
func readSums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recorded := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		recorded[filepath.Clean(name)] = sum
	}
	return recorded, sc.Err()
}
