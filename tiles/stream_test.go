package tiles

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/internal/testload"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// streamedRun grids the inputs tile by tile from a spill, a global form streaming the
// samples past the tiles' nodes about chunk at a time, loading the samples of blocks of
// loadSide nodes (0: the tile) around them.
func streamedRun(ctx context.Context, paths []string, target raster.Target, alg interp.Algorithm, side, chunk, loadSide int) ([][]float64, *Computer, error) {
	return streamedWindow(ctx, paths, target, alg, Tile{Cols: target.Cols, Rows: target.Rows}, side, chunk, loadSide)
}

// striped is target under a mask (a template's nodata) that skips every other band of rows
// right of column col, and every mod-th diagonal.
func striped(target raster.Target, rows, col, mod int) raster.Target {
	target.Mask = func(row0, n int, skip []bool) error {
		for r := range n {
			for k := range target.Cols {
				skip[r*target.Cols+k] = (row0+r)/rows%2 == 0 && k > col || (k+row0+r)%mod == 0
			}
		}
		return nil
	}
	return target
}

// streamedWindow is streamedRun of the window win alone, by a computer of its own.
func streamedWindow(ctx context.Context, paths []string, target raster.Target, alg interp.Algorithm, win Tile, side, chunk, loadSide int) ([][]float64, *Computer, error) {
	census, err := TakeCensus(ctx, paths, gdalio.SourceOptions{}, true, "", 0)
	if err != nil {
		return nil, nil, err
	}
	defer census.Close()
	facts, err := census.Facts(target)
	if err != nil {
		return nil, nil, err
	}
	plan := NewPlan(target, facts, alg)
	plan.Chunk, plan.LoadSide = chunk, loadSide
	c, err := NewComputer(Config{Target: target, Alg: alg, Threads: 2, Plan: plan}, facts, census.Spill)
	if err != nil {
		return nil, nil, err
	}
	out, err := runWindow(ctx, c, win, side)
	return out, c, err
}

// runWindow is RunWindow's raster of window win, band by band.
func runWindow(ctx context.Context, c *Computer, win Tile, side int) ([][]float64, error) {
	out := make([][]float64, c.Bands())
	err := RunWindow(ctx, c, win, side, func(row0, rows int, bands [][]float64) error {
		for k, b := range bands {
			out[k] = append(out[k], b...)
		}
		return nil
	})
	return out, err
}

// planFar builds the far field of alg's job over the LAS files paths onto target once, as
// aidw plan does (from the census's spill, its powers from tiles of 200 nodes), into path,
// and returns its proof.
func planFar(t *testing.T, paths []string, target raster.Target, alg interp.Algorithm, path string) FileProof {
	t.Helper()
	census, facts := spilledCensus(t, paths, target)
	c, err := NewComputer(Config{Target: target, Alg: alg, Threads: 2}, facts, census.Spill)
	if err != nil {
		t.Fatal(err)
	}
	if !c.FarField() {
		t.Fatalf("the job does not use the far field")
	}
	proof, err := WriteFarField(context.Background(), c, 200, path, func(float64) {})
	if err != nil {
		t.Fatal(err)
	}
	if c.farBuilds.Load() != 1 {
		t.Fatalf("the plan built the far field %d times", c.farBuilds.Load())
	}
	return *proof
}

// plannedTile computes the window win of alg's job over the LAS files paths onto target as a
// plan's worker does: its samples read from the files by region, the far field from path.
func plannedTile(ctx context.Context, paths []string, target raster.Target, alg interp.Algorithm, win Tile, path string, proof FileProof) ([][]float64, *Computer, error) {
	c, done, err := plannedComputer(ctx, paths, target, alg)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	if err := ReadFarField(ctx, c, path, proof); err != nil {
		return nil, c, err
	}
	out, err := runWindow(ctx, c, win, max(win.Cols, win.Rows))
	return out, c, err
}

