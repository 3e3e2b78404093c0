package interp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRegistryDeclarations checks every declaration against its parser: the defaults as
// declared, the canonical string, the fields that Settings reads and the declared ranges.
func TestRegistryDeclarations(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Registry {
		if d.Name != strings.ToLower(d.Name) || seen[d.Name] || d.Help == "" || strings.Contains(d.Help, "\n") {
			t.Errorf("%s: names must be unique and lower case, help one line", d.Name)
		}
		seen[d.Name] = true
		bare, warns, err := ParseAlgorithm(d.Name)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %q", d.Name, err, warns)
		}
		if bare.Name() != d.Name {
			t.Errorf("%s parses as %s", d.Name, bare.Name())
		}
		// The canonical string names every key held in a field and parses back to the same.
		canon := Canonical(bare)
		again, warns, err := ParseAlgorithm(canon)
		if err != nil || len(warns) > 0 || !reflect.DeepEqual(again, bare) {
			t.Errorf("%s: canonical %q parses to %+v (%v %q), want %+v", d.Name, canon, again, err, warns, bare)
		}
		var keys []string
		for _, kv := range Settings(bare) {
			keys = append(keys, kv.Key)
		}
		names := map[string]bool{}
		for _, o := range d.Options {
			if names[o.Name] || o.Help == "" || strings.Contains(o.Help, "\n") {
				t.Errorf("%s: option %s: duplicate, or help not one line", d.Name, o.Name)
			}
			names[o.Name] = true
			if (o.Field != "") != slices.Contains(keys, o.Name) {
				t.Errorf("%s: option %s (field %q) and Settings %q disagree", d.Name, o.Name, o.Field, keys)
			}
			// The declared default is the parser's.
			if o.Default != "" {
				a, _, err := ParseAlgorithm(d.Name + ":" + o.Name + "=" + o.Default)
				if err != nil || !reflect.DeepEqual(a, bare) {
					t.Errorf("%s: %s=%s: %v %+v, want the defaults %+v", d.Name, o.Name, o.Default, err, a, bare)
				}
			}
			checkRange(t, d, o)
		}
	}
}

// checkRange checks that the parser refuses values out of the declared range, naming the key.
func checkRange(t *testing.T, d *Declaration, o Option) {
	t.Helper()
	var bad []float64
	if o.Min != nil {
		if o.MinExclusive {
			bad = append(bad, *o.Min)
		} else {
			bad = append(bad, *o.Min-1)
		}
	}
	if o.Max != nil {
		bad = append(bad, *o.Max+1)
	}
	for _, v := range bad {
		value := fmt.Sprint(v)
		if o.Type == TypeFloatList {
			value = strings.Repeat(value+",", 4) + value
		}
		s := d.Name + ":" + o.Name + "=" + value
		if o.Name == "radius" && d.Name != "aidw" && d.Name != "invdistnn" {
			s += ":radius1=1" // radius wins over radius1 and radius2
		}
		_, _, err := ParseAlgorithm(s)
		want := o.Name
		if o.Invalid != "" {
			want = o.Invalid
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %s", s, err, want)
		}
	}
}

func TestUnknownKeysByDeclaration(t *testing.T) {
	for _, d := range Registry {
		_, warns, err := ParseAlgorithm(d.Name + ":Zap=1")
		if d.GDAL {
			if err != nil || !slices.Equal(warns, []string{"Option Zap ignored"}) {
				t.Errorf("%s: %v %q, want gdal's warning", d.Name, err, warns)
			}
		} else if err == nil || !strings.Contains(err.Error(), "unknown option Zap (known: "+strings.Join(d.optionNames(), ", ")+")") {
			t.Errorf("%s: error %v, want unknown option Zap with the known keys", d.Name, err)
		}
	}
	// invdist reads radius, yet gdal 3.6 warns that it is ignored.
	if _, warns, _ := ParseAlgorithm("invdist:radius=5"); !slices.Equal(warns, []string{"Option radius ignored"}) {
		t.Errorf("invdist:radius=5: warnings %q", warns)
	}
}

