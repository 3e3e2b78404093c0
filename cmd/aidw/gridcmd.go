package main

import (
	"context"
	"io"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/gridding"
	"github.com/aidw/aidw/internal/memory"
)

// runGrid is `aidw grid`: the flags as options, and one call; arena (nil for none) holds
// the big arrays of an in-memory run.
func runGrid(ctx context.Context, a *gridArgs, arena *memory.Arena, stdout, stderr io.Writer) error {
	if err := gdalio.SetConfig(a.config); err != nil {
		return err
	}
	o, err := a.options(stdout, stderr)
	if err != nil {
		return err
	}
	o.Arena = arena
	return gridding.Grid(ctx, o)
}

// options are the command line's gridding options: GDAL_NUM_THREADS resolved, progress
// printed as GDAL's tools print it and the report on stdout unless -q, warnings on stderr.
func (a *gridArgs) options(stdout, stderr io.Writer) (*gridding.Options, error) {
	threads, err := a.threadCount()
	if err != nil {
		return nil, err
	}
	o := &gridding.Options{Sources: a.srcs, Dest: a.dst, Algorithm: a.alg, Select: a.sourceOptions(),
		Like: a.like, TXE: a.txe, TYE: a.tye, TR: a.tr, Outsize: a.outsize, TAP: a.tap,
		SRS: a.srs, Format: a.format, Type: a.outType, Creation: a.creation, Preview: a.preview,
		Threads: threads, Device: a.device, GPUs: a.gpus, TileSide: a.tiles.side, Memory: a.tiles.memory,
		Version: versionString(), Warnings: stderr}
	if !a.quiet {
		o.Report, o.Progress = stdout, progressOn(stdout)
	}
	return o, nil
}

// progressOn is a progress callback that prints GDAL's progress line on w, started at the
// first report.
func progressOn(w io.Writer) func(float64) {
	var bar *termProgress
	return func(done float64) {
		if bar == nil {
			bar = newTermProgress(w)
		}
		bar.Update(done)
	}
}

// sourceOptions are the flags that select and filter the samples.
func (a *gridArgs) sourceOptions() gdalio.SourceOptions {
	o := gdalio.SourceOptions{Layers: a.layers, SQL: a.sqls, Where: a.where, ZField: a.zfield,
		ZIncrease: a.zIncrease, ZMultiply: &a.zMultiply, OpenOptions: a.openOptions,
		ClipSrc: a.clipsrc, ClipSrcSQL: a.clipsrcSQL, ClipSrcLayer: a.clipsrcLayer,
		ClipSrcWhere: a.clipsrcWhere, LAS: a.las}
	if a.spat != nil {
		o.Spat = &[4]float64{a.spat[0], a.spat[1], a.spat[2], a.spat[3]}
	}
	return o
}
