package tiles

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/raster"
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

// awaitOr waits until done is closed and says so, or says it was not by the test's deadline
// (never, without one): what it waits for never happens when the behaviour under test is
// broken.
func awaitOr(t *testing.T, done <-chan struct{}) bool {
	deadline, ok := t.Deadline()
	if !ok {
		<-done
		return true
	}
	select {
	case <-done:
		return true
	case <-time.After(time.Until(deadline) * 9 / 10):
		return false
	}
}

// The census starts the other inputs once the first batch gave the job's form, while the
// first input goes on (it read the first to its end alone before), and finds what reading
// them one by one finds: the files, their tallies, the facts and every bucket's samples as a
// tile loads them. Each input comes in several batches; the first input's second batch waits
// until another input has handed over one.
func TestCensusSideBySideAfterFirstBatch(t *testing.T) {
	dir := t.TempDir()
	paths := append(lastest.Survey(t, filepath.Join(dir, "a"), 500000, 3, true), lastest.Survey(t, filepath.Join(dir, "b"), 500000, 4, true)...)
	paths[0], paths[1] = paths[1], paths[0] // the largest first: 6 batches
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	one, err := takeCensus(context.Background(), paths, gdalio.SourceOptions{}, true, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	oneFacts, err := one.Facts(target)
	if err != nil {
		t.Fatal(err)
	}
	var batches [8]atomic.Int32
	other := make(chan struct{})
	var once sync.Once
	var overlapped atomic.Bool
	hook := func(ctx context.Context, input int) {
		if batches[input].Add(1) == 1 && input != 0 {
			once.Do(func() { close(other) })
		}
		if input == 0 && batches[0].Load() == 2 {
			overlapped.Store(awaitOr(t, other))
		}
	}
	c, err := takeCensusWith(context.Background(), paths, gdalio.SourceOptions{}, true, "", 3, 2, hook)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if batches[0].Load() < 3 {
		t.Fatalf("the first input came in %d batches: too few to tell", batches[0].Load())
	}
	if !overlapped.Load() {
		t.Fatal("no other input was read while the first one was")
	}
	f, err := c.Facts(target)
	if err != nil {
		t.Fatal(err)
	}
	if *f != *oneFacts || c.SRS != one.SRS || c.Extent != one.Extent || !slices.Equal(c.Files, one.Files) || c.tally != one.tally {
		t.Fatalf("side by side: facts %+v, files %+v, tally %+v; one by one: %+v, %+v, %+v", *f, c.Files, c.tally, *oneFacts, one.Files, one.tally)
	}
	sameSpill(t, c.Spill, one.Spill)
}

// sameSpill fails unless spills a and b hold the same samples in the same buckets, as a tile
// loads them.
func sameSpill(t *testing.T, a, b *Spill) {
	t.Helper()
	if a.seq != b.seq || a.end != b.end || len(a.buckets) != len(b.buckets) {
		t.Fatalf("%d samples in %d bytes and %d buckets; want %d in %d and %d", a.seq, a.end, len(a.buckets), b.seq, b.end, len(b.buckets))
	}
	for k := range b.buckets {
		got, want := &a.buckets[k], &b.buckets[k]
		if got.n != want.n || got.box != want.box {
			t.Fatalf("bucket %d holds %d samples in %v; want %d in %v", k, got.n, got.box, want.n, want.box)
		}
		if got.n == 0 {
			continue
		}
		pick := func(i int) bool { return i == k }
		x, err := a.load(context.Background(), nil, pick)
		if err != nil {
			t.Fatal(err)
		}
		y, err := b.load(context.Background(), nil, pick)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.QX, y.QX) || !slices.Equal(x.QY, y.QY) || !slices.Equal(x.Z, y.Z) || x.OriginX != y.OriginX || x.OriginY != y.OriginY {
			t.Fatalf("bucket %d loads other samples", k)
		}
	}
}