func TestParsedGiven(t *testing.T) {
	for s, want := range map[string]bool{
		"aidw": false, "aidw:NoData=-9999": true, "invdist:power=3": false, "nearest:nodata=nan:nodata=1": true,
		"invdist:nodata=1:min_points_per_quadrant=1": true, "linear:radius=0": false,
	} {
		p, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if p.NoDataGiven() != want || p.Given("nodata") != want {
			t.Errorf("%s: nodata given %v, want %v", s, p.NoDataGiven(), want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for s, want := range map[string]string{
		"aidw:max_points=12:diagnostics=yes": "aidw:k=15:area=0:rmin=0:rmax=2:alphas=1.5,2,2.5,3,3.5:max_points=12:radius=0:min_points=0:nodata=0:diagnostics=yes:farfield=yes",
		"invdist:radius=80:nodata=nan":       "invdist:power=2:smoothing=0:radius1=80:radius2=80:angle=0:max_points=0:min_points=0:nodata=NaN:farfield=yes",
		// gdal 3.6 runs invdist with per-quadrant keys as invdistnn, dropping those keys.
		"invdist:radius=5:min_points_per_quadrant=1": "invdistnn:power=2:smoothing=0:radius=5:max_points=12:min_points=0:min_points_per_quadrant=0:max_points_per_quadrant=0:nodata=0",
		"count:radius=3":       "count:radius1=3:radius2=3:angle=0:min_points=0:min_points_per_quadrant=0:max_points_per_quadrant=0:nodata=0",
		"linear:nodata=-1e300": "linear:radius=-1:nodata=-1e+300",
	} {
		a, _, err := ParseAlgorithm(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Canonical(a); got != want {
			t.Errorf("%s: canonical %q, want %q", s, got, want)
		}
	}
}

// TestDeclaredEngines checks that each algorithm's declared engines are what the GPU engine
// can ask of it: a GPU form comes with the device parameters (DeviceAlgorithm), and
// parameters come with a declared form, so that `aidw algorithms`, QGIS and the engine choice
// read one fact.
func TestDeclaredEngines(t *testing.T) {
	for _, d := range Registry {
		a, _, err := ParseAlgorithm(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		// a type shared by several algorithms (Metric) may implement DeviceAlgorithm for some:
		// the others must refuse every form
		da, device := a.(DeviceAlgorithm)
		switch {
		case d.GPU != nil && !device:
			t.Errorf("%s: declares GPU form %+v but does not implement DeviceAlgorithm", d.Name, d.GPU)
		case d.GPU == nil && device:
			if _, ok, _ := da.DeviceParams(nil, Bounds{}); ok {
				t.Errorf("%s: declares no GPU form but its DeviceParams accept it", d.Name)
			}
		case d.GPU != nil:
			ex, _, err := ParseAlgorithm(d.GPUExample())
			if err != nil {
				t.Fatalf("%s: its GPU example: %v", d.Name, err)
			}
			if _, ok, why := ex.(DeviceAlgorithm).DeviceParams(nil, Bounds{}); !ok {
				t.Errorf("%s: its GPU example %s is refused: %s", d.Name, d.GPUExample(), why)
			}
		}
		if d.GPU != nil && (d.GPU.Forms == "" || strings.Contains(d.GPU.Accuracy.String(), "GPUAccuracy")) {
			t.Errorf("%s: GPU form %+v needs an accuracy and its forms in words", d.Name, d.GPU)
		}
		if GPUOf(a) != d.GPU {
			t.Errorf("%s: GPUOf is not the declaration's", d.Name)
		}
	}
}

// TestStreamFormsDeclared checks that every algorithm that streams declares what a streamed
// node holds, and that the forms that cannot stream say why.
func TestStreamFormsDeclared(t *testing.T) {
	for _, d := range Registry {
		a, _, err := ParseAlgorithm(d.Name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := StreamFormOf(a, 1000, 1e4)
		if ReachOf(a, 1000).Kind != ReachGlobal {
			if err == nil {
				t.Errorf("%s: a bounded reach declares a streamed form", d.Name)
			}
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), d.Name) {
				t.Errorf("%s: %v does not name the algorithm", d.Name, err)
			}
			continue
		}
		if !(f.NodeBytes > 0) || f.Passes(1000, 0) != 1 {
			t.Errorf("%s: streamed form %+v holds nothing a node, or passes more than once", d.Name, f)
		}
	}
}
