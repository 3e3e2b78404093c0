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
	// Copied, when set, is called once the engine holds a copy of Samples of its own (a
	// GPU's, once prepared), so that the caller may let them go while the nodes are computed.
	Copied func()
	// Held, when set, holds the samples: the sink of an engine that took them as they were
	// read (Take). Samples then has their form and origin and no arrays, and only that engine
	// prepares the problem.
	Held sample.Sink
}

// Len is the number of the problem's samples, wherever they are.
func (p *Problem) Len() int {
	if p.Held != nil {
		return p.Held.Len()
	}
	return p.Samples.Len()
}

// samplesCopier is a Prepared that needs no more of its problem's samples: it holds a copy
// of its own.
type samplesCopier interface {
	CopiedSamples() bool
}

// copiedSamples says whether prep needs no more of its problem's samples.
func copiedSamples(prep Prepared) bool {
	c, ok := prep.(samplesCopier)
	return ok && c.CopiedSamples()
}

// sampleCount is the number of samples the problem's nodes are computed from: the whole job's
// when the samples are a tile's (a node held out of cross-validation binds for one less).
func (p *Problem) sampleCount() int {
	if p.Job != nil {
		return p.Job.N
	}
	return p.Len()
}

// NodeXY is raster.Target.Node relative to the samples' origin.
func (p *Problem) NodeXY(col, row int) (x, y float64) {
	return p.Target.Node(col, row, p.Samples.OriginX, p.Samples.OriginY)
}

// lateCopier is a Prepared whose parts come to hold copies of the samples over time (engines
// that join as they become ready): it calls f once every part holds one, if ever.
type lateCopier interface {
	whenCopied(f func())
}

// whenCopied calls f once prep needs no more of its problem's samples: now, later (before
// prep's Close returns) or never.
func whenCopied(prep Prepared, f func()) {
	if l, ok := prep.(lateCopier); ok {
		l.whenCopied(f)
	} else if copiedSamples(prep) {
		f()
	}
}
