package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"slices"

	"github.com/aidw/aidw/raster"
)

// PreviewMaxSide is the longest side of a preview, in pixels: larger rasters are averaged
// down by a whole factor.
const PreviewMaxSide = 2000

// The hillshade's sun, as gdaldem's defaults.
const (
	sunAzimuth  = 315.0
	sunAltitude = 45.0
)

// Preview builds a coloured, hillshaded quick look of a raster from its rows as they are
// written, averaging blocks of step x step pixels, so that it needs memory for the preview
// only, whatever the raster's size.
type Preview struct {
	cols, rows int // the raster's size
	step       int // raster pixels per preview pixel, each way
	w, h       int // the preview's size
	sum        []float64
	count      []int32
	nodata     float64
	hasNodata  bool
	dx, dy     float64 // the preview's pixel size, in CRS units
}

// degreeScale is gdaldem's advice for hillshading elevations in metres on a grid in degrees:
// a degree is taken as 111,120 m.
const degreeScale = 111120

// NewPreview prepares the preview of a raster over t. Values equal to nodata (when hasNodata)
// and NaN are transparent. In a geographic CRS the hillshade takes the values for metres and
// a degree for 111,120 m, as gdaldem's -s 111120.
func NewPreview(t raster.Target, geographic bool, nodata float64, hasNodata bool) *Preview {
	scale := 1.0
	if geographic {
		scale = degreeScale
	}
	step := (max(t.Cols, t.Rows) + PreviewMaxSide - 1) / PreviewMaxSide
	p := &Preview{cols: t.Cols, rows: t.Rows, step: step, nodata: nodata, hasNodata: hasNodata,
		w: (t.Cols + step - 1) / step, h: (t.Rows + step - 1) / step}
	p.sum, p.count = make([]float64, p.w*p.h), make([]int32, p.w*p.h)
	g := t.GeoTransform
	p.dx = math.Hypot(g[1], g[4]) * float64(step) * scale
	p.dy = math.Hypot(g[2], g[5]) * float64(step) * scale
	return p
}

// Size is the preview's size in pixels.
func (p *Preview) Size() (w, h int) { return p.w, p.h }

// AddRows takes rows row0..row0+rows-1 of the raster, row-major.
func (p *Preview) AddRows(row0, rows int, values []float64) {
	for r := range rows {
		line := values[r*p.cols : (r+1)*p.cols]
		base := (row0 + r) / p.step * p.w
		for c, v := range line {
			if math.IsNaN(v) || p.hasNodata && v == p.nodata {
				continue
			}
			p.sum[base+c/p.step] += v
			p.count[base+c/p.step]++
		}
	}
}

// PNG renders the preview: a terrain colour ramp stretched over the 2nd to 98th percentile of
// the values, multiplied by gdaldem's hillshade (azimuth 315, altitude 45, Horn's gradient
// with the preview's pixel size) scaled to 1 on flat ground; nodata is transparent.
func (p *Preview) PNG() ([]byte, error) {
	z := make([]float64, len(p.sum))
	var valid []float64
	for i, s := range p.sum {
		z[i] = math.NaN()
		if p.count[i] > 0 {
			z[i] = s / float64(p.count[i])
			valid = append(valid, z[i])
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, p.w, p.h))
	if len(valid) > 0 {
		slices.Sort(valid)
		lo, hi := percentile(valid, 0.02), percentile(valid, 0.98)
		shade := hillshade(z, p.w, p.h, p.dx, p.dy)
		flat := math.Sin(sunAltitude * math.Pi / 180)
		for i, v := range z {
			if math.IsNaN(v) {
				continue
			}
			t := 0.5
			if hi > lo {
				t = (v - lo) / (hi - lo)
			}
			img.Pix[4*i+3] = 255
			f := min(shade[i]/flat, 1.3)
			for k, c := range terrainColour(t) {
				img.Pix[4*i+k] = uint8(math.Round(min(255, c*f)))
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the preview: %w", err)
	}
	return buf.Bytes(), nil
}

// percentile is the q quantile of sorted values, interpolated between ranks.
func percentile(sorted []float64, q float64) float64 {
	f := q * float64(len(sorted)-1)
	i := int(f)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (f-float64(i))*(sorted[i+1]-sorted[i])
}

// terrainStops is the colour ramp: low greens, tan, brown, snow.
var terrainStops = []struct {
	at      float64
	r, g, b float64
}{
	{0, 38, 115, 77}, {0.25, 133, 178, 90}, {0.5, 235, 220, 150}, {0.75, 160, 110, 70}, {1, 250, 250, 250},
}

// terrainColour is the ramp's colour at t (clamped to [0,1]).
func terrainColour(t float64) [3]float64 {
	t = min(max(t, 0), 1)
	for k := 1; k < len(terrainStops); k++ {
		a, b := terrainStops[k-1], terrainStops[k]
		if t <= b.at {
			u := (t - a.at) / (b.at - a.at)
			return [3]float64{a.r + u*(b.r-a.r), a.g + u*(b.g-a.g), a.b + u*(b.b-a.b)}
		}
	}
	last := terrainStops[len(terrainStops)-1]
	return [3]float64{last.r, last.g, last.b}
}

// hillshade is gdaldem hillshade's shade in [0,1] (its byte value is 1 + 254 times it) for
// a w x h north-up grid of cells dx by dy, Horn's gradient, z factor 1. Missing neighbours
// (NaN, or beyond the edge) take the centre's value.
func hillshade(z []float64, w, h int, dx, dy float64) []float64 {
	az, alt := sunAzimuth*math.Pi/180, sunAltitude*math.Pi/180
	out := make([]float64, len(z))
	at := func(c, r int, centre float64) float64 {
		if c < 0 || c >= w || r < 0 || r >= h || math.IsNaN(z[r*w+c]) {
			return centre
		}
		return z[r*w+c]
	}
	for r := range h {
		for c := range w {
			e := z[r*w+c]
			if math.IsNaN(e) {
				continue
			}
			a, b, cc := at(c-1, r-1, e), at(c, r-1, e), at(c+1, r-1, e)
			d, f := at(c-1, r, e), at(c+1, r, e)
			g, hh, i := at(c-1, r+1, e), at(c, r+1, e), at(c+1, r+1, e)
			// gdaldem's x and y: west minus east, and south minus north over the (negative)
			// north-south resolution, both over 8 cells
			x := ((a + 2*d + g) - (cc + 2*f + i)) / (8 * dx)
			y := ((g + 2*hh + i) - (a + 2*b + cc)) / (8 * -dy)
			s := (math.Sin(alt) - (y*math.Cos(az)*math.Cos(alt) - x*math.Sin(az)*math.Cos(alt))) / math.Sqrt(1+x*x+y*y)
			out[r*w+c] = max(s, 0)
		}
	}
	return out
}
