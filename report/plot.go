package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The cross-validation plot has one square panel per series, two to a row, all on the same
// scale: panelSide pixels of data area with margins for the title, ticks and axis labels.
const (
	panelSide               = 460
	panelLeft, panelRight   = 110, 30
	panelTop, panelBottom   = 50, 80
	plotTitle               = 50
	panelWidth, panelHeight = panelLeft + panelSide + panelRight, panelTop + panelSide + panelBottom
	plotColumns             = 2
	textScale               = 2 // basicfont's 7x13 glyphs, doubled
	tickCount               = 5
)

// PlotSeries is one algorithm's predictions against the observations; pairs with a NaN are
// left out. Stats is written in the panel's top-left corner.
type PlotSeries struct {
	Label, Stats        string
	Observed, Predicted []float64
}

// plotColours are the series' colours, in order (matplotlib's tab10).
var plotColours = []color.NRGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// PlotColour is the colour of series i.
func PlotColour(i int) color.NRGBA { return plotColours[i%len(plotColours)] }

// PlotSize is the size in pixels of the plot of n series.
func PlotSize(n int) (w, h int) {
	n = max(n, 1)
	cols := min(n, plotColumns)
	rows := (n + cols - 1) / cols
	return cols * panelWidth, plotTitle + rows*panelHeight
}

// PlotPNG draws predicted against observed values, a panel per series on a common scale, each
// with its axes, the 1:1 line, its label and stats, as a PNG.
func PlotPNG(title string, series []PlotSeries) ([]byte, error) {
	w, h := PlotSize(len(series))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	ink := color.NRGBA{40, 40, 40, 255}
	title = fit(title, w-20)
	text(img, title, (w-textWidth(title))/2, 14, ink)
	lo, hi := plotRange(series)
	ticks := niceTicks(lo, hi, tickCount)
	lo, hi = min(lo, ticks[0]), max(hi, ticks[len(ticks)-1])
	for i, s := range series {
		x0 := (i%plotColumns)*panelWidth + panelLeft
		y0 := plotTitle + (i/plotColumns)*panelHeight + panelTop
		panel(img, s, PlotColour(i), x0, y0, lo, hi, ticks, ink)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the plot: %w", err)
	}
	return buf.Bytes(), nil
}

// panel draws one series with its data area's top-left corner at (x0, y0).
func panel(img *image.NRGBA, s PlotSeries, c color.NRGBA, x0, y0 int, lo, hi float64, ticks []float64, ink color.NRGBA) {
	px := func(v float64) float64 { return float64(x0) + (v-lo)/(hi-lo)*panelSide }
	py := func(v float64) float64 { return float64(y0) + panelSide - (v-lo)/(hi-lo)*panelSide }
	grid := color.NRGBA{225, 225, 225, 255}
	for _, t := range ticks {
		x, y := int(math.Round(px(t))), int(math.Round(py(t)))
		line(img, x, y0, x, y0+panelSide, grid, 0)
		line(img, x0, y, x0+panelSide, y, grid, 0)
		label := strconv.FormatFloat(t, 'g', 6, 64)
		text(img, label, x-textWidth(label)/2, y0+panelSide+10, ink)
		text(img, label, x0-10-textWidth(label), y-textHeight/2, ink)
	}
	line(img, x0, y0+panelSide, x0+panelSide, y0, color.NRGBA{90, 90, 90, 255}, 8) // 1:1, dashed
	c.A = 150
	for k, o := range s.Observed {
		if p := s.Predicted[k]; !math.IsNaN(o) && !math.IsNaN(p) {
			dot(img, px(o), py(p), 2.6, c)
		}
	}
	box(img, x0, y0, x0+panelSide, y0+panelSide, ink)
	c.A = 255
	for dy := 5; dy < textHeight-5; dy++ {
		for dx := range 16 {
			img.SetNRGBA(x0+dx, y0-36+dy, c)
		}
	}
	if room := panelSide + panelRight - 24; textWidth(s.Label) <= room {
		text(img, s.Label, x0+24, y0-36, ink)
	} else { // a long label in glyphs half as large, and cut if still too long
		scaledText(img, fitScaled(s.Label, room, 1), x0+24, y0-36+textHeight/4, ink, 1)
	}
	text(img, fit(s.Stats, panelSide-20), x0+10, y0+10, ink)
	text(img, "observed", x0+(panelSide-textWidth("observed"))/2, y0+panelSide+46, ink)
	vertical(img, "predicted", x0-panelLeft+14, y0+(panelSide+textWidth("predicted"))/2, ink)
}