// plannedComputer is the computer of a plan's worker for alg's job over the LAS files paths
// onto target, which reads them by region; done releases it.
func plannedComputer(ctx context.Context, paths []string, target raster.Target, alg interp.Algorithm) (*Computer, func(), error) {
	census, err := TakeCensus(ctx, paths, gdalio.SourceOptions{}, false, "", 0)
	if err != nil {
		return nil, nil, err
	}
	facts, err := census.Facts(target)
	var las *LAS
	if err == nil {
		las, err = census.LAS(target)
	}
	var c *Computer
	if err == nil {
		c, err = NewComputer(Config{Target: target, Alg: alg, Threads: 2}, facts, las)
	}
	if err != nil {
		census.Close()
		return nil, nil, err
	}
	return c, func() { census.Close() }, nil
}

// window is the values of tile tl of a raster cols nodes wide, band by band.
func window(bands [][]float64, cols int, tl Tile) [][]float64 {
	out := make([][]float64, len(bands))
	for k, b := range bands {
		for r := tl.Row0; r < tl.Row0+tl.Rows; r++ {
			out[k] = append(out[k], b[r*cols+tl.Col0:r*cols+tl.Col0+tl.Cols]...)
		}
	}
	return out
}

// The global forms streamed in chunks far smaller than the job, past tiles smaller than
// AIDW's neighbourhoods, give the in-memory raster bit for bit: LAS (compact samples in the
// canonical order), one text file (its own input order) and two (the canonical order).
func TestStreamedEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	las := lastest.Survey(t, dir, 3000, 1, false)
	one := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, one[0], 3000, 1)
	two := []string{filepath.Join(dir, "b.csv"), filepath.Join(dir, "c.csv")}
	writeCSV(t, two[0], 1500, 2)
	writeCSV(t, two[1], 1500, 3)
	inexact := []string{filepath.Join(dir, "d.csv")}
	writeInexactCSV(t, inexact[0], 3000, 4)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 37, 29)
	algs := []string{"aidw", "aidw:farfield=no:k=8:diagnostics=yes", "average", "minimum", "maximum", "range",
		"count", "average_distance", "average:min_points=5000:nodata=-1", "average_distance_pts", "invdist",
		"invdist:power=3:smoothing=1"}
	for _, a := range algs {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		for name, paths := range map[string][]string{"las": las, "one csv": one, "two csv": two, "inexact csv": inexact} {
			target := target
			if name == "inexact csv" {
				target = raster.NorthUp(-3, -2, 205, 152, 37, 29)
			}
			want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
			for _, chunk := range []int{37, 1000} {
				got, c, err := streamedRun(context.Background(), paths, target, alg, 9, chunk, chunk/300)
				if err != nil {
					t.Fatalf("%s on %s, chunks of %d: %v", a, name, chunk, err)
				}
				what := fmt.Sprintf("%s on %s, chunks of %d", a, name, chunk)
				sameBits(t, what, got, want)
				t.Logf("%-45s %3d loads, %7d samples loaded", what, c.Loads.Load(), c.Loaded.Load())
				// a value the same at every node streams once; average_distance_pts once a block of rows
				passes := 1
				if a == "average_distance_pts" {
					passes = (c.facts.N + chunk - 1) / chunk
				}
				if constant := !strings.HasPrefix(a, "aidw") && !strings.HasPrefix(a, "invdist") && a != "average_distance"; constant && c.Loaded.Load() != int64(passes*c.facts.N) {
					t.Errorf("%s: %d samples loaded for a value the same at every node, want the job's %d %d times", what, c.Loaded.Load(), c.facts.N, passes)
				}
			}
		}
	}
}

// invdist's far-field tree streamed past tiles that cut its leaves gives the in-memory raster
// bit for bit, on compact (LAS) and plain samples, and under a mask.
func TestStreamedInvDistTreeEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	las := lastest.Survey(t, dir, 3000, 1, false)
	one := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, one[0], 3000, 1)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 110, 90)
	masked := striped(target, 20, 50, 7)
	alg, _, err := interp.ParseAlgorithm("invdist")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		paths  []string
		target raster.Target
	}{"las": {las, target}, "one csv": {one, target}, "one csv, masked": {one, masked}} {
		want := inMemory(t, c.paths, gdalio.SourceOptions{}, c.target, alg)
		got, _, err := streamedRun(context.Background(), c.paths, c.target, alg, 37, 700, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameBits(t, "invdist's tree on "+name, got, want)
	}
}

