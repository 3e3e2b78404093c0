package interp

// WithNoData sets the value an algorithm gives the nodes it cannot compute (its nodata= key)
// and that masked nodes get, as if its -a string had named it: a template's nodata, or the
// LiDAR default. It returns false for an algorithm without such a value.
func WithNoData(a Algorithm, v float64) bool {
	switch a := a.(type) {
	case *AIDW:
		a.NodataValue = v
	case *InvDist:
		a.NodataValue = v
	case *InvDistNN:
		a.NodataValue = v
	case *Nearest:
		a.NodataValue = v
	case *Average:
		a.NodataValue = v
	case *Metric:
		a.NodataValue = v
	case *Linear:
		a.NodataValue = v
	default:
		return false
	}
	return true
}
