// Package gridding is aidw as a library: one call grids scattered samples into a raster, as
// GDAL's GDALGrid(dest, src, options) is gdal_grid without its argv. `aidw grid` is flags
// turned into Options plus Grid; a Go program, a service or a binding calls Grid itself.
//
// A run reads the sources (OGR vector sources, CSV/XYZ text, LAS/LAZ/COPC) as one point cloud,
// decides the output grid (a template's, or gdal_grid's rules), picks the engine (the GPUs of
// the cuda build, else every CPU core), and writes the raster band by band through a temporary
// file, published only when the run succeeds. Inputs too large for memory, or a memory budget,
// or one raster per input make it a tiled run (package tiles). Plan writes a tiled job for many
// machines, GridPlannedTile computes one of its tiles and Mosaic assembles them; CrossValidate
// scores algorithms over the samples.
package gridding

import (
	"io"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/memory"
)

// Options are one gridding run: gdal_grid's options, with their meaning, and aidw's own. The
// zero value of every field but Sources and Dest is gdal_grid's default.
type Options struct {
	// Sources are the inputs: files, directories of LAS/LAZ tiles, glob patterns, OGR
	// datasources (inputs.Expand). Several are gridded as one point cloud.
	Sources []string
	// Dest is the output raster. A '#' in its file name writes one raster per input, named
	// after it.
	Dest string
	// Algorithm is the -a string, "name:key=value:..." (interp.Parse; "" is aidw's default).
	Algorithm string
	// Select chooses and changes the samples: layers, SQL, filters, the clip, the z
	// transform, the LAS filters (-l, -sql, -where, -spat, -clipsrc, -zfield, -class, ...).
	// Its LayerExtent and Stdin are the run's to set.
	Select gdalio.SourceOptions

	// The output grid: the template Like's (-like), else the extent TXE and TYE (default the
	// samples' bounding box) split into Outsize cells, or cells of TR (-tr; with TAP the
	// extent snaps outwards to whole cells); 256 x 256 cells by default.
	Like         string
	TXE, TYE, TR []float64 // two values each, nil when not given
	Outsize      []int     // columns, rows; nil when not given
	TAP          bool
	SRS          string   // -a_srs: the output's CRS (and the samples' when they have none)
	Format, Type string   // -of, -ot: the output's driver (default from the extension) and type
	Creation     []string // -co: the driver's creation options, NAME=VALUE
	Preview      string   // -preview: a PNG quick look of the first band
	Threads      int      // CPU workers; 0: every core
	Device       string   // auto (""), gpu or cpu
	GPUs         []int    // the GPUs to use; nil: every visible one
	TileSide     int      // -tile: a tiled run of tiles this many nodes a side
	Memory       int64    // -memory: the host's budget, which tiles a run (or streams it into GPUs); 0: half the free memory
	Version      string   // the program and version the raster's metadata records (AIDW_VERSION)

	// Arena, when set, holds the large arrays of a run read into memory at once (its
	// samples, their sort's records, each source's index) outside the Go heap, for a caller
	// that ends the process after the run and calls Arena.Release first: its workers free
	// those pages on several threads, which the exit frees on one. nil: the Go heap.
	Arena *memory.Arena

	// Stdin is what a source "-" or /vsistdin/ reads (text streamed, LAS spilled to TMPDIR);
	// nil: the process's standard input.
	Stdin io.Reader

	// Progress hears the fraction done, 0 to 1; nil for none.
	Progress func(done float64)
	// Report receives the run's report lines (a tiled run's plan, a planned tile's state):
	// stdout for the command; nil when quiet.
	Report io.Writer
	// Warnings receives what the user should know but does not stop the run (gdal_grid's
	// warnings, samples skipped or transformed, an engine that cannot run the algorithm):
	// stderr for the command; nil discards them.
	Warnings io.Writer
}

// quiet says whether the run reports nothing but its warnings.
func (o *Options) quiet() bool { return o.Report == nil }

// warnings is where warnings go: Warnings, or nowhere.
func (o *Options) warnings() io.Writer {
	if o.Warnings == nil {
		return io.Discard
	}
	return o.Warnings
}

// report is where report lines go: Report, or nowhere.
func (o *Options) report() io.Writer {
	if o.Report == nil {
		return io.Discard
	}
	return o.Report
}
