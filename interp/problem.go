package interp

import (
	"github.com/aidw/aidw/raster"
	"github.com/aidw/aidw/sample"
)

// Problem is one band to compute: samples, target and algorithm.
type Problem struct {
	Samples *sample.Samples
	Target  raster.Target
	Alg     Algorithm
}

// NodeXY is raster.Target.Node relative to the samples' origin.
func (p *Problem) NodeXY(col, row int) (x, y float64) {
	return p.Target.Node(col, row, p.Samples.OriginX, p.Samples.OriginY)
}
