package grid

import "github.com/aidw/aidw/sample"

// Of builds the even-grid index of the samples, compact when they are.
func Of(s *sample.Samples) *Index {
	if s.IsCompact() {
		return BuildCompact(s.QX, s.QY, s.QuantumX, s.QuantumY)
	}
	return Build(s.X, s.Y)
}
