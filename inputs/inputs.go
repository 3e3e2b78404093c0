// Package inputs resolves the sources of a command line (files, directories of LiDAR tiles,
// quoted glob patterns, OGR connection strings) into the inputs that the readers take, before
// any of them is opened. It calls no GDAL: every reader (lidar, the text reader, OGR through
// gdalio) and every command (grid, plan, cv, a tile census) starts from its list.
package inputs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aidw/aidw/lidar"
)

// Expand resolves the sources of a command line into the inputs to read, in order and
// each once:
//   - an existing file is an input;
//   - a directory holding .las or .laz files gives those files (not its subdirectories'), in
//     name order; any other directory is one input, an OGR datasource (a folder of shapefiles);
//   - a name that does not exist but holds *, ? or [ is a glob pattern (quoted, so that the
//     shell left it): its matches, in name order, each expanded as above; no match is an error;
//   - anything else is left to OGR, which opens more than files (PG:..., /vsizip/...).
func Expand(args []string) ([]string, error) {
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		key := p
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			paths = append(paths, p)
		}
	}
	for _, arg := range args {
		matches := []string{arg}
		if _, err := os.Stat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			if err != nil {
				return nil, fmt.Errorf("input pattern %q: %w", arg, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("input pattern %q matches no file", arg)
			}
			matches = m
		}
		for _, m := range matches {
			tiles, err := lasTilesIn(m)
			if err != nil {
				return nil, err
			}
			if len(tiles) == 0 {
				add(m)
			}
			for _, t := range tiles {
				add(t)
			}
		}
	}
	return paths, nil
}

// lasTilesIn returns the LAS and LAZ files directly in dir, in name order; none when dir is not
// a directory.
func lasTilesIn(dir string) ([]string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var tiles []string
	for _, e := range entries {
		if lidar.IsLAS(e.Name()) && !e.IsDir() {
			tiles = append(tiles, filepath.Join(dir, e.Name()))
		}
	}
	return tiles, nil
}
