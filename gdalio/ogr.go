package gdalio

/*
#include <stdlib.h>
#include "ogr_read.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/aidw/aidw/sample"
)

// ogrBatch is how many points one cgo call hands over at least.
const ogrBatch = 1 << 16

// vectorDS is an open OGR datasource.
type vectorDS struct {
	h    C.GDALDatasetH
	path string
}

func openVector(path string, openOptions []string, warn func(string)) (*vectorDS, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	oo, free := cStrings(openOptions)
	defer free()
	var ce cErr
	h := C.aidw_open_vector(cp, oo, &ce.e)
	err := ce.take(warn)
	if h == nil {
		if err == nil {
			err = errors.New("not a vector datasource GDAL can open")
		}
		return nil, err
	}
	return &vectorDS{h: h, path: path}, nil
}

func (ds *vectorDS) close(warn func(string)) {
	var ce cErr
	C.aidw_close(ds.h, &ce.e)
	if err := ce.take(warn); err != nil {
		warn(err.Error())
	}
}

func (ds *vectorDS) layerNames() []string {
	n := int(C.GDALDatasetGetLayerCount(ds.h))
	names := make([]string, n)
	for i := range n {
		names[i] = C.GoString(C.OGR_L_GetName(C.GDALDatasetGetLayer(ds.h, C.int(i))))
	}
	return names
}

func (ds *vectorDS) layer(name string) (C.OGRLayerH, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	if l := C.GDALDatasetGetLayerByName(ds.h, cn); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("layer %q not found (layers: %s)", name, strings.Join(ds.layerNames(), ", "))
}

// execSQL runs a statement; rect, when set, is the spatial filter (xmin ymin xmax ymax).
func (ds *vectorDS) execSQL(sql string, rect *[4]float64, warn func(string)) (C.OGRLayerH, error) {
	cs := C.CString(sql)
	defer C.free(unsafe.Pointer(cs))
	var cr *C.double
	if rect != nil {
		cr = (*C.double)(C.malloc(4 * C.sizeof_double))
		defer C.free(unsafe.Pointer(cr))
		copy(unsafe.Slice((*float64)(unsafe.Pointer(cr)), 4), rect[:])
	}
	var ce cErr
	l := C.aidw_exec_sql(ds.h, cs, cr, &ce.e)
	err := ce.take(warn)
	if err != nil {
		if l != nil {
			ds.releaseSQL(l, warn)
		}
		return nil, fmt.Errorf("-sql %q: %w", sql, err)
	}
	if l == nil {
		return nil, fmt.Errorf("-sql %q returned no result set", sql)
	}
	return l, nil
}

func (ds *vectorDS) releaseSQL(l C.OGRLayerH, warn func(string)) {
	var ce cErr
	C.aidw_release_sql(ds.h, l, &ce.e)
	if err := ce.take(warn); err != nil {
		warn(err.Error())
	}
}

func setWhere(l C.OGRLayerH, where string, warn func(string)) error {
	cw := C.CString(where)
	defer C.free(unsafe.Pointer(cw))
	var ce cErr
	C.aidw_set_where(l, cw, &ce.e)
	return ce.take(warn)
}

// readOGR reads the -sql results and then the -l layers (or the only layer), one source each,
// in gdal_grid's band order.
func readOGR(path string, opt SourceOptions, flt *sample.Filter, warn func(string)) ([]Source, error) {
	var bands []*sample.Samples
	out, err := scanOGR(path, opt, flt, warn, func(band int, b *sample.Samples) error {
		for len(bands) <= band {
			bands = append(bands, &sample.Samples{})
		}
		s := bands[band]
		s.OriginX, s.OriginY = b.OriginX, b.OriginY
		s.X, s.Y, s.Z = append(s.X, b.X...), append(s.Y, b.Y...), append(s.Z, b.Z...)
		return nil
	})
	for i := range out {
		out[i].Samples = &sample.Samples{}
		if i < len(bands) {
			out[i].Samples = bands[i]
		}
	}
	return out, err
}

// scanOGR is readOGR handing each band's samples to yield a batch at a time, in the layer's
// order (valid during the call only); the sources it returns hold no samples.
func scanOGR(path string, opt SourceOptions, flt *sample.Filter, warn func(string), yield func(band int, b *sample.Samples) error) ([]Source, error) {
	ds, err := openVector(path, csvOpenOptions(path, opt.OpenOptions), warn)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer ds.close(warn)
	var rect *[4]float64
	if reg := flt.Region; reg != nil {
		rect = &reg.BBox
	}
	var out []Source
	for _, sql := range opt.SQL {
		l, err := ds.execSQL(sql, rect, warn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		src, err := readLayer(l, sql, opt, flt, warn, bandYield(yield, len(out)))
		ds.releaseSQL(l, warn)
		if err != nil {
			return nil, fmt.Errorf("%s: -sql %q: %w", path, sql, err)
		}
		out = append(out, src)
	}
	layers, err := chooseLayers(ds, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, l := range layers {
		name := C.GoString(C.OGR_L_GetName(l))
		if opt.Where != "" {
			if err := setWhere(l, opt.Where, warn); err != nil {
				return nil, fmt.Errorf("%s: layer %s: -where %q: %w", path, name, opt.Where, err)
			}
		}
		if rect != nil {
			C.OGR_L_SetSpatialFilterRect(l, C.double(rect[0]), C.double(rect[1]), C.double(rect[2]), C.double(rect[3]))
		}
		src, err := readLayer(l, name, opt, flt, warn, bandYield(yield, len(out)))
		if err != nil && opt.Where != "" {
			// some drivers (GeoPackage) only reject a bad filter when reading starts
			return nil, fmt.Errorf("%s: layer %s with -where %q: %w", path, name, opt.Where, err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: layer %s: %w", path, name, err)
		}
		out = append(out, src)
	}
	return out, nil
}

// chooseLayers applies gdal_grid's rule: the -l layers, else the only layer when there is no
// -sql; a source with several layers needs -l.
func chooseLayers(ds *vectorDS, opt SourceOptions) ([]C.OGRLayerH, error) {
	var out []C.OGRLayerH
	for _, name := range opt.Layers {
		l, err := ds.layer(name)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	if len(opt.Layers) > 0 || len(opt.SQL) > 0 {
		return out, nil
	}
	switch names := ds.layerNames(); len(names) {
	case 0:
		return nil, errors.New("no layer")
	case 1:
		return []C.OGRLayerH{C.GDALDatasetGetLayer(ds.h, 0)}, nil
	default:
		return nil, fmt.Errorf("%d layers (%s): choose with -l or -sql", len(names), strings.Join(names, ", "))
	}
}

// zField finds -zfield in the layer: its index and whether its values are text to parse.
func zField(l C.OGRLayerH, name string) (int, bool, error) {
	defn := C.OGR_L_GetLayerDefn(l)
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	idx := C.OGR_FD_GetFieldIndex(defn, cn)
	if idx < 0 {
		n := int(C.OGR_FD_GetFieldCount(defn))
		names := make([]string, n)
		for i := range n {
			names[i] = C.GoString(C.OGR_Fld_GetNameRef(C.OGR_FD_GetFieldDefn(defn, C.int(i))))
		}
		return 0, false, fmt.Errorf("-zfield %q: no such field (fields: %s)", name, strings.Join(names, ", "))
	}
	switch t := C.OGR_Fld_GetType(C.OGR_FD_GetFieldDefn(defn, idx)); t {
	case C.OFTInteger, C.OFTInteger64, C.OFTReal:
		return int(idx), false, nil
	case C.OFTString:
		return int(idx), true, nil
	default:
		return 0, false, fmt.Errorf("-zfield %q is a %s field, not a number", name, C.GoString(C.OGR_GetFieldTypeName(t)))
	}
}

// bandYield is yield for one band.
func bandYield(yield func(int, *sample.Samples) error, band int) func(*sample.Samples) error {
	return func(b *sample.Samples) error { return yield(band, b) }
}

// readLayer hands a layer's vertices to yield as samples, a batch of features at a time,
// relative to the first kept vertex.
func readLayer(l C.OGRLayerH, name string, opt SourceOptions, flt *sample.Filter, warn func(string), yield func(*sample.Samples) error) (Source, error) {
	src := Source{Name: name}
	batch := &sample.Samples{}
	p := C.aidw_points{layer: l, zfield: -1}
	if opt.ZField != "" {
		idx, isText, err := zField(l, opt.ZField)
		if err != nil {
			return src, err
		}
		p.zfield = C.int(idx)
		if isText {
			p.zfield_is_string = 1
		}
	}
	defer C.aidw_points_free(&p)
	C.OGR_L_ResetReading(l) // the same layer may be named twice
	first := true
	nonFinite := 0
	for {
		var ce cErr
		status := C.aidw_read_points(&p, ogrBatch, &ce.e)
		if err := ce.take(warn); err != nil {
			return src, err
		}
		if p.bad_value != nil {
			return src, fmt.Errorf("feature %d: -zfield %s value %q is not a number", int64(p.bad_fid), opt.ZField, C.GoString(p.bad_value))
		}
		if status < 0 {
			return src, errors.New("reading features failed")
		}
		n := int(p.n)
		if n > 0 {
			xs := unsafe.Slice((*float64)(unsafe.Pointer(p.x)), n)
			ys := unsafe.Slice((*float64)(unsafe.Pointer(p.y)), n)
			zs := unsafe.Slice((*float64)(unsafe.Pointer(p.z)), n)
			for i := range n {
				x, y, z := xs[i], ys[i], flt.Z(zs[i])
				if !finite(x) || !finite(y) || !finite(z) {
					nonFinite++
					continue
				}
				if !flt.Keeps(x, y) {
					continue
				}
				if first {
					batch.OriginX, batch.OriginY = x, y
					first = false
				}
				if err := sample.RelativeFits(x, y, batch.OriginX, batch.OriginY); err != nil {
					return src, err
				}
				batch.Add(x, y, z)
			}
			if batch.Len() > 0 {
				if err := yield(batch); err != nil {
					return src, err
				}
				batch.Truncate(0)
			}
		}
		if status == 0 {
			break
		}
	}
	var reasons []string
	if k := int(p.null_field); k > 0 {
		reasons = append(reasons, fmt.Sprintf("%d features with a null or empty %s", k, opt.ZField))
	}
	if k := int(p.no_geometry); k > 0 {
		reasons = append(reasons, fmt.Sprintf("%d features without geometry", k))
	}
	if nonFinite > 0 {
		reasons = append(reasons, fmt.Sprintf("%d points with a NaN or infinite coordinate or z", nonFinite))
	}
	src.Skipped = int(p.null_field+p.no_geometry) + nonFinite
	src.SkipReason = strings.Join(reasons, ", ")
	if wkt := C.aidw_layer_srs(l); wkt != nil {
		src.SRS = C.GoString(wkt)
		C.CPLFree(unsafe.Pointer(wkt))
	}
	if opt.LayerExtent {
		var env [4]C.double
		var ce cErr
		ok := C.aidw_layer_extent(l, &env[0], &ce.e)
		if err := ce.take(warn); err == nil && ok != 0 {
			src.Extent = &[4]float64{float64(env[0]), float64(env[1]), float64(env[2]), float64(env[3])}
		}
	}
	return src, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
