package gdalio

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/raster"
	"github.com/airbusgeo/godal"
)

// Reader reads a raster's rows back, band by band.
type Reader struct {
	path              string
	ds                *godal.Dataset
	errs              godal.ErrorHandler
	Cols, Rows, Bands int
	GeoTransform      [6]float64
}

// OpenRaster opens a raster for reading.
func OpenRaster(path string) (*Reader, error) {
	register()
	r := &Reader{path: path, errs: godalErrors(warner(nil))}
	ds, err := godal.Open(path, godal.RasterOnly(), godal.ErrLogger(r.errs))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, flat(err))
	}
	r.ds = ds
	st := ds.Structure()
	r.Cols, r.Rows, r.Bands = st.SizeX, st.SizeY, st.NBands
	r.GeoTransform, _ = ds.GeoTransform(godal.ErrLogger(r.errs))
	return r, nil
}

// Metadata is the raster's metadata item key (default domain), "" when absent.
func (r *Reader) Metadata(key string) string { return r.ds.Metadata(key) }

// ReadRows reads rows row0..row0+rows-1 of band (from 1) into values, row-major, as float64.
func (r *Reader) ReadRows(band, row0, rows int, values []float64) error {
	if band < 1 || band > r.Bands {
		return fmt.Errorf("%s: band %d: the raster has bands 1 to %d", r.path, band, r.Bands)
	}
	if err := r.ds.Bands()[band-1].Read(0, row0, values[:rows*r.Cols], r.Cols, rows, godal.ErrLogger(r.errs)); err != nil {
		return fmt.Errorf("reading %s band %d rows %d-%d: %w", r.path, band, row0, row0+rows-1, flat(err))
	}
	return nil
}

// Close closes the raster.
func (r *Reader) Close() {
	if r.ds != nil {
		r.ds.Close(godal.ErrLogger(r.errs))
		r.ds = nil
	}
}

// VRTSource is a source raster placed whole in a VRT, at column Col0, row Row0: band k of
// the VRT reads its band k.
type VRTSource struct {
	File       string
	Col0, Row0 int
	Cols, Rows int
}

// WriteVRT writes a VRT of grid t that places sources (every band's), with the type, CRS and
// nodata of opt and the band names, atomically. Source paths are written relative to the VRT
// when they can be.
func WriteVRT(path string, t raster.Target, opt RasterOptions, names []string, sources []VRTSource) error {
	register()
	dt, _, err := dataType(opt.Type)
	if err != nil {
		return err
	}
	wkt, err := srsWKT(opt.SRS)
	if err != nil {
		return err
	}
	absDir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	var b strings.Builder
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	g := t.GeoTransform
	fmt.Fprintf(&b, "<VRTDataset rasterXSize=\"%d\" rasterYSize=\"%d\">\n", t.Cols, t.Rows)
	if wkt != "" {
		fmt.Fprintf(&b, "  <SRS>%s</SRS>\n", esc(wkt))
	}
	fmt.Fprintf(&b, "  <GeoTransform>%s, %s, %s, %s, %s, %s</GeoTransform>\n", fv(g[0]), fv(g[1]), fv(g[2]), fv(g[3]), fv(g[4]), fv(g[5]))
	bands := max(opt.Bands, 1)
	for k := 1; k <= bands; k++ {
		fmt.Fprintf(&b, "  <VRTRasterBand dataType=\"%s\" band=\"%d\">\n", dt.String(), k)
		if opt.SetNoData {
			fmt.Fprintf(&b, "    <NoDataValue>%s</NoDataValue>\n", fv(opt.NoData))
		}
		if len(names) > 1 && k <= len(names) {
			fmt.Fprintf(&b, "    <Description>%s</Description>\n", esc(names[k-1]))
		}
		for _, s := range sources {
			file, rel := s.File, 0
			if abs, err := filepath.Abs(s.File); err == nil {
				if r, err := filepath.Rel(absDir, abs); err == nil && !strings.HasPrefix(r, "..") {
					file, rel = r, 1
				} else {
					file = abs
				}
			}
			fmt.Fprintf(&b, "    <SimpleSource>\n      <SourceFilename relativeToVRT=\"%d\">%s</SourceFilename>\n", rel, esc(filepath.ToSlash(file)))
			fmt.Fprintf(&b, "      <SourceBand>%d</SourceBand>\n", k)
			fmt.Fprintf(&b, "      <SrcRect xOff=\"0\" yOff=\"0\" xSize=\"%d\" ySize=\"%d\" />\n", s.Cols, s.Rows)
			fmt.Fprintf(&b, "      <DstRect xOff=\"%d\" yOff=\"%d\" xSize=\"%d\" ySize=\"%d\" />\n    </SimpleSource>\n", s.Col0, s.Row0, s.Cols, s.Rows)
		}
		b.WriteString("  </VRTRasterBand>\n")
	}
	b.WriteString("</VRTDataset>\n")
	return outfile.WriteAtomic(path, []byte(b.String()))
}

// fv writes a float exactly (the shortest form that reads back the same).
func fv(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
