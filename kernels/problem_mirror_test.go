package kernels

import (
	"fmt"
	"reflect"
	"testing"
)

// TestProblemMirror checks the Go structs problem and farTree against problemFields and
// farTreeFields, which TestProblemLayout checks against the CUDA sources.
func TestProblemMirror(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{{reflect.TypeFor[problem](), problemFields}, {reflect.TypeFor[farTree](), farTreeFields}} {
		var got []string
		for i := range c.typ.NumField() {
			f := c.typ.Field(i)
			name := f.Name
			if f.Type.Kind() == reflect.Array {
				name = fmt.Sprintf("%s[%d]", name, f.Type.Len())
			}
			if f.Type.Size()%8 != 0 || f.Offset%8 != 0 {
				t.Errorf("%s.%s: %d bytes at %d", c.typ.Name(), f.Name, f.Type.Size(), f.Offset)
			}
			got = append(got, name)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s's fields %v, want %v", c.typ.Name(), got, c.want)
		}
	}
}
