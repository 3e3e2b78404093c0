//go:build cuda

package kernels

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/raster"
)

// Benchmarks time device work with CUDA events (medians after a warm-up) and whole pipelines
// with the wall clock; run them once each: go test -tags cuda -run '^$' -bench . -benchtime 1x.
// Every figure is also printed as "RESULT name value unit" for bench/results.

// timeDevice runs f once to warm up, then reps times between two events, and returns the
// median milliseconds (device thread only).
func timeDevice(reps int, f func() error) (float64, error) {
	a, err := cuda.NewEvent(true)
	if err != nil {
		return 0, err
	}
	defer a.Destroy()
	b, err := cuda.NewEvent(true)
	if err != nil {
		return 0, err
	}
	defer b.Destroy()
	if err := f(); err != nil {
		return 0, err
	}
	ms := make([]float64, reps)
	for i := range ms {
		if err := a.Record(); err != nil {
			return 0, err
		}
		if err := f(); err != nil {
			return 0, err
		}
		if err := b.Record(); err != nil {
			return 0, err
		}
		if err := b.Synchronize(); err != nil {
			return 0, err
		}
		if ms[i], err = a.Elapsed(b); err != nil {
			return 0, err
		}
	}
	return median(ms), nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// pipelineWall is the median wall-clock milliseconds of interp.Grid's work on the engine,
// after a warm-up: Prepare (uploads, build), Compute block by block (kNN, weighting, download)
// and Close; it also reports the median of each phase.
func pipelineWall(b *testing.B, name string, e interp.Engine, p *interp.Problem) float64 {
	const runs = 4
	var prep, comp, total [runs]float64
	cols := p.Target.Cols
	step := min(raster.BlockRows(cols), p.Target.Rows)
	blk := &interp.Block{Values: make([]float64, step*cols)}
	for i := range runs {
		t0 := time.Now()
		pr, err := e.Prepare(b.Context(), p)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		for row0 := 0; row0 < p.Target.Rows; row0 += step {
			blk.Row0, blk.Rows = row0, min(step, p.Target.Rows-row0)
			blk.Values = blk.Values[:blk.Rows*cols]
			if err := pr.Compute(b.Context(), blk); err != nil {
				b.Fatal(err)
			}
		}
		t2 := time.Now()
		if err := pr.Close(); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		prep[i], comp[i], total[i] = ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t0))
	}
	result(b, name+"-prepare", median(prep[1:]), "ms")
	result(b, name+"-compute", median(comp[1:]), "ms")
	return median(total[1:])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func result(b *testing.B, name string, v float64, unit string) {
	fmt.Printf("RESULT %-44s %14.6g %s\n", name, v, unit)
	b.ReportMetric(v, unit+"/"+name)
}