// A spill streams its samples in Load(nil)'s order, sample for sample, in chunks of about
// the size asked: by places in the input for one text file, by rows of buckets for LAS, and
// by slabs of y within a row that holds more than a chunk.
func TestSpillStreamsInLoadOrder(t *testing.T) {
	dir := t.TempDir()
	las := lastest.Survey(t, dir, 3000, 1, false)
	one := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, one[0], 3000, 1)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 37, 29)
	ctx := context.Background()
	for name, paths := range map[string][]string{"las": las, "one csv": one} {
		census, err := TakeCensus(ctx, paths, gdalio.SourceOptions{}, true, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := census.Facts(target); err != nil {
			t.Fatal(err)
		}
		all, err := census.Spill.Load(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{200, 10} {
			at, chunks, most := 0, 0, 0
			err = census.Spill.Stream(ctx, chunk, func(s *sample.Samples) error {
				chunks++
				// a chunk larger than asked must be a bin of y of more than a chunk at one y
				ys := map[float64]int{}
				common := 0
				for i := range int32(s.Len()) {
					_, y := s.XY(i)
					ys[y]++
					common = max(common, ys[y])
				}
				if s.Len() > 2*chunk && common <= chunk {
					return fmt.Errorf("a chunk of %d samples, none more than %d at one y, for chunks of %d", s.Len(), common, chunk)
				}
				most = max(most, s.Len())
				for i := range int32(s.Len()) {
					x, y := s.XY(i)
					wx, wy := all.XY(int32(at))
					if math.Float64bits(x) != math.Float64bits(wx) || math.Float64bits(y) != math.Float64bits(wy) || math.Float64bits(s.Z[i]) != math.Float64bits(all.Z[at]) {
						return fmt.Errorf("sample %d streamed as (%v %v %v), loaded as (%v %v %v)", at, x, y, s.Z[i], wx, wy, all.Z[at])
					}
					at++
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if at != all.Len() || chunks < 5 {
				t.Fatalf("%s: %d samples in %d chunks of at most %d, want %d in several of about %d", name, at, chunks, most, all.Len(), chunk)
			}
			t.Logf("%s: chunks of %d: %d chunks, the largest %d", name, chunk, chunks, most)
		}
		census.Close()
	}
}

// A streamed run stops within a second of an interrupt: it does at most a fifth of a second
// of CPU work after it (which load does not stretch), and takes at most a second of wall
// time times the machine's load factor (internal/testload).
func TestStreamedStops(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, paths[0], 20000, 5)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 400, 300)
	// exact sums, the far field (120,000 nodes: 2.4e9 pairs), every pair of samples and
	// invdist's tree, interrupted at several points
	for _, a := range []string{"aidw:farfield=no", "aidw", "average_distance_pts", "invdist"} {
		alg, _, _ := interp.ParseAlgorithm(a)
		for _, after := range []time.Duration{200 * time.Millisecond, 700 * time.Millisecond} {
			load := testload.Factor()
			ctx, cancel := context.WithCancel(context.Background())
			var cancelled atomic.Bool
			var at time.Time
			var cpuAt time.Duration
			timer := time.AfterFunc(after, func() {
				at, cpuAt = time.Now(), processCPU()
				cancelled.Store(true)
				cancel()
			})
			_, _, err := streamedRun(ctx, paths, target, alg, 200, 5000, 0)
			done, cpuDone := time.Now(), processCPU()
			timer.Stop()
			cancel()
			if !cancelled.Load() {
				if err != nil {
					t.Fatalf("%s: %v before any interrupt", a, err)
				}
				continue // finished first
			}
			took, cpu := done.Sub(at), cpuDone-cpuAt
			t.Logf("%s interrupted after %v: stopped %v later, %v of CPU (load factor %.1f)", a, after, took, cpu, load)
			if err == nil || took > testload.Bound(time.Second, load) || cpu > testload.Scale(time.Second/5) {
				t.Fatalf("%s interrupted after %v: %v, %v later and %v of CPU (load factor %.1f)", a, after, err, took, cpu, load)
			}
		}
	}
}

// processCPU is this process's CPU time (user and system) so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Global AIDW above the far field's thresholds (10,000 samples, 2e9 sample-node pairs),
// streamed in chunks past tiles, gives the in-memory raster (far field and all) bit for bit:
// the field's charges from the stream, its powers from every node's tile and halo, each
// tile's near fields from the leaves around it; under a mask too.
func TestStreamedFarFieldEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	las := lastest.Survey(t, dir, 10000, 4, false)
	one := []string{filepath.Join(dir, "a.csv")}
	writeCSV(t, one[0], 10000, 4)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 500, 400)
	alg, _, err := interp.ParseAlgorithm("aidw:diagnostics=yes")
	if err != nil {
		t.Fatal(err)
	}
	for name, paths := range map[string][]string{"las": las, "one csv": one} {
		want := inMemory(t, paths, gdalio.SourceOptions{}, target, alg)
		start := time.Now()
		got, c, err := streamedRun(context.Background(), paths, target, alg, 128, 1500, 50)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.far == nil {
			t.Fatalf("%s: the far field was not used", name)
		}
		sameBits(t, "far field on "+name, got, want)
		t.Logf("far field on %s: %d loads, %d samples loaded, %v", name, c.Loads.Load(), c.Loaded.Load(), time.Since(start))
	}
	// a plan's tiles, each computed by a process of its own, read the far field that the plan
	// built once (WriteFarField, ReadFarField) and load from the LAS files, which cannot
	// stream, only the samples around their nodes: the same bits, and no field built again
	want := inMemory(t, las, gdalio.SourceOptions{}, target, alg)
	path := filepath.Join(dir, "plan.farfield")
	proof := planFar(t, las, target, alg, path)
	ts, _ := Split(target, 256)
	for _, tl := range ts {
		start := time.Now()
		got, c, err := plannedTile(context.Background(), las, target, alg, tl, path, proof)
		if err != nil {
			t.Fatalf("tile %+v on its own: %v", tl, err)
		}
		if c.far == nil || c.farBuilds.Load() != 0 {
			t.Fatalf("tile %+v on its own: far field %v, built %d times, want read from the plan", tl, c.far != nil, c.farBuilds.Load())
		}
		sameBits(t, fmt.Sprintf("far field, tile %+v on its own", tl), got, window(want, target.Cols, tl))
		t.Logf("far field, tile %+v on its own: %d samples loaded, %v", tl, c.Loaded.Load(), time.Since(start))
	}
	// a mask (a template's nodata) skips nodes, whose powers the field is still built with
	masked := striped(target, 40, 200, 9)
	for _, a := range []string{"aidw", "range"} {
		alg, _, _ := interp.ParseAlgorithm(a)
		want := inMemory(t, one, gdalio.SourceOptions{}, masked, alg)
		got, _, err := streamedRun(context.Background(), one, masked, alg, 128, 1500, 0)
		if err != nil {
			t.Fatalf("%s masked: %v", a, err)
		}
		sameBits(t, a+" masked", got, want)
	}
}

