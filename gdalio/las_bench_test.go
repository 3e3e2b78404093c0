package gdalio

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/interp"
)

// benchLASPoints is the size of the benchmark files: large enough that the points, not the
// header or the goroutines' start, take the time (issue 6 asks for 40 M points/s or more).
const benchLASPoints = 4_000_000

// BenchmarkReadLAS reads LAS files from the page cache into fresh samples, as aidw grid does:
// the Mpoints/s metric is over all the file's points, kept or not.
//
//	go test ./gdalio -run '^$' -bench ReadLAS -benchtime 10x
func BenchmarkReadLAS(b *testing.B) {
	for _, c := range []struct {
		name   string
		format int
		filter LASFilter
	}{
		{"format1", 1, LASFilter{}},
		{"format6", 6, LASFilter{}},
		{"format6-ground", 6, LASFilter{Classes: []int{2}}},
		{"format3-last-noflags", 3, LASFilter{Returns: "last", DropWithheld: true, DropOverlap: true}},
		{"format8-intensity", 8, LASFilter{Field: "intensity"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := newTFile(4, c.format, benchLASPoints, 1)
			path := filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d.las", c.format))
			if err := os.WriteFile(path, f.encode(), 0o644); err != nil {
				b.Fatal(err)
			}
			f.points = nil
			if _, err := ReadLAS(path, c.filter, &interp.Samples{}); err != nil { // into the page cache
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := ReadLAS(path, c.filter, &interp.Samples{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchLASPoints)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
		})
	}
}
