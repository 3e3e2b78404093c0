package kernels

import (
	"fmt"
	"reflect"
	"testing"
)

// TestProblemMirror checks the Go struct problem against problemFields, which
// TestProblemLayout checks against knn.cuh.
func TestProblemMirror(t *testing.T) {
	typ := reflect.TypeFor[problem]()
	var got []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := f.Name
		if f.Type.Kind() == reflect.Array {
			name = fmt.Sprintf("%s[%d]", name, f.Type.Len())
		}
		if f.Type.Size()%8 != 0 || f.Offset%8 != 0 {
			t.Errorf("problem.%s: %d bytes at %d", f.Name, f.Type.Size(), f.Offset)
		}
		got = append(got, name)
	}
	if !reflect.DeepEqual(got, problemFields) {
		t.Errorf("problem's fields %v, problemFields %v", got, problemFields)
	}
}
