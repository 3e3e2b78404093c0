package gridding_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/gridding"
)

// A DEM from a CSV of heights: what `aidw grid -a aidw:k=12 -zfield elevation -outsize 64 48
// -q n43_samples.csv dem.tif` does, as one call. The raster is published only when the run
// succeeds.
func ExampleGrid() {
	dir, err := os.MkdirTemp("", "gridding")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	o := &gridding.Options{
		Sources:   []string{"../testdata/n43_samples.csv"},
		Dest:      filepath.Join(dir, "dem.tif"),
		Algorithm: "aidw:k=12",
		Select:    gdalio.SourceOptions{ZField: "elevation"},
		Outsize:   []int{64, 48},
	}
	if err := gridding.Grid(context.Background(), o); err != nil {
		log.Fatal(err)
	}
	dem, err := gdalio.OpenRaster(o.Dest)
	if err != nil {
		log.Fatal(err)
	}
	defer dem.Close()
	heights := make([]float64, dem.Cols*dem.Rows)
	if err := dem.ReadRows(1, 0, dem.Rows, heights); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d x %d nodes, %d band, by %s\n", dem.Cols, dem.Rows, dem.Bands, dem.Metadata("AIDW_ALGORITHM_NAME"))
	// AIDW weighs the samples: every node lies within their heights (75 to 456 m in the CSV).
	fmt.Printf("heights from %.0f to %.0f m\n", slices.Min(heights), slices.Max(heights))
	// Output:
	// 64 x 48 nodes, 1 band, by aidw
	// heights from 75 to 456 m
}
