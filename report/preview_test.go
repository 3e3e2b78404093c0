package report

import (
	"bytes"
	"image/png"
	"math"
	"testing"

	"github.com/aidw/aidw/raster"
)

// TestHillshadeOfPlanes compares gdaldem's formula on planes with the cosine of the angle
// between the plane's normal and the direction of the sun (azimuth 315, altitude 45).
func TestHillshadeOfPlanes(t *testing.T) {
	const w, h, dx, dy = 6, 5, 2.0, 3.0
	az, alt := 315*math.Pi/180, 45*math.Pi/180
	sun := [3]float64{math.Sin(az) * math.Cos(alt), math.Cos(az) * math.Cos(alt), math.Sin(alt)} // east, north, up
	for _, slope := range [][2]float64{{0, 0}, {0.5, 0}, {-0.5, 0}, {0, 1}, {0.3, -0.7}, {2, 2}, {-3, 1}} {
		a, b := slope[0], slope[1] // dz/d(east), dz/d(north)
		z := make([]float64, w*h)
		for r := range h {
			for c := range w {
				z[r*w+c] = 100 + a*float64(c)*dx - b*float64(r)*dy // rows run south
			}
		}
		got := hillshade(z, w, h, dx, dy)
		norm := math.Sqrt(1 + a*a + b*b)
		want := max(0, (-a*sun[0]-b*sun[1]+sun[2])/norm)
		for r := 1; r < h-1; r++ {
			for c := 1; c < w-1; c++ {
				if g := got[r*w+c]; math.Abs(g-want) > 1e-12 {
					t.Errorf("slope %v at (%d,%d): shade %.15g, want %.15g", slope, c, r, g, want)
				}
			}
		}
	}
}

// TestPreviewStreamsAndRenders feeds a raster wider than the preview's limit in row blocks,
// with a nodata region, and checks the averaging, the size, the transparency and the colours.
func TestPreviewStreamsAndRenders(t *testing.T) {
	const cols, rows, nodata = 4500, 301, -9999.0
	tg := raster.NorthUp(450000, 5400000, 450000+cols*10, 5400000+rows*10, cols, rows)
	p := NewPreview(tg, false, nodata, true)
	w, h := p.Size()
	if w != 1500 || h != 101 {
		t.Fatalf("preview %dx%d, want 1500x101 (a third of 4500x301, rounded up)", w, h)
	}
	value := func(c, r int) float64 {
		if c < 600 {
			return nodata
		}
		return 50*math.Sin(float64(c)/300) + 0.2*float64(r)
	}
	for row0 := 0; row0 < rows; row0 += 7 {
		n := min(7, rows-row0)
		block := make([]float64, n*cols)
		for r := range n {
			for c := range cols {
				block[r*cols+c] = value(c, row0+r)
			}
		}
		p.AddRows(row0, n, block)
	}
	// a preview pixel is the mean of its 3x3 raster pixels (one row of 3 at the bottom edge)
	for _, pix := range [][2]int{{200, 0}, {700, 50}, {1499, 100}} {
		sum, n := 0.0, 0
		for r := pix[1] * 3; r < min(pix[1]*3+3, rows); r++ {
			for c := pix[0] * 3; c < pix[0]*3+3; c++ {
				sum, n = sum+value(c, r), n+1
			}
		}
		i := pix[1]*w + pix[0]
		if got := p.sum[i] / float64(p.count[i]); math.Abs(got-sum/float64(n)) > 1e-9 {
			t.Errorf("preview pixel %v = %g, want the mean %g", pix, got, sum/float64(n))
		}
	}
	data, err := p.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("PNG %v, want %dx%d", b, w, h)
	}
	if _, _, _, a := img.At(10, 10).RGBA(); a != 0 {
		t.Errorf("nodata pixel alpha %d, want transparent", a)
	}
	colours := map[[3]uint32]bool{}
	for x := 200; x < w; x += 7 {
		r, g, b, a := img.At(x, 50).RGBA()
		if a != 0xffff {
			t.Fatalf("valid pixel (%d,50) alpha %d, want opaque", x, a)
		}
		colours[[3]uint32{r, g, b}] = true
	}
	if len(colours) < 20 {
		t.Errorf("%d distinct colours along a row: the preview should not be uniform", len(colours))
	}
}

func TestPercentileAndRamp(t *testing.T) {
	v := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p := percentile(v, 0.02); math.Abs(p-0.2) > 1e-12 {
		t.Errorf("2nd percentile %g, want 0.2", p)
	}
	if p := percentile(v, 0.98); math.Abs(p-9.8) > 1e-12 {
		t.Errorf("98th percentile %g, want 9.8", p)
	}
	lo, hi := terrainColour(-1), terrainColour(2)
	if lo != terrainColour(0) || hi != terrainColour(1) || lo == hi {
		t.Errorf("ramp ends %v and %v", lo, hi)
	}
}
