package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/tiles"
)

const mosaicUsage = `[-q] [-of <format>] [-co <NAME>=<VALUE>]... [-preview <png>] <plan.json> <dst_filename>

Assembles the tiles of a plan (aidw plan; each computed by aidw grid --manifest) into one
raster, the one aidw grid computes on one machine, bit for bit. The format and creation options
are the plan's (-of and -co override them); a .vrt destination (or -of VRT) is a VRT over the
tile rasters. A missing tile, or one of another plan, is an error.`

type mosaicArgs struct {
	manifest, dst string
	format        string
	creation      []string
	preview       string
	quiet         bool
}

func parseMosaicArgs(args []string) (*mosaicArgs, error) {
	a := &mosaicArgs{}
	var positional []string
	for i := 0; i < len(args); i++ {
		need := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		var err error
		switch strings.ToLower(args[i]) {
		case "-q", "-quiet":
			a.quiet = true
		case "-of":
			a.format, err = need()
		case "-co":
			var v string
			v, err = need()
			a.creation = append(a.creation, v)
		case "-preview":
			a.preview, err = need()
		default:
			if len(args[i]) > 1 && args[i][0] == '-' {
				return nil, fmt.Errorf("unknown option %s", args[i])
			}
			positional = append(positional, args[i])
		}
		if err != nil {
			return nil, err
		}
	}
	if len(positional) != 2 {
		return nil, fmt.Errorf("expected the plan and the destination raster")
	}
	a.manifest, a.dst = positional[0], positional[1]
	return a, nil
}

// openTiles opens every tile raster of plan m and checks that it is the plan's; it fails
// naming every tile missing or foreign.
func openTiles(mpath string, m *tiles.Manifest) ([]*gdalio.Reader, error) {
	readers := make([]*gdalio.Reader, len(m.Tiles))
	var missing, foreign []string
	for i, tl := range m.Tiles {
		p := tiles.TilePath(mpath, i)
		r, err := gdalio.OpenRaster(p)
		if err != nil {
			missing = append(missing, strconv.Itoa(i))
			continue
		}
		if r.Metadata(tiles.MetaPlan) != m.Hash || r.Metadata(tiles.MetaTile) != strconv.Itoa(i) ||
			r.Cols != tl.Cols || r.Rows != tl.Rows || r.Bands != len(m.Output.Bands) {
			foreign = append(foreign, strconv.Itoa(i))
			r.Close()
			continue
		}
		readers[i] = r
	}
	if len(missing) > 0 || len(foreign) > 0 {
		closeAll(readers)
		var why []string
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("%d missing (%s)", len(missing), abbreviate(missing)))
		}
		if len(foreign) > 0 {
			why = append(why, fmt.Sprintf("%d of another plan (%s)", len(foreign), abbreviate(foreign)))
		}
		return nil, fmt.Errorf("%s: %d tiles, %s in %s: run aidw grid --manifest %s --tile <i> for those",
			mpath, len(m.Tiles), strings.Join(why, " and "), tiles.TileDir(mpath), mpath)
	}
	return readers, nil
}

func abbreviate(ids []string) string {
	if len(ids) > 20 {
		return strings.Join(ids[:20], ", ") + ", ..."
	}
	return strings.Join(ids, ", ")
}

func closeAll(rs []*gdalio.Reader) {
	for _, r := range rs {
		if r != nil {
			r.Close()
		}
	}
}