// BenchmarkGridBuild: the grid build of 10,000,000 uniform samples (bounds, keys, sort,
// reduce-by-key, scan: the stages CUB's SortPairs + ReduceByKey are the yardstick of), the
// gather into cell order, and each stage alone. The builder is warm: no allocation is timed.
func BenchmarkGridBuild(b *testing.B) {
	d := uniformSet(61, 10_000_000, 0, 0, 1e4, 1, 1)
	s := d.samples
	n := s.Len()
	names := []string{"cells", "build-with-gather", "bounds", "keys", "sort", "count", "scan", "gather",
		"sort-pass-upsweep", "sort-pass-upsweep+digit-scan", "sort-pass-all-three"}
	times := make([]float64, len(names))
	err := testDev.Do(func() error {
		var x, y, z cuda.Buffer
		defer cuda.FreeAll(&x, &y, &z)
		var err error
		if x, err = cuda.UploadNew(s.X); err != nil {
			return err
		}
		if y, err = cuda.UploadNew(s.Y); err != nil {
			return err
		}
		if z, err = cuda.UploadNew(s.Z); err != nil {
			return err
		}
		bld := newBuilder(testDev)
		defer bld.free()
		if _, err := bld.build(x, y, z, n); err != nil {
			return err
		}
		l := bld.ix.layout
		cells := l.Cells()
		tiles := cuda.Blocks(n, sortTile)
		// One pass of the sort (the second: shift 8), kernel by kernel; digit_scan works in
		// place, so each timing reruns what comes before it.
		upsweep := func() error {
			return radixUpsweep(testDev, tiles, bld.keys, n, 8, bld.digits)
		}
		digitScan := func() error {
			return radixDigitScan(testDev, bld.digits, tiles, bld.totals)
		}
		downsweep := func() error {
			return radixDownsweep(testDev, tiles, bld.keys, bld.ix.order, bld.k[1], bld.v[1], n, 8, bld.digits, bld.totals)
		}
		stages := []func() error{
			func() error { return bld.buildCells(x, y, n) },
			func() error { _, err := bld.build(x, y, z, n); return err },
			func() error { _, _, _, _, err := bld.bounds(x, y, n); return err },
			func() error { return bld.cellKeys(x, y, n, l, bld.keys) },
			func() error { return bld.sortPairs(bld.keys, n, cells, bld.sorted, bld.ix.order) },
			func() error { return bld.countByKey(bld.sorted, n, cells, bld.counts) },
			func() error { return bld.scan(bld.counts, bld.ix.start, cells, cuda.At[int32](bld.ix.start, cells)) },
			func() error { return bld.gather(&bld.ix, x, y, z) },
			upsweep,
			func() error { return errors.Join(upsweep(), digitScan()) },
			func() error { return errors.Join(upsweep(), digitScan(), downsweep()) },
		}
		for i, f := range stages {
			if times[i], err = timeDevice(10, f); err != nil {
				return err
			}
		}
		fmt.Printf("layout: %d x %d cells of %g for %d samples\n", l.Cols, l.Rows, l.Cell, n)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for i, name := range names {
		result(b, "grid-1e7-"+name, times[i], "ms")
	}
}

// globalSet is the papers' benchmark: 1,024,000 uniform samples and 1,024,000 nodes over
// the same square.
func globalSet() dataset { return uniformSet(71, 1_024_000, 0, 0, 1000, 1024, 1000) }

// BenchmarkKNN: k = 15 for every node, the grid's ring search against brute force.
func BenchmarkKNN(b *testing.B) {
	d := globalSet()
	p := &interp.Problem{Samples: d.samples, Target: d.target}
	count := d.target.Cols * d.target.Rows
	const k = 15
	var grid, prep, brute float64
	err := testDev.Do(func() error {
		ix, err := indexSamples(testDev, d.samples, nil)
		if err != nil {
			return err
		}
		defer ix.free()
		w, err := weightingOf(&interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(b, "aidw")}, ix.box)
		if err != nil {
			return err
		}
		w.prob.NQ = k // the neighbour list of k; node_prep's r_obs needs no more
		pb, err := cuda.UploadNew([]problem{deviceProblem(w.prob, ix, p.Target, p.Samples.OriginX, p.Samples.OriginY)})
		if err != nil {
			return err
		}
		defer pb.Free()
		ids, err := cuda.AllocN[int32](k * count)
		if err != nil {
			return err
		}
		defer ids.Free()
		d2, err := cuda.AllocN[float64](k * count)
		if err != nil {
			return err
		}
		defer d2.Free()
		cnt, err := cuda.AllocN[int32](count)
		if err != nil {
			return err
		}
		defer cnt.Free()
		if grid, err = timeDevice(10, func() error {
			return knnList(testDev, 16, pb, 0, 0, count, cuda.Buffer{}, ids, d2, cnt)
		}); err != nil {
			return err
		}
		c, err := nodeXYOnDevice(pb, count)
		if err != nil {
			return err
		}
		defer c.free()
		if prep, err = timeDevice(10, func() error {
			return nodePrep(testDev, 16, pb, 0, 0, count, cuda.Buffer{}, c.px, c.py, c.pc, c.pc0, c.pd2, c.hit, c.nearPos, c.nearD2)
		}); err != nil {
			return err
		}
		brute, err = timeDevice(3, func() error {
			return knnBruteF32(testDev, pb, ix.s32, c.px, c.py, count, ids, d2)
		})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	result(b, "knn-k15-1024000-grid", grid, "ms")
	result(b, "knn-k15-1024000-nodeprep", prep, "ms")
	result(b, "knn-k15-1024000-brute-f32", brute, "ms")
	result(b, "knn-k15-speedup-vs-brute", brute/grid, "x")
}

// BenchmarkGlobalAIDW: the weighting kernels on 1,024,000 x 1,024,000 pairs (k = 15), then
// the whole pipeline through interp.Grid (uploads, build, kNN, weighting, download).
func BenchmarkGlobalAIDW(b *testing.B) {
	d := globalSet()
	alg := mustParse(b, "aidw")
	p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: alg}
	count := d.target.Cols * d.target.Rows
	pairs := float64(count) * float64(d.samples.Len())
	variants := []string{"weigh_all_f32_4_0", "weigh_all_f32_4_1", "weigh_all_f32_6_2", "weigh_naive_f32",
		"weigh_all_f64"}
	times := map[string]float64{}
	e := NewEngine(testDev)
	pr, err := e.Prepare(b.Context(), p)
	if err != nil {
		b.Fatal(err)
	}
	pp := pr.(*prepared)
	err = testDev.Do(func() error {
		for _, v := range variants {
			e.f32Kernel, e.Float64 = v, v == "weigh_all_f64"
			n, reps := count, 3
			if v == "weigh_all_f64" || v == "weigh_naive_f32" {
				n, reps = count/16, 1
			}
			c := &chunker{pp: pp}
			err := c.alloc(n)
			if err == nil {
				err = c.prepNodes(0, 0, n)
			}
			var ms float64
			if err == nil {
				ms, err = timeDevice(reps, func() error { return c.weighAll(0, n) })
			}
			c.free()
			if err != nil {
				return err
			}
			times[v] = ms * float64(count) / float64(n)
		}
		return nil
	})
	pr.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range variants {
		result(b, "global-aidw-1024000-"+v, times[v], "ms")
		result(b, "global-aidw-pairs-per-s-"+v, pairs/(times[v]/1e3), "pairs/s")
	}
	result(b, "global-aidw-1024000-pipeline-wall", pipelineWall(b, "global-aidw-1024000", NewEngine(testDev), p), "ms")
}

// BenchmarkLocalAIDW: max_points = 15 from 10,000,000 samples onto 4096 x 4096 nodes, the
// kernel alone and the whole pipeline through interp.Grid.
func BenchmarkLocalAIDW(b *testing.B) {
	d := uniformSet(81, 10_000_000, 0, 0, 4096, 4096, 4096)
	p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(b, "aidw:max_points=15")}
	count := d.target.Cols * d.target.Rows
	e := NewEngine(testDev)
	pr, err := e.Prepare(b.Context(), p)
	if err != nil {
		b.Fatal(err)
	}
	pp := pr.(*prepared)
	var kernel, up, down, stagedUp, stagedDown, build1, build2, free float64
	err = testDev.Do(func() error {
		// The prepare phase, step by step.
		var xyz [3]cuda.Buffer
		t0 := time.Now()
		for i, v := range [][]float64{d.samples.X, d.samples.Y, d.samples.Z} {
			var err error
			if xyz[i], err = cuda.UploadNew(v); err != nil {
				return err
			}
		}
		up = ms(time.Since(t0))
		bld := newBuilder(testDev)
		for _, t := range []*float64{&build1, &build2} {
			t0 = time.Now()
			if _, err := bld.build(xyz[0], xyz[1], xyz[2], d.samples.Len()); err != nil {
				return err
			}
			if err := cuda.Synchronize("build"); err != nil {
				return err
			}
			*t = ms(time.Since(t0))
		}
		t0 = time.Now()
		ix := bld.take()
		bld.free()
		ix.free()
		cuda.FreeAll(&xyz[0], &xyz[1], &xyz[2])
		free = ms(time.Since(t0))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	result(b, "local-prepare-upload-240MB", up, "ms")
	result(b, "local-prepare-build-first", build1, "ms")
	result(b, "local-prepare-build-again", build2, "ms")
	result(b, "local-prepare-free", free, "ms")
	err = testDev.Do(func() error {
		t0 := time.Now()
		x, err := cuda.UploadNew(d.samples.X)
		if err != nil {
			return err
		}
		up = ms(time.Since(t0))
		defer x.Free()
		tmp := slices.Clone(d.samples.X) // pages already touched, like a block's Values
		t0 = time.Now()
		if err := cuda.Download(tmp, x, 0); err != nil {
			return err
		}
		down = ms(time.Since(t0))
		// the same copies through the pinned staging buffers
		t0 = time.Now()
		if err := cuda.UploadStaged(testDev, x, d.samples.X); err != nil {
			return err
		}
		stagedUp = ms(time.Since(t0))
		t0 = time.Now()
		if err := cuda.DownloadStaged(testDev, tmp, x, 0); err != nil {
			return err
		}
		stagedDown = ms(time.Since(t0))
		if !slices.Equal(tmp, d.samples.X) {
			return fmt.Errorf("a staged round trip changed the values")
		}
		out, err := cuda.AllocN[float64](count)
		if err != nil {
			return err
		}
		defer out.Free()
		kernel, err = timeDevice(3, func() error {
			return local(testDev, 16, pp.prob, 0, 0, count, cuda.Buffer{}, out, cuda.Buffer{})
		})
		return err
	})
	pr.Close()
	if err != nil {
		b.Fatal(err)
	}
	result(b, "pageable-upload-80MB", up, "ms")
	result(b, "pageable-download-80MB", down, "ms")
	result(b, "staged-upload-80MB", stagedUp, "ms")
	result(b, "staged-download-80MB", stagedDown, "ms")
	result(b, "local-aidw-1e7-4096x4096-kernel", kernel, "ms")
	result(b, "local-aidw-1e7-4096x4096-pipeline-wall", pipelineWall(b, "local-aidw-1e7-4096x4096", e, p), "ms")
}

// BenchmarkFarField: global AIDW by far field, 1,024,000 samples onto 1,024,000 nodes and 1e7
// onto 1e7: the tree's build on the device (sort into leaves, charges), node_prep and the far
// weighting apart (CUDA events), then the whole pipeline through interp.Grid.
func BenchmarkFarField(b *testing.B) {
	for _, d := range []dataset{globalSet(), uniformSet(72, 10_000_000, 0, 0, 1000, 3200, 3125)} {
		p := &interp.Problem{Samples: d.samples, Target: d.target, Alg: mustParse(b, "aidw")}
		name := fmt.Sprintf("farfield-aidw-%d", d.samples.Len())
		count := d.target.Cols * d.target.Rows
		e := NewEngine(testDev)
		e.FarField = FarFieldOn
		pr, err := e.Prepare(b.Context(), p)
		if err != nil {
			b.Fatal(err)
		}
		pp := pr.(*prepared)
		if pp.far == nil {
			b.Fatal("no far field")
		}
		dp, _, _ := p.Alg.(interp.DeviceAlgorithm).DeviceParams(nil, interp.Bounds{})
		sh, err := farShape(p, dp, pp.ix.box)
		if err != nil {
			b.Fatal(err)
		}
		result(b, name+"-order", float64(sh.Order), "points")
		result(b, name+"-depth", float64(sh.Depth), "levels")
		var build, prep, weigh float64
		err = testDev.Do(func() error {
			x, y, z, err := uploadSamples(testDev, d.samples)
			if err != nil {
				return err
			}
			defer cuda.FreeAll(&x, &y, &z)
			if build, err = timeDevice(3, func() error {
				f, err := buildFarField(testDev, x, y, z, d.samples.Len(), sh)
				if err == nil {
					f.free()
				}
				return err
			}); err != nil {
				return err
			}
			c := &chunker{pp: pp}
			if err := c.alloc(count); err != nil {
				return err
			}
			defer c.free()
			n := c.size
			if prep, err = timeDevice(3, func() error { return c.prepNodes(0, 0, n) }); err != nil {
				return err
			}
			weigh, err = timeDevice(3, func() error {
				return farWeigh(testDev, pp.far.order, pp.prob, pp.far.tree, c.px, c.py, c.pc, c.pc0, c.hit, c.nearPos,
					c.nearD2, n, c.out)
			})
			prep, weigh = prep*float64(count)/float64(n), weigh*float64(count)/float64(n)
			return err
		})
		pr.Close()
		if err != nil {
			b.Fatal(err)
		}
		result(b, name+"-tree-build", build, "ms")
		result(b, name+"-node-prep", prep, "ms")
		result(b, name+"-weigh", weigh, "ms")
		result(b, name+"-pipeline-wall", pipelineWall(b, name, e, p), "ms")
	}
}
