package interp

import "github.com/aidw/aidw/sample"

// Taker is an engine that takes a problem's samples into memory of its own as they are read
// (a GPU's), so that the host never holds them all: Take returns a sink for at most n samples
// in proto's compact form and origin, or nil when the engine cannot hold them. A problem whose
// Held is that sink is prepared from them, relative to its Samples' origin then (the
// target's centre: the engine moves them there as sample.Samples.MoveOrigin would).
type Taker interface {
	Take(a Algorithm, proto *sample.Samples, n int) (sample.Sink, error)
}

// Take is eng's sink for n samples of algorithm a in proto's form, or nil when eng does not
// take samples that way: it takes compact samples whose every coordinate is within maxOffset
// of the origin, which checkCoordinates then need not look at one by one.
func Take(eng Engine, a Algorithm, proto *sample.Samples, n int) (sample.Sink, error) {
	t, ok := eng.(Taker)
	if !ok || !compactNear(proto) || WhyNotHold(eng, a, n) != "" {
		return nil, nil
	}
	return t.Take(a, proto, n)
}

// groupTaker is an engine that takes samples for a group of engines together (one sink that
// fills the memory of each).
type groupTaker interface {
	TakeTogether(group []Engine, a Algorithm, proto *sample.Samples, n int) (sample.Sink, error)
}

// Take implements Taker: the group's engines take the samples together, when they can.
func (m *Multi) Take(a Algorithm, proto *sample.Samples, n int) (sample.Sink, error) {
	if g, ok := m.Engines[0].(groupTaker); ok {
		return g.TakeTogether(m.Engines, a, proto, n)
	}
	return nil, nil
}
