package interp

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Declaration is one algorithm of `-a` and its options, declared once: the parser reads the
// options through it (defaults, types, ranges, unknown keys), and help, `aidw algorithms`, the
// README's table and the QGIS provider are generated from it.
type Declaration struct {
	Name string
	// Help is one line that says what the algorithm computes.
	Help string
	// GDAL says that this is gdal_grid's algorithm, with gdal_grid 3.6's keys, defaults and
	// quirks: unknown keys get gdal_grid's warning (`Option foo ignored`) instead of an error.
	GDAL bool
	// Options in the order that help lists them and Settings reports them.
	Options []Option
	// GPU is the algorithm's form on the GPU engine, nil when it runs on the CPU engine only
	// (the GPU build then runs it there, with a message). Set, the algorithm implements
	// DeviceAlgorithm.
	GPU *GPUForm
	// parse builds the algorithm from the key=value pairs, reading them through kv.
	parse func(kv *keyValues) (Algorithm, error)
}

// OptionType is how an option's value is written and read.
type OptionType int

// The option types.
const (
	// TypeInt is a whole number; gdal_grid's algorithms also take "12.0", as gdal does.
	TypeInt OptionType = iota
	// TypeFloat is a number; finite unless the option says otherwise (nodata).
	TypeFloat
	// TypeFloatList is comma-separated numbers.
	TypeFloatList
	// TypeYesNo is a boolean: yes/no, true/false, on/off or 1/0.
	TypeYesNo
)

// String is the type's name in help and in `aidw algorithms --json`.
func (t OptionType) String() string {
	switch t {
	case TypeInt:
		return "int"
	case TypeFloat:
		return "float"
	case TypeFloatList:
		return "float_list"
	case TypeYesNo:
		return "bool"
	}
	return fmt.Sprintf("OptionType(%d)", int(t))
}

// Option is one key of an algorithm's `-a` string.
type Option struct {
	Name string
	Type OptionType
	// Default is the value taken when the key is absent, as written on the command line; ""
	// for a key that has none (radius of gdal_grid's search ellipse, which sets radius1 and
	// radius2 only when given).
	Default string
	// Min and Max bound the value (nil: unbounded); MinExclusive makes Min itself invalid.
	Min, Max     *float64
	MinExclusive bool
	// Help is one line.
	Help string

	// Field is the parsed algorithm's struct field that holds the value (see Settings); ""
	// for a key that only sets others or that the parse maps away (invdist's quadrant keys).
	Field string
	// NonFinite accepts NaN and infinities (nodata).
	NonFinite bool
	// Ignored is a key that gdal_grid 3.6 reads but leaves out of its list of known keys, so
	// that it warns `Option <key> ignored` all the same (invdist's radius).
	Ignored bool
	// Invalid replaces the generic message of a value out of range (gdal's own texts).
	Invalid string
}

func limit(v float64) *float64 { return &v }

// nodataOption is the nodata key that every algorithm has.
func nodataOption() Option {
	return Option{Name: "nodata", Type: TypeFloat, Default: "0", NonFinite: true, Field: "NodataValue",
		Help: "value of nodes that cannot be computed; given, it is also the band's nodata"}
}

