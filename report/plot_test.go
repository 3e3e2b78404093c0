package report

import (
	"bytes"
	"image/png"
	"math"
	"testing"
)

// TestPlotPNG checks that the plot is a PNG of the documented size that shows every
// series' colour.
func TestPlotPNG(t *testing.T) {
	obs := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	series := []PlotSeries{
		{"one", "RMSE 0.3", obs, []float64{1.1, 2.2, 2.9, 4.5, math.NaN(), 6, 7.3, 7.7}},
		{"two", "RMSE 1", obs, []float64{2, 1, 4, 3, 6, 5, 8, 7}},
		{"three: a label much too long to fit above its panel, which the plot cuts", "", obs, obs},
	}
	data, err := PlotPNG("title", series)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// two panels of 600x590 a row, two rows, and the title's 50 rows
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1230 {
		t.Fatalf("plot %v, want 1200x1230", b)
	}
	if w, h := PlotSize(len(series)); w != 1200 || h != 1230 {
		t.Errorf("PlotSize(3) = %dx%d", w, h)
	}
	for i := range series {
		want := PlotColour(i)
		found := false
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y && !found; y++ {
			for x := b.Min.X; x < b.Max.X && !found; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				found = uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B
			}
		}
		if !found {
			t.Errorf("series %d's colour %v is nowhere in the plot", i, want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range [][2]float64{{75, 456}, {0.1, 0.13}, {-5, 5}, {1000, 1000.5}} {
		ticks := niceTicks(c[0], c[1], 6)
		if ticks[0] > c[0] || ticks[len(ticks)-1] < c[1] || len(ticks) < 3 || len(ticks) > 13 {
			t.Errorf("%v: ticks %v do not cover it in 3 to 13 steps", c, ticks)
		}
	}
}