// A failure of the first input after its first batch, while the others are being read, stops
// them (they read no further than the batch each was handing over) and the census, which
// reports that failure and leaves no spill file, on disk or open. The first input's second
// batch waits until another input has handed over one; the others' first batches wait until
// the census fails.
func TestCensusFailureStopsTheOthers(t *testing.T) {
	dir := t.TempDir()
	paths := gridSurvey(t, dir, 2, 200000)
	// the first input's last point lies 2147 km west, beyond the int32 quanta of the read
	// origin, which the header's box (left as the other points') does not tell
	f := &lastest.File{Minor: 4, Format: 6, Scale: [3]float64{0.001, 0.001, 0.001}, Offset: [3]float64{450000, 5400000, 0}}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		// in a square metre: its buckets fill, and the spill makes files, before it fails
		f.Points = append(f.Points, lastest.Point{X: int32(rng.IntN(1000)), Y: int32(rng.IntN(1000)), Z: int32(rng.IntN(50e3)), Class: 2, Return: 1, Returns: 1})
	}
	data := f.Encode()
	f.Points = append(f.Points, lastest.Point{X: math.MinInt32, Y: 5})
	far := f.Encode()
	copy(far[179:], data[179:227]) // the extremes
	paths[0] = lastest.WriteFile(t, dir, "far.las", far)
	spillDir := t.TempDir()
	var batches [4]atomic.Int32
	var lost, alone atomic.Bool
	other := make(chan struct{})
	var once sync.Once
	hook := func(ctx context.Context, input int) {
		if batches[input].Add(1) == 1 && input != 0 {
			once.Do(func() { close(other) })
			// wait for the census to fail, as it will: the first input's last batch cannot be taken
			if !awaitOr(t, ctx.Done()) {
				lost.Store(true)
			}
		}
		if input == 0 && batches[0].Load() == 2 {
			if !awaitOr(t, other) {
				alone.Store(true)
			}
			// and until the first batch is in a spill file
			for len(openIn(t, spillDir)) == 0 && !alone.Load() {
				time.Sleep(time.Millisecond)
			}
		}
	}
	c, err := takeCensusWith(context.Background(), paths, gdalio.SourceOptions{}, true, spillDir, 4, 2, hook)
	if err == nil {
		c.Close()
		t.Fatal("the census of an input with a point beyond the quanta succeeded")
	}
	if alone.Load() {
		t.Fatal("no other input was read while the first one was")
	}
	if lost.Load() {
		t.Fatal("the other inputs were not stopped when the first failed")
	}
	if !errors.Is(err, lidar.ErrOffLattice) || !strings.Contains(err.Error(), "far.las") {
		t.Errorf("the census failed with %q, not the first input's failure", err)
	}
	if batches[0].Load() < 2 {
		t.Fatalf("the first input handed over %d batches before it failed: too few to tell", batches[0].Load())
	}
	for i := 1; i < len(paths); i++ {
		if n := batches[i].Load(); n > 1 {
			t.Errorf("input %d handed over %d batches after the first failed", i, n)
		}
	}
	if left, err := os.ReadDir(spillDir); err != nil || len(left) > 0 {
		t.Errorf("the spill's directory holds %v (%v)", left, err)
	}
	if open := openIn(t, spillDir); len(open) > 0 {
		t.Errorf("spill files still open: %v", open)
	}
}

// openIn lists the files in dir (removed or not) that the process holds open.
func openIn(t *testing.T, dir string) []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	var open []string
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, dir) {
			open = append(open, to)
		}
	}
	return open
}

// A spill saved for a plan's workers and opened again loads what it held: its writers' files
// become one, each block where its file's bytes land.
func TestSpillSavedFromManyFiles(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 400000, 5, false)
	target := raster.NorthUp(450000, 5400000, 450000+200, 5400000+150, 200, 150)
	c, err := takeCensus(context.Background(), paths, gdalio.SourceOptions{}, true, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Facts(target); err != nil {
		t.Fatal(err)
	}
	if len(c.Spill.files) < 2 {
		t.Fatalf("the spill has %d files: too few to tell", len(c.Spill.files))
	}
	dir := filepath.Join(t.TempDir(), "plan.samples")
	if err := c.Spill.Save(dir); err != nil {
		t.Fatal(err)
	}
	cx, cy := target.Centre()
	saved, err := OpenSpill(dir, cx, cy, c.n)
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Close()
	sameSpill(t, saved, c.Spill)
	a, err := saved.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Spill.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.QX, b.QX) || !slices.Equal(a.QY, b.QY) || !slices.Equal(a.Z, b.Z) || a.OriginX != b.OriginX {
		t.Fatal("the saved spill loads other samples")
	}
}
