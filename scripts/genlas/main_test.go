package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/lidar"
	"github.com/aidw/aidw/sample"
)

// The generated files read back through the lidar package's reader in every version and format: the
// header agrees with the points, the ground points lie on the terrain, and the flags and
// returns are where the generator put them.
func TestGeneratedFilesReadBack(t *testing.T) {
	dir := t.TempDir()
	maxFormat := []int{1, 1, 3, 5, 10}
	for minor := range 5 {
		for format := 0; format <= maxFormat[minor]; format++ {
			c := config{n: 20000, minor: minor, format: format, x0: 600000, y0: 5e6, size: 500,
				ground: 0.5, noise: 0.01, withheld: 0.01, overlp: 0.05, epsg: 32631, vertical: 5773,
				scale: 0.001, seed: 3}
			name := fmt.Sprintf("1.%d-%d", minor, format)
			path := filepath.Join(dir, name+".las")
			if err := write(path, c); err != nil {
				t.Fatal(err)
			}
			all := &sample.Samples{}
			h, _, err := lidar.ReadFile(context.Background(), lidar.OpenLocal, path, lidar.Filter{}, all)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if h.PointCount != c.n || h.PointFormat != format || h.VersionMinor != minor || h.SRS != "EPSG:32631+5773" {
				t.Fatalf("%s: header %+v", name, h)
			}
			minX, minY, maxX, maxY := all.Bounds()
			got := []float64{minX, minY, maxX, maxY}
			want := []float64{h.Min[0], h.Min[1], h.Max[0], h.Max[1]}
			for i := range got {
				if math.Abs(got[i]-want[i]) > c.scale/2 {
					t.Fatalf("%s: points' box %v, header's %v", name, got, want)
				}
			}
			if minX < c.x0 || maxX > c.x0+c.size || minY < c.y0 || maxY > c.y0+c.size {
				t.Fatalf("%s: points' box %v is outside the area", name, got)
			}

			ground := &sample.Samples{}
			if _, _, err := lidar.ReadFile(context.Background(), lidar.OpenLocal, path, lidar.Filter{Classes: []int{2}}, ground); err != nil {
				t.Fatal(err)
			}
			// overlap points lose their class in formats 0-5 (they are class 12 there)
			frac := float64(ground.Len()) / float64(c.n)
			if frac < 0.4 || frac > 0.55 {
				t.Errorf("%s: ground fraction %.3f", name, frac)
			}
			for i := range ground.X {
				if d := ground.Z[i] - terrain(ground.X[i]-c.x0, ground.Y[i]-c.y0); math.Abs(d) > 0.2 {
					t.Fatalf("%s: ground point %d is %.3f m off the terrain", name, i, d)
				}
			}

			last := &sample.Samples{}
			flt := lidar.Filter{Returns: "last", DropWithheld: true, DropOverlap: true}
			if _, _, err := lidar.ReadFile(context.Background(), lidar.OpenLocal, path, flt, last); err != nil {
				t.Fatal(err)
			}
			// last returns are the ground and noise points, less the withheld and overlap ones
			want0 := float64(c.n) * (c.ground + c.noise) * (1 - c.withheld) * (1 - c.overlp)
			if d := float64(last.Len()) - want0; math.Abs(d) > 5*math.Sqrt(want0) {
				t.Errorf("%s: %d last returns kept, about %.0f expected", name, last.Len(), want0)
			}
		}
	}
}
