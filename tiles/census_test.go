package tiles

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
)

// gridSurvey writes side x side LAS files (format 6, 1 mm quanta) of n points each, spread
// evenly over squares of 100 m that tile the survey, as scripts/genlas writes the 1e9-point
// survey's files.
func gridSurvey(tb testing.TB, dir string, side, n int) []string {
	tb.Helper()
	var paths []string
	for i := range side {
		for j := range side {
			rng := rand.New(rand.NewPCG(uint64(i*side+j), 11))
			f := &lastest.File{Minor: 4, Format: 6, Scale: [3]float64{0.001, 0.001, 0.001},
				Offset: [3]float64{450000, 5400000, 0}, Points: make([]lastest.Point, n)}
			for k := range f.Points {
				f.Points[k] = lastest.Point{X: int32((float64(i) + rng.Float64()) * 100e3), Y: int32((float64(j) + rng.Float64()) * 100e3),
					Z: int32(rng.IntN(50e3)), Class: 2, Return: 1, Returns: 1}
			}
			paths = append(paths, lastest.WriteFile(tb, dir, fmt.Sprintf("tile_%d_%d.las", i, j), f.Encode()))
		}
	}
	return paths
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(tb testing.TB) (user, sys time.Duration) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano()), time.Duration(u.Stime.Nano())
}

// BenchmarkCensus takes the spilled census of 4 files of 2.5e6 LAS points, as a tiled run of
// them does; it reports the CPU time (user and system, every thread) a sample.
func BenchmarkCensus(b *testing.B) {
	paths := gridSurvey(b, b.TempDir(), 2, 2500000)
	n := 0
	user, sys := cpuTime(b)
	for b.Loop() {
		c, err := TakeCensus(context.Background(), paths, gdalio.SourceOptions{}, true, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		n += c.n
		c.Close()
	}
	u, s := cpuTime(b)
	b.ReportMetric(float64(u-user+s-sys)/float64(n), "cpu-ns/sample")
	b.ReportMetric(float64(s-sys)/float64(n), "sys-ns/sample")
	b.ReportMetric(float64(b.Elapsed())/float64(n), "ns/sample")
}
