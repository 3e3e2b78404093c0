package interp

// compactOrderer is an engine that computes some algorithms from compact samples in any order
// as from the same samples in canonical order (sample.Canonicalize): it breaks ties between
// samples by their coordinates, in the canonical order's terms, rather than by their place.
type compactOrderer interface {
	OrdersCompact(a Algorithm) bool
}

// OrdersCompact says whether engine e computes algorithm a from compact samples in input order
// (sample.Samples.InputOrder) as from the same samples in canonical order, so that reading
// need not sort them.
func OrdersCompact(e Engine, a Algorithm) bool {
	o, ok := e.(compactOrderer)
	return ok && o.OrdersCompact(a)
}

// OrdersCompact holds when every engine of m orders compact samples for a.
func (m *Multi) OrdersCompact(a Algorithm) bool {
	return m.every(func(e Engine) bool { return OrdersCompact(e, a) })
}