// writeInexactCSV writes n uniform points with two decimals, which binary fractions do not
// hold, over 200 x 150 from (0, 0): far from the origin by more than their own size, the
// reader's origin (the first sample) rounds them otherwise than absolute coordinates would.
func writeInexactCSV(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for range n {
		fmt.Fprintf(&b, "%.2f,%.2f,%.3f\n", rng.Float64()*200, rng.Float64()*150, 10+rng.NormFloat64())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// One text input of coordinates that binary fractions do not hold is spilled relative to the
// reader's origin, as the in-memory run holds it: its tiles give the in-memory raster bit for
// bit (absolute coordinates in the spill rounded otherwise, a few ulps off at many nodes).
func TestTiledInexactTextEqualsInMemory(t *testing.T) {
	paths := []string{filepath.Join(t.TempDir(), "d.csv")}
	writeInexactCSV(t, paths[0], 3000, 5)
	target := raster.NorthUp(-3, -2, 205, 152, 53, 41)
	for _, a := range []string{"aidw:max_points=12", "nearest", "linear", "invdistnn:radius=9:max_points=12", "average_distance"} {
		alg, _, err := interp.ParseAlgorithm(a)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := tiled(paths, gdalio.SourceOptions{}, target, alg, 6, true)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		sameBits(t, a+" on inexact text", got, inMemory(t, paths, gdalio.SourceOptions{}, target, alg))
	}
}

// spilledCensus takes the census of the files paths with their samples spilled, as a tiled run
// does, and its facts about target; the census closes with the test.
func spilledCensus(t *testing.T, paths []string, target raster.Target) (*Census, *Facts) {
	t.Helper()
	return spilledCensusBy(t, paths, target, censusReaders(0))
}

// spilledCensusBy is spilledCensus with readers inputs read side by side.
func spilledCensusBy(t *testing.T, paths []string, target raster.Target, readers int) (*Census, *Facts) {
	t.Helper()
	census, err := takeCensus(context.Background(), paths, gdalio.SourceOptions{}, true, "", readers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { census.Close() })
	facts, err := census.Facts(target)
	if err != nil {
		t.Fatal(err)
	}
	return census, facts
}

// The census reads compact LAS inputs side by side: it finds what one reader finds, input by
// input, and spills the same samples into the same buckets (in another order within them,
// which a load's canonical order undoes). Two surveys of one area overlap, on the 1 m
// lattice, where points share a place.
func TestCensusReadersAgree(t *testing.T) {
	dir := t.TempDir()
	paths := append(lastest.Survey(t, filepath.Join(dir, "a"), 20000, 3, true), lastest.Survey(t, filepath.Join(dir, "b"), 20000, 4, true)...)
	target := raster.NorthUp(450000-3, 5400000-2, 450000+205, 5400000+152, 61, 47)
	one, oneFacts := spilledCensusBy(t, paths, target, 1)
	for _, readers := range []int{2, 4} {
		c, f := spilledCensusBy(t, paths, target, readers)
		if *f != *oneFacts || c.SRS != one.SRS || c.Extent != one.Extent || !slices.Equal(c.Files, one.Files) {
			t.Fatalf("%d readers: facts %+v, files %+v; one reader: %+v, %+v", readers, *f, c.Files, *oneFacts, one.Files)
		}
		sameSpill(t, c.Spill, one.Spill)
	}
}

// A load from the spill takes room for the samples it keeps, not for every sample of the
// buckets it reads: it took the latter, and when they were more than an eighth more, the
// canonical order made the samples again to their own size, three copies at once.
func TestSpillLoadMemoryFollowsKept(t *testing.T) {
	paths := lastest.Survey(t, t.TempDir(), 1000000, 5, false)
	target := raster.NorthUp(450000, 5400000, 450000+200, 5400000+150, 200, 150)
	census, _ := spilledCensus(t, paths, target)
	// a region six buckets wide (a tile's is ten at 1e9 samples), whose buckets hold a fifth
	// more samples than it
	region := [4]float64{450000 + 80.3, 5400000 + 60.1, 450000 + 96.9, 5400000 + 76.4}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := census.Spill.Load(context.Background(), &region)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, k := range census.Spill.buckets {
		if k.n > 0 && Intersects(k.box, region) {
			read += k.n
		}
	}
	kept := s.Len()
	got := float64(after.TotalAlloc-before.TotalAlloc) / float64(kept)
	t.Logf("%d samples kept of %d read: %.1f bytes allocated a sample kept", kept, read, got)
	if read < kept*6/5 {
		t.Fatalf("the region cuts too few buckets to tell: %d samples read for %d kept", read, kept)
	}
	// the samples (16 bytes a compact one), the canonical order's records (16), the cut
	// buckets' samples read before their places are known (16 a sample of theirs), and the
	// blocks read; before, 16 a sample read, then 16 and 16 again
	if got > 48 {
		t.Errorf("a load allocated %.1f bytes a sample kept, more than 48", got)
	}
}
