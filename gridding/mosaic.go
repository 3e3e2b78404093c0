package gridding

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/tiles"
)

// openTiles opens every tile raster of plan m and checks that it is the plan's and proven
// whole; it fails naming every tile missing, foreign or damaged.
func openTiles(mpath string, m *tiles.Manifest) ([]*gdalio.Reader, error) {
	readers := make([]*gdalio.Reader, len(m.Tiles))
	var missing, foreign, damaged []string
	for i, tl := range m.Tiles {
		p := tiles.TilePath(mpath, i)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, strconv.Itoa(i))
			continue
		}
		if err := tiles.CheckProof(p, m.Hash, i); errors.Is(err, tiles.ErrForeign) {
			foreign = append(foreign, strconv.Itoa(i))
			continue
		} else if err != nil {
			damaged = append(damaged, fmt.Sprintf("%d: %v", i, err))
			continue
		}
		r, err := gdalio.OpenRaster(p)
		if err != nil {
			damaged = append(damaged, fmt.Sprintf("%d: %v", i, err))
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
	if len(missing) > 0 || len(foreign) > 0 || len(damaged) > 0 {
		closeAll(readers)
		var why []string
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("%d missing (%s)", len(missing), abbreviate(missing)))
		}
		if len(foreign) > 0 {
			why = append(why, fmt.Sprintf("%d of another plan (%s)", len(foreign), abbreviate(foreign)))
		}
		if len(damaged) > 0 {
			why = append(why, fmt.Sprintf("%d damaged (%s)", len(damaged), strings.Join(damaged[:min(len(damaged), 5)], "; ")))
		}
		return nil, fmt.Errorf("%s: %d tiles, %s in %s: run aidw grid --manifest %s --plan-tile <i> for those",
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

// MosaicOptions are the assembly of a plan's tiles: `aidw mosaic`'s options.
type MosaicOptions struct {
	Plan string // the plan's manifest, whose tiles GridPlannedTile computed
	Dest string // the raster; a .vrt (or Format VRT) is a VRT over the tile rasters
	// Format and Creation replace the plan's driver and creation options when given.
	Format   string
	Creation []string
	Preview  string // a PNG quick look of the first band
	// Progress hears the fraction done; nil for none.
	Progress func(done float64)
}

// Mosaic assembles the tiles of a plan into one raster: the one Grid computes on one machine,
// bit for bit. A missing tile, or one of another plan, is an error that names them.
func Mosaic(ctx context.Context, a *MosaicOptions) error {
	m, err := tiles.ReadManifest(a.Plan)
	if err != nil {
		return err
	}
	if err := m.Inputs.Check(); err != nil {
		return err
	}
	if err := gdalio.CheckDestination(a.Dest); err != nil {
		return err
	}
	// the plan and its tiles are the mosaic's sources: a destination among them would overwrite
	// a tile and spoil every later mosaic of the plan
	srcs := []string{a.Plan, tiles.TileDir(a.Plan)}
	for i := range m.Tiles {
		srcs = append(srcs, tiles.TilePath(a.Plan, i))
	}
	if err := outfile.CheckNotSource(a.Dest, srcs, srcs); err != nil {
		return err
	}
	readers, err := openTiles(a.Plan, m)
	if err != nil {
		return err
	}
	defer closeAll(readers)
	target := m.Output.Target()
	o := m.Output
	ropt := gdalio.RasterOptions{Format: o.Format, Type: o.Type, Create: o.Creation, SRS: o.SRS,
		Bands: len(o.Bands), NoData: o.NoData, SetNoData: o.SetNoData}
	if a.Format != "" {
		ropt.Format = a.Format
	}
	if a.Creation != nil {
		ropt.Create = a.Creation
	}
	if strings.EqualFold(ropt.Format, "VRT") || (a.Format == "" && strings.EqualFold(filepath.Ext(a.Dest), ".vrt")) {
		if a.Preview != "" {
			return fmt.Errorf("-preview: a VRT mosaic reads no pixel; make the quick look from a raster")
		}
		var srcs []gdalio.VRTSource
		for i, tl := range m.Tiles {
			srcs = append(srcs, gdalio.VRTSource{File: tiles.TilePath(a.Plan, i), Col0: tl.Col0, Row0: tl.Row0, Cols: tl.Cols, Rows: tl.Rows})
		}
		return gdalio.WriteVRT(a.Dest, target, ropt, o.Bands, srcs)
	}
	w, err := gdalio.Create(a.Dest, target, ropt)
	if err != nil {
		return err
	}
	preview, err := newPreview(a.Preview, o.SRS, target, o.NoData, o.SetNoData)
	if err == nil && len(o.Bands) > 1 {
		err = nameBands(w, 0, o.Bands)
	}
	if err == nil {
		err = mosaicRows(ctx, m, readers, target, writeBands(w, preview, 0), a.Progress)
	}
	return finishRaster(ctx, w, preview, a.Preview, err)
}

// mosaicRows reads the tiles a strip of rows at a time and hands the whole raster's rows to
// sink, in order, every band's.
func mosaicRows(ctx context.Context, m *tiles.Manifest, readers []*gdalio.Reader, t raster.Target,
	sink func(row0, rows int, bands [][]float64) error, progress func(float64)) error {
	if progress != nil {
		progress(0)
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
			if progress != nil {
				progress(float64(row0+r0+rows) / float64(t.Rows))
			}
		}
		i = end
	}
	return nil
}
