package interp

import "reflect"

// WithNoData sets the value an algorithm gives the nodes it cannot compute (its nodata= key)
// and that masked nodes get, as if its -a string had named it: a template's nodata, or the
// LiDAR default. It goes through the algorithm's declaration, so a new algorithm needs nothing
// here; it returns false for an algorithm that declares no nodata.
func WithNoData(a Algorithm, v float64) bool {
	d := Lookup(a.Name())
	if d == nil {
		return false
	}
	o := d.Option("nodata")
	p := reflect.ValueOf(a)
	if o == nil || o.Field == "" || p.Kind() != reflect.Pointer {
		return false
	}
	f := p.Elem().FieldByName(o.Field)
	if !f.IsValid() || !f.CanSet() || f.Kind() != reflect.Float64 {
		return false
	}
	f.SetFloat(v)
	return true
}
