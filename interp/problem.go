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
	// Job, when set, says that the samples are part of a larger job's (see Job).
	Job *Job
}

// sampleCount is the number of samples the problem's nodes are computed from: the whole job's
// when the samples are a tile's (a node held out of cross-validation binds for one less).
func (p *Problem) sampleCount() int {
	if p.Job != nil {
		return p.Job.N
	}
	return p.Samples.Len()
}

// NodeXY is raster.Target.Node relative to the samples' origin.
func (p *Problem) NodeXY(col, row int) (x, y float64) {
	return p.Target.Node(col, row, p.Samples.OriginX, p.Samples.OriginY)
}
