package gdalio

// Several inputs gridded as one point cloud: LiDAR comes as tiles, and a sample near a tile's
// edge must see its neighbours in the next tile. The samples of all inputs are merged band by
// band and put in a canonical order, so that the raster depends on the points only, not on how
// they were split into files or in which order the files came.

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/sample"
)

// ReadInputs reads the inputs of a command line (its sources as inputs.Expand expands them) as
// one point cloud and returns one source per band, each with at least one usable sample.
//
// A single vector or text input is ReadSources: its samples keep their order, on which
// gdal_grid's tie rules depend. Otherwise, that is for LAS (one file or many) and for several
// inputs of any kind, every input must give the same bands (-l, -sql), band i is the union of
// the inputs' band i, all inputs must share one CRS (or have none), and the samples are put in
// canonical order: ascending y, then x, then value. That order is then the "input order" of
// every rule that names one (exact hits, ties), so the raster is the same, bit for bit, however
// the points are split into files and whatever order the files come in. LAS points on one
// lattice are compact samples (see lidar.ReadFiles), with their origin on the lattice; other
// merged inputs hold absolute coordinates (origin 0).
func ReadInputs(ctx context.Context, paths []string, opt SourceOptions) ([]Source, error) {
	if len(paths) == 1 && !readerFor(paths[0], opt).together {
		return ReadSources(ctx, paths[0], opt)
	}
	register()
	warn := warner(opt.Warn)
	flt, err := buildFilter(opt, warn)
	if err != nil {
		return nil, err
	}
	// The paths of a reader that reads them together are one input, read first; every other
	// path is an input of its own, in the order given.
	var groups [][]string
	together := map[*reader]int{}
	for _, p := range paths {
		r := readerFor(p, opt)
		if !r.together {
			continue
		}
		if g, ok := together[r]; ok {
			groups[g] = append(groups[g], p)
			continue
		}
		together[r] = len(groups)
		groups = append(groups, []string{p})
	}
	for _, p := range paths {
		if !readerFor(p, opt).together {
			groups = append(groups, []string{p})
		}
	}
	if len(groups) > 1 {
		opt.Take = nil // the inputs' samples are merged in memory
	}
	inputs := make([][]Source, len(groups))
	names := make([]string, len(groups))
	for i, g := range groups {
		if inputs[i], err = readerFor(g[0], opt).read(ctx, g, opt, flt, warn); err != nil {
			return nil, err
		}
		names[i] = inputName(g)
	}
	merged, err := mergeInputs(memory.ArenaOf(ctx), inputs, names)
	if err != nil {
		return nil, err
	}
	what := paths[0]
	if len(paths) > 1 {
		what = fmt.Sprintf("%s and %d more inputs", paths[0], len(paths)-1)
	}
	for _, s := range merged {
		if err := checkUsable(what, s); err != nil {
			CloseHeld(merged)
			return nil, err
		}
		if opt.InputOrder && s.Samples.IsCompact() {
			s.Samples.InputOrder = true
			continue
		}
		if err := sample.Canonicalize(ctx, s.Samples); err != nil {
			return nil, err
		}
	}
	return merged, nil
}

// mergeInputs joins the inputs' sources band by band, in absolute coordinates. names name the
// inputs in messages; a is the arena the inputs' arrays may be in.
func mergeInputs(a *memory.Arena, inputs [][]Source, names []string) ([]Source, error) {
	if len(inputs) == 1 {
		for _, s := range inputs[0] {
			// Compact samples keep their origin, on their lattice.
			if !s.Samples.IsCompact() && (s.Samples.OriginX != 0 || s.Samples.OriginY != 0) {
				s.Samples.MoveOrigin(0, 0)
			}
		}
		return inputs[0], nil
	}
	bands := len(inputs[0])
	for i, in := range inputs[1:] {
		if len(in) != bands {
			return nil, fmt.Errorf("%s gives %d band(s) but %s gives %d: every input must give the same layers", names[0], bands, names[i+1], len(in))
		}
	}
	out := make([]Source, bands)
	for b := range bands {
		band := make([]Source, len(inputs))
		for i, in := range inputs {
			band[i] = in[b]
		}
		var err error
		if out[b], err = mergeBand(a, band, names); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeBand joins one band's sources: samples, CRS, skip counts and extent.
func mergeBand(a *memory.Arena, band []Source, names []string) (Source, error) {
	out := Source{Name: fmt.Sprintf("%s and %d more", band[0].Name, len(band)-1)}
	total := 0
	for _, s := range band {
		total += s.Samples.Len()
	}
	m := &sample.Samples{X: make([]float64, 0, total), Y: make([]float64, 0, total), Z: make([]float64, 0, total)}
	var reasons []string
	srsFrom := ""
	for i, s := range band {
		// absolute coordinates, as MoveOrigin(0, 0) computes them
		for j := range int32(s.Samples.Len()) {
			x, y := s.Samples.XY(j)
			m.X = append(m.X, x+s.Samples.OriginX)
			m.Y = append(m.Y, y+s.Samples.OriginY)
		}
		m.Z = append(m.Z, s.Samples.Z...)
		s.Samples.Free(a) // let the input's copy go as soon as it is merged
		if s.Skipped > 0 {
			out.Skipped += s.Skipped
			reasons = append(reasons, names[i]+": "+s.SkipReason)
		}
		switch {
		case s.SRS == "" || s.SRS == out.SRS:
		case out.SRS == "":
			out.SRS, srsFrom = s.SRS, names[i]
		case !SameSRS(out.SRS, s.SRS):
			return out, fmt.Errorf("%s and %s are in different CRSs: grid inputs of one CRS together", srsFrom, names[i])
		}
		out.Extent = unionExtent(out.Extent, s.Extent)
	}
	out.Samples, out.SkipReason = m, strings.Join(reasons, "; ")
	return out, nil
}

// CloseHeld closes what sources hold elsewhere (Source.Held), for a read that fails after them.
func CloseHeld(sources []Source) {
	for _, s := range sources {
		if s.Held != nil {
			s.Held.Close()
		}
	}
}

func unionExtent(a, b *[4]float64) *[4]float64 {
	if a == nil || b == nil {
		return cmp.Or(a, b)
	}
	return &[4]float64{min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])}
}
