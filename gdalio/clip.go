package gdalio

/*
#include <stdlib.h>
#include "ogr_read.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aidw/aidw/sample"
)

// buildRegion combines -spat and -clipsrc as gdal_grid does; nil means keep every sample.
func buildRegion(opt SourceOptions, warn func(string)) (*sample.Region, error) {
	var r sample.Region
	if opt.Spat != nil {
		s := *opt.Spat
		// gdal_grid builds the rectangle from the corners as given; order them.
		rect := [4]float64{math.Min(s[0], s[2]), math.Min(s[1], s[3]), math.Max(s[0], s[2]), math.Max(s[1], s[3])}
		r.Rect = &rect
	}
	clip := strings.TrimSpace(opt.ClipSrc)
	switch {
	case clip == "":
	case strings.EqualFold(clip, "spat_extent"):
		if r.Rect == nil {
			return nil, fmt.Errorf("-clipsrc spat_extent needs -spat")
		}
	default:
		polys, err := clipGeometry(clip, opt, warn)
		if err != nil {
			return nil, err
		}
		r.Polys = polys
	}
	if r.Rect == nil && r.Polys == nil {
		return nil, nil
	}
	r.BBox = [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}
	if r.Rect != nil {
		r.BBox = *r.Rect
	}
	if r.Polys != nil {
		pb := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for _, p := range r.Polys {
			b := p.Bounds()
			pb = [4]float64{math.Min(pb[0], b[0]), math.Min(pb[1], b[1]), math.Max(pb[2], b[2]), math.Max(pb[3], b[3])}
		}
		r.BBox = [4]float64{math.Max(r.BBox[0], pb[0]), math.Max(r.BBox[1], pb[1]), math.Min(r.BBox[2], pb[2]), math.Min(r.BBox[3], pb[3])}
	}
	return &r, nil
}

func rectRing(b [4]float64) []float64 {
	return []float64{b[0], b[1], b[0], b[3], b[2], b[3], b[2], b[1], b[0], b[1]}
}

// clipGeometry reads -clipsrc: "xmin ymin xmax ymax", a POLYGON/MULTIPOLYGON WKT, or a vector
// datasource (with -clipsrcsql, -clipsrclayer, -clipsrcwhere), tried in gdal_grid's order.
func clipGeometry(clip string, opt SourceOptions, warn func(string)) ([]sample.Polygon, error) {
	fields := strings.FieldsFunc(clip, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(fields) > 0 && looksNumeric(fields[0]) {
		if len(fields) != 4 {
			return nil, fmt.Errorf("-clipsrc %q: a bounding box is 4 numbers: xmin ymin xmax ymax", clip)
		}
		var b [4]float64
		for i, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("-clipsrc %q: %q is not a number", clip, f)
			}
			b[i] = v
		}
		box := [4]float64{math.Min(b[0], b[2]), math.Min(b[1], b[3]), math.Max(b[0], b[2]), math.Max(b[1], b[3])}
		return []sample.Polygon{{rectRing(box)}}, nil
	}
	upper := strings.ToUpper(clip)
	if strings.HasPrefix(upper, "POLYGON") || strings.HasPrefix(upper, "MULTIPOLYGON") {
		if _, err := os.Stat(clip); err != nil {
			polys, err := wktPolygons(clip, warn)
			if err != nil {
				return nil, fmt.Errorf("-clipsrc: %w", err)
			}
			return polys, nil
		}
	}
	polys, err := loadClipSource(clip, opt, warn)
	if err != nil {
		return nil, fmt.Errorf("-clipsrc %s: %w", clip, err)
	}
	return polys, nil
}

// looksNumeric is gdal_grid's IsNumber: an optional sign, an optional dot, then a digit.
func looksNumeric(s string) bool {
	s = strings.TrimLeft(s, "+-")
	s = strings.TrimPrefix(s, ".")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

func wktPolygons(wkt string, warn func(string)) ([]sample.Polygon, error) {
	cw := C.CString(wkt)
	defer C.free(unsafe.Pointer(cw))
	var ce cErr
	var n C.int
	buf := C.aidw_wkt_to_wkb(cw, &n, &ce.e)
	defer C.CPLFree(unsafe.Pointer(buf))
	if err := ce.take(warn); err != nil || buf == nil || n == 0 {
		return nil, fmt.Errorf("invalid geometry: must be a valid POLYGON or MULTIPOLYGON WKT")
	}
	polys, err := wkbPolygons(C.GoBytes(unsafe.Pointer(buf), n))
	if err != nil {
		return nil, err
	}
	return polys, nil
}

// loadClipSource collects the polygons of a datasource's layer, as gdal_grid's LoadGeometry:
// any other geometry type is an error.
func loadClipSource(path string, opt SourceOptions, warn func(string)) ([]sample.Polygon, error) {
	ds, err := openVector(path, nil, warn)
	if err != nil {
		return nil, err
	}
	defer ds.close(warn)
	var lyr C.OGRLayerH
	switch {
	case opt.ClipSrcSQL != "":
		lyr, err = ds.execSQL(opt.ClipSrcSQL, nil, warn)
		if err != nil {
			return nil, err
		}
		defer ds.releaseSQL(lyr, warn)
	case opt.ClipSrcLayer != "":
		if lyr, err = ds.layer(opt.ClipSrcLayer); err != nil {
			return nil, err
		}
	default:
		if C.GDALDatasetGetLayerCount(ds.h) < 1 {
			return nil, fmt.Errorf("no layer")
		}
		lyr = C.GDALDatasetGetLayer(ds.h, 0)
	}
	if opt.ClipSrcWhere != "" {
		if err := setWhere(lyr, opt.ClipSrcWhere, warn); err != nil {
			return nil, fmt.Errorf("-clipsrcwhere: %w", err)
		}
	}
	var polys []sample.Polygon
	for {
		var ce cErr
		var n C.int
		buf := C.aidw_next_wkb(lyr, &n, &ce.e)
		err := ce.take(warn)
		if buf == nil {
			if err != nil {
				return nil, err
			}
			break
		}
		wkb := C.GoBytes(unsafe.Pointer(buf), n)
		C.CPLFree(unsafe.Pointer(buf))
		if err != nil {
			return nil, err
		}
		if len(wkb) == 0 {
			continue
		}
		p, err := wkbPolygons(wkb)
		if err != nil {
			return nil, err
		}
		polys = append(polys, p...)
	}
	if len(polys) == 0 {
		return nil, fmt.Errorf("no polygon found")
	}
	return polys, nil
}

// wkbPolygons decodes ISO WKB of a Polygon or MultiPolygon (any of XY, XYZ, XYM, XYZM).
func wkbPolygons(b []byte) ([]sample.Polygon, error) {
	r := wkbReader{b: b}
	kind, dims := r.header()
	var polys []sample.Polygon
	switch kind {
	case 3:
		polys = []sample.Polygon{r.polygon(dims)}
	case 6:
		n := r.count()
		for i := 0; i < n && r.err == nil; i++ {
			k, d := r.header()
			if k != 3 {
				return nil, fmt.Errorf("geometry not of polygon type")
			}
			polys = append(polys, r.polygon(d))
		}
	default:
		if r.err == nil {
			return nil, fmt.Errorf("geometry not of polygon type")
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return polys, nil
}

type wkbReader struct {
	b     []byte
	order binary.ByteOrder
	err   error
}

func (r *wkbReader) need(n int) bool {
	if r.err == nil && len(r.b) < n {
		r.err = fmt.Errorf("truncated WKB geometry")
	}
	return r.err == nil
}

func (r *wkbReader) header() (kind, dims int) {
	if !r.need(5) {
		return 0, 0
	}
	r.order = binary.ByteOrder(binary.LittleEndian)
	if r.b[0] == 0 {
		r.order = binary.BigEndian
	}
	t := r.order.Uint32(r.b[1:5])
	r.b = r.b[5:]
	dims = 2
	if t&0x80000000 != 0 { // EWKB-style Z flag
		dims++
	}
	t &= 0x0fffffff
	switch t / 1000 {
	case 1, 2:
		dims++
	case 3:
		dims += 2
	}
	return int(t % 1000), dims
}

func (r *wkbReader) count() int {
	if !r.need(4) {
		return 0
	}
	n := int(r.order.Uint32(r.b))
	r.b = r.b[4:]
	return n
}

func (r *wkbReader) polygon(dims int) sample.Polygon {
	nr := r.count()
	var p sample.Polygon
	for i := 0; i < nr && r.err == nil; i++ {
		np := r.count()
		if !r.need(np * dims * 8) {
			break
		}
		ring := make([]float64, 0, 2*np)
		for k := 0; k < np; k++ {
			off := k * dims * 8
			ring = append(ring,
				math.Float64frombits(r.order.Uint64(r.b[off:])),
				math.Float64frombits(r.order.Uint64(r.b[off+8:])))
		}
		r.b = r.b[np*dims*8:]
		p = append(p, ring)
	}
	return p
}