// fit cuts s to width pixels of text, marking the cut with "...".
func fit(s string, width int) string { return fitScaled(s, width, textScale) }

func fitScaled(s string, width, scale int) string {
	room := width / (7 * scale)
	if len(s) <= room {
		return s
	}
	return s[:max(room-3, 0)] + "..."
}

// plotRange is the range of every observed and predicted value, widened when flat.
func plotRange(series []PlotSeries) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for k, o := range s.Observed {
			if p := s.Predicted[k]; !math.IsNaN(o) && !math.IsNaN(p) {
				lo, hi = min(lo, o, p), max(hi, o, p)
			}
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 1, hi + 1
	}
	return lo, hi
}

// niceTicks returns about n round values (1, 2 or 5 times a power of ten apart) that cover
// [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for t := math.Floor(lo/step) * step; t < hi+step; t += step {
		ticks = append(ticks, math.Round(t/step)*step)
		if t >= hi {
			break
		}
	}
	return ticks
}

// line draws a one-pixel line; dash > 0 leaves gaps of that length.
func line(img *image.NRGBA, x0, y0, x1, y1 int, c color.NRGBA, dash int) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		if dash > 0 && (i/dash)%2 == 1 {
			continue
		}
		img.SetNRGBA(x0+(x1-x0)*i/n, y0+(y1-y0)*i/n, c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func box(img *image.NRGBA, x0, y0, x1, y1 int, c color.NRGBA) {
	line(img, x0, y0, x1, y0, c, 0)
	line(img, x1, y0, x1, y1, c, 0)
	line(img, x1, y1, x0, y1, c, 0)
	line(img, x0, y1, x0, y0, c, 0)
}

// dot blends a disc of radius r at (x, y) over the image, with the colour's alpha.
func dot(img *image.NRGBA, x, y, r float64, c color.NRGBA) {
	src := image.NewUniform(c)
	for j := int(y - r - 1); j <= int(y+r+1); j++ {
		for i := int(x - r - 1); i <= int(x+r+1); i++ {
			if (float64(i)+0.5-x)*(float64(i)+0.5-x)+(float64(j)+0.5-y)*(float64(j)+0.5-y) <= r*r {
				draw.Draw(img, image.Rect(i, j, i+1, j+1), src, image.Point{}, draw.Over)
			}
		}
	}
}

// textHeight is the height of a line of text in pixels.
const textHeight = 13 * textScale

func textWidth(s string) int { return len(s) * 7 * textScale }

// text draws s with its top-left corner at (x, y), basicfont's glyphs scaled by textScale.
func text(img *image.NRGBA, s string, x, y int, c color.NRGBA) {
	scaledText(img, s, x, y, c, textScale)
}

// scaledText draws s with basicfont's glyphs scaled by scale.
func scaledText(img *image.NRGBA, s string, x, y int, c color.NRGBA, scale int) {
	small := glyphs(s)
	for j := range small.Bounds().Dy() {
		for i := range small.Bounds().Dx() {
			if small.AlphaAt(i, j).A > 127 {
				for dj := range scale {
					for di := range scale {
						img.SetNRGBA(x+i*scale+di, y+j*scale+dj, c)
					}
				}
			}
		}
	}
}

// vertical draws s turned a quarter left, reading upwards, its bottom-left corner at (x, y).
func vertical(img *image.NRGBA, s string, x, y int, c color.NRGBA) {
	small := glyphs(s)
	for j := range small.Bounds().Dy() {
		for i := range small.Bounds().Dx() {
			if small.AlphaAt(i, j).A > 127 {
				for dj := range textScale {
					for di := range textScale {
						img.SetNRGBA(x+j*textScale+dj, y-i*textScale-di, c)
					}
				}
			}
		}
	}
}

// glyphs renders s in basicfont's 7x13 face as an alpha mask.
func glyphs(s string) *image.Alpha {
	face := basicfont.Face7x13
	m := image.NewAlpha(image.Rect(0, 0, 7*len(s), 13))
	d := font.Drawer{Dst: m, Src: image.Opaque, Face: face, Dot: fixed.P(0, face.Ascent)}
	d.DrawString(s)
	return m
}