// Lookup returns the declaration of the algorithm named name (lower case), or nil.
func Lookup(name string) *Declaration {
	for _, d := range Registry {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Option returns the declared option named name, or nil.
func (d *Declaration) Option(name string) *Option {
	for i := range d.Options {
		if d.Options[i].Name == name {
			return &d.Options[i]
		}
	}
	return nil
}

// optionNames lists the declared keys, in order.
func (d *Declaration) optionNames() []string {
	names := make([]string, len(d.Options))
	for i, o := range d.Options {
		names[i] = o.Name
	}
	return names
}

// defaultFloat is the declared default of a number (0 when there is none).
func (o *Option) defaultFloat() float64 {
	if o.Default == "" {
		return 0
	}
	f, err := strconv.ParseFloat(o.Default, 64)
	if err != nil {
		panic(fmt.Sprintf("option %s: default %q is not a number", o.Name, o.Default))
	}
	return f
}

// outOfRange returns the message for v outside the declared range, or "".
func (o *Option) outOfRange(v float64) string {
	var rule string
	switch {
	case o.Min != nil && o.MinExclusive && !(v > *o.Min):
		rule = fmt.Sprintf("> %v", *o.Min)
	case o.Min != nil && !(v >= *o.Min):
		rule = fmt.Sprintf(">= %v", *o.Min)
	case o.Max != nil && !(v <= *o.Max):
		rule = fmt.Sprintf("<= %v", *o.Max)
	default:
		return ""
	}
	if o.Invalid != "" {
		return o.Invalid
	}
	return fmt.Sprintf("%s=%v: must be %s", o.Name, v, rule)
}

// checkFields checks the declared ranges of the option fields of a (a pointer to the
// algorithm's struct), in the declared order, and returns the first violation: numbers must be
// finite (unless NonFinite) and within Min and Max, each number of a list too.
func (d *Declaration) checkFields(a any) error {
	v := reflect.ValueOf(a).Elem()
	for i := range d.Options {
		o := &d.Options[i]
		if o.Field == "" || o.NonFinite {
			continue
		}
		f := v.FieldByName(o.Field)
		finiteRule := "a finite number"
		if r := o.Range(); r != "" {
			finiteRule += " " + r
		}
		switch f.Kind() {
		case reflect.Int:
			if o.outOfRange(float64(f.Int())) != "" {
				return fmt.Errorf("%s=%d: must be %s", o.Name, f.Int(), strings.ReplaceAll(o.Range(), ", ", " and "))
			}
		case reflect.Float64:
			if x := f.Float(); !isFinite(x) || o.outOfRange(x) != "" {
				return fmt.Errorf("%s=%v: must be %s", o.Name, x, finiteRule)
			}
		case reflect.Array, reflect.Slice:
			for j := range f.Len() {
				if x := f.Index(j).Float(); !isFinite(x) || o.outOfRange(x) != "" {
					return fmt.Errorf("%s=%s: each must be %s", o.Name, formatValue(f), finiteRule)
				}
			}
		}
	}
	return nil
}

// Names lists the algorithms' names in the registry's order.
func Names() []string {
	names := make([]string, len(Registry))
	for i, d := range Registry {
		names[i] = d.Name
	}
	return names
}

// KeyValue is one key of an algorithm string and its value, as written on the command line.
type KeyValue struct{ Key, Value string }

// Settings reports every option of a parsed algorithm with its value, defaults included, in
// the declared order: those held in the algorithm's fields (not radius, which sets radius1
// and radius2). nil for an algorithm outside the registry.
func Settings(a Algorithm) []KeyValue {
	d := Lookup(a.Name())
	v := reflect.ValueOf(a)
	if d == nil || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	var out []KeyValue
	for _, o := range d.Options {
		if o.Field == "" {
			continue
		}
		f := v.Elem().FieldByName(o.Field)
		if !f.IsValid() {
			panic(fmt.Sprintf("algorithm %s: option %s: no field %s in %T", d.Name, o.Name, o.Field, a))
		}
		out = append(out, KeyValue{o.Name, formatValue(f)})
	}
	return out
}

// Canonical is the `-a` string of a parsed algorithm with every key and value, defaults
// included (see Settings): parsing it gives the same algorithm.
func Canonical(a Algorithm) string {
	parts := []string{a.Name()}
	for _, kv := range Settings(a) {
		parts = append(parts, kv.Key+"="+kv.Value)
	}
	return strings.Join(parts, ":")
}

func formatValue(f reflect.Value) string {
	switch f.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(f.Float(), 'g', -1, 64)
	case reflect.Int:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Bool:
		if f.Bool() {
			return "yes"
		}
		return "no"
	case reflect.Array, reflect.Slice:
		s := make([]string, f.Len())
		for i := range s {
			s[i] = formatValue(f.Index(i))
		}
		return strings.Join(s, ",")
	}
	panic(fmt.Sprintf("option value of kind %s", f.Kind()))
}

// Keys is the option list of help and the README: key=default for each option, the key alone
// for one without a default.
func (d *Declaration) Keys() string {
	s := make([]string, len(d.Options))
	for i, o := range d.Options {
		s[i] = o.Name
		if o.Default != "" {
			s[i] += "=" + o.Default
		}
	}
	return strings.Join(s, " ")
}

// Range describes an option's valid range for help ("" when unbounded).
func (o *Option) Range() string {
	var parts []string
	if o.Min != nil {
		op := ">="
		if o.MinExclusive {
			op = ">"
		}
		parts = append(parts, fmt.Sprintf("%s %v", op, *o.Min))
	}
	if o.Max != nil {
		parts = append(parts, fmt.Sprintf("<= %v", *o.Max))
	}
	return strings.Join(parts, ", ")
}

// MarkdownTable is the README's table of algorithms (section Algorithms), generated from the
// registry: `go run ./cmd/aidw algorithms --markdown` prints it.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| `-a` | what | keys (defaults) | engines |\n|---|---|---|---|\n")
	for i, d := range Registry {
		name := "`" + d.Name + "`"
		if i == 0 {
			name += " (default)"
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", name, d.Help, d.Keys(), d.Engines())
	}
	return b.String()
}

// AlgorithmsHelp is the algorithms' part of `aidw grid --help`, as gdal_grid's usage lists its
// algorithms: each with its keys and defaults.
func AlgorithmsHelp() string {
	var b strings.Builder
	b.WriteString("Algorithms (-a <name>[:<key>=<value>]...; `aidw algorithms` describes every key):\n")
	for i, d := range Registry {
		name := d.Name
		if i == 0 {
			name += " (default)"
		}
		fmt.Fprintf(&b, "  %s: %s\n", name, d.Help)
		fmt.Fprintf(&b, "      %s\n", wrap(d.Keys(), 90, "      "))
	}
	return b.String()
}

// wrap breaks s into lines of at most width characters at spaces, indenting continuations.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// knownGDALKeys is gdal 3.6's list of an algorithm's keys: the declared ones but those it
// warns about all the same.
func (d *Declaration) knownGDALKeys() []string {
	var known []string
	for _, o := range d.Options {
		if !o.Ignored {
			known = append(known, o.Name)
		}
	}
	return known
}

// isFinite says whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// The options that gdal_grid's algorithms share, with gdal 3.6's defaults.

func ellipseOptions() []Option {
	return []Option{
		{Name: "radius", Type: TypeFloat, Min: limit(0),
			Help: "sets radius1 and radius2 (the search ellipse is then a circle)"},
		{Name: "radius1", Type: TypeFloat, Default: "0", Min: limit(0), Field: "Radius1",
			Help: "first semi-axis of the search ellipse (along x when angle is 0); with radius2=0 every sample is searched"},
		{Name: "radius2", Type: TypeFloat, Default: "0", Min: limit(0), Field: "Radius2",
			Help: "second semi-axis of the search ellipse (along y when angle is 0)"},
		{Name: "angle", Type: TypeFloat, Default: "0", Field: "Angle",
			Help: "rotation of the search ellipse, degrees counter-clockwise"},
	}
}

func minPointsOption() Option {
	return Option{Name: "min_points", Type: TypeInt, Default: "0", Min: limit(0), Field: "MinPoints",
		Help: "nodes with fewer samples in the search area are nodata"}
}

func quadrantOptions() []Option {
	return []Option{
		{Name: "min_points_per_quadrant", Type: TypeInt, Default: "0", Min: limit(0), Field: "MinPerQuadrant",
			Help: "take the nearest samples from the four quadrants in turn; a quadrant with fewer gives nodata (0: no quadrant search)"},
		{Name: "max_points_per_quadrant", Type: TypeInt, Default: "0", Min: limit(0), Field: "MaxPerQuadrant",
			Help: "take at most this many samples from each quadrant (0: no quadrant search)"},
	}
}

// options concatenates option lists.
func options(lists ...[]Option) []Option {
	var out []Option
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
