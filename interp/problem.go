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
	// leaveOneOut says that each node is computed with one sample held out (see LeaveOneOut),
	// so binds size what depends on the number of samples for n-1 of them.
	leaveOneOut bool
	// Job, when set, says that the samples are part of a larger job's (see Job).
	Job *Job
}

// sampleCount is the number of samples a node is computed from.
func (p *Problem) sampleCount() int {
	if p.Job != nil {
		return p.Job.N
	}
	if p.leaveOneOut {
		return p.Samples.Len() - 1
	}
	return p.Samples.Len()
}

// NodeXY is raster.Target.Node relative to the samples' origin.
func (p *Problem) NodeXY(col, row int) (x, y float64) {
	return p.Target.Node(col, row, p.Samples.OriginX, p.Samples.OriginY)
}
