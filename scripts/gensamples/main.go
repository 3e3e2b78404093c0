// Command gensamples writes uniform random x,y,z samples as CSV (with an OGR VRT beside it so
// gdal_grid can read the same file), for benchmarks that anyone can rerun.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 1000000, "number of samples")
	x0 := flag.Float64("x0", 450000, "west edge")
	y0 := flag.Float64("y0", 5400000, "south edge")
	size := flag.Float64("size", 10000, "side of the square")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "samples.csv", "output CSV (a .vrt is written beside it)")
	flag.Parse()
	if err := write(*out, *n, *x0, *y0, *size, *seed); err != nil {
		log.Fatal(err)
	}
}

func write(path string, n int, x0, y0, size float64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w.WriteString("x,y,z\n")
	var buf []byte
	for i := 0; i < n; i++ {
		x, y := x0+rng.Float64()*size, y0+rng.Float64()*size
		// A smooth surface with some noise, so that every algorithm has something to do.
		z := 100 + 20*math.Sin((x-x0)/700)*math.Cos((y-y0)/900) + rng.NormFloat64()
		buf = strconv.AppendFloat(buf[:0], x, 'f', 3, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, y, 'f', 3, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, z, 'f', 4, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	layer := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	vrt := fmt.Sprintf(`<OGRVRTDataSource><OGRVRTLayer name="%s"><SrcDataSource relativeToVRT="1">%s</SrcDataSource>`+
		`<GeometryType>wkbPoint</GeometryType><LayerSRS>EPSG:32631</LayerSRS>`+
		`<GeometryField encoding="PointFromColumns" x="x" y="y" z="z"/></OGRVRTLayer></OGRVRTDataSource>`,
		layer, filepath.Base(path))
	return os.WriteFile(strings.TrimSuffix(path, filepath.Ext(path))+".vrt", []byte(vrt), 0o644)
}