// runMosaic is `aidw mosaic`: the tiles of a plan into one raster.
func runMosaic(ctx context.Context, a *mosaicArgs, stdout, stderr io.Writer) error {
	m, err := tiles.ReadManifest(a.manifest)
	if err != nil {
		return err
	}
	if err := gdalio.CheckDestination(a.dst); err != nil {
		return err
	}
	// the plan and its tiles are the mosaic's sources: a destination among them would overwrite
	// a tile and spoil every later mosaic of the plan
	srcs := []string{a.manifest, tiles.TileDir(a.manifest)}
	for i := range m.Tiles {
		srcs = append(srcs, tiles.TilePath(a.manifest, i))
	}
	if err := gdalio.CheckNotSource(a.dst, srcs); err != nil {
		return err
	}
	readers, err := openTiles(a.manifest, m)
	if err != nil {
		return err
	}
	defer closeAll(readers)
	target := m.Output.Target()
	o := m.Output
	ropt := gdalio.RasterOptions{Format: o.Format, Type: o.Type, Create: o.Creation, SRS: o.SRS,
		Bands: len(o.Bands), NoData: o.NoData, SetNoData: o.SetNoData}
	if a.format != "" {
		ropt.Format = a.format
	}
	if a.creation != nil {
		ropt.Create = a.creation
	}
	if strings.EqualFold(ropt.Format, "VRT") || (a.format == "" && strings.EqualFold(filepath.Ext(a.dst), ".vrt")) {
		if a.preview != "" {
			return fmt.Errorf("-preview: a VRT mosaic reads no pixel; make the quick look from a raster")
		}
		var srcs []gdalio.VRTSource
		for i, tl := range m.Tiles {
			srcs = append(srcs, gdalio.VRTSource{File: tiles.TilePath(a.manifest, i), Col0: tl.Col0, Row0: tl.Row0, Cols: tl.Cols, Rows: tl.Rows})
		}
		return gdalio.WriteVRT(a.dst, target, ropt, o.Bands, srcs)
	}
	w, err := gdalio.Create(a.dst, target, ropt)
	if err != nil {
		return err
	}
	preview, err := newPreview(a.preview, o.SRS, target, o.NoData, o.SetNoData)
	if err == nil && len(o.Bands) > 1 {
		err = nameBands(w, 0, o.Bands)
	}
	if err == nil {
		err = mosaicRows(ctx, m, readers, target, writeBands(w, preview, 0), a.quiet, stdout)
	}
	return finishRaster(ctx, w, preview, a.preview, err)
}

// mosaicRows reads the tiles a strip of rows at a time and hands the whole raster's rows to
// sink, in order, every band's.
func mosaicRows(ctx context.Context, m *tiles.Manifest, readers []*gdalio.Reader, t raster.Target,
	sink func(row0, rows int, bands [][]float64) error, quiet bool, stdout io.Writer) error {
	var bar *termProgress
	if !quiet {
		bar = newTermProgress(stdout)
		bar.Update(0)
	}
	nb := len(m.Output.Bands)
	step := max(1, raster.BlockRows(t.Cols))
	bands := make([][]float64, nb)
	for k := range bands {
		bands[k] = make([]float64, step*t.Cols)
	}
	var buf []float64
	for i := 0; i < len(m.Tiles); {
		row0, tileRows := m.Tiles[i].Row0, m.Tiles[i].Rows
		end := i
		for end < len(m.Tiles) && m.Tiles[end].Row0 == row0 {
			end++
		}
		for r0 := 0; r0 < tileRows; r0 += step {
			if err := ctx.Err(); err != nil {
				return err
			}
			rows := min(step, tileRows-r0)
			for k := range nb {
				for j := i; j < end; j++ {
					tl := m.Tiles[j]
					if len(buf) < rows*tl.Cols {
						buf = make([]float64, rows*tl.Cols)
					}
					if err := readers[j].ReadRows(k+1, r0, rows, buf); err != nil {
						return err
					}
					for r := range rows {
						copy(bands[k][r*t.Cols+tl.Col0:r*t.Cols+tl.Col0+tl.Cols], buf[r*tl.Cols:(r+1)*tl.Cols])
					}
				}
			}
			out := make([][]float64, nb)
			for k := range out {
				out[k] = bands[k][:rows*t.Cols]
			}
			if err := sink(row0+r0, rows, out); err != nil {
				return err
			}
			if bar != nil {
				bar.Update(float64(row0+r0+rows) / float64(t.Rows))
			}
		}
		i = end
	}
	return nil
}
