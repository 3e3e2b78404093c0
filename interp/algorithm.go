package interp

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aidw/aidw/internal/gdalbool"
)

// Algorithm is a parsed, validated `-a name:key=value:...` string. Each algorithm is an options
// struct with gdal_grid's key names and defaults (aidw's are the project's own).
type Algorithm interface {
	// Name is the algorithm's name as written on the command line.
	Name() string
	// NoData is the value of nodes the algorithm cannot compute.
	NoData() float64
}

// ParseAlgorithm parses an `-a` string. Warnings are what gdal_grid itself would warn about
// (unknown keys of gdal_grid's algorithms); aidw's unknown keys are errors.
func ParseAlgorithm(s string) (Algorithm, []string, error) {
	p, err := Parse(s)
	if err != nil {
		return nil, nil, err
	}
	return p.Algorithm, p.Warnings, nil
}

// Parsed is a parsed `-a` string: the algorithm, gdal_grid's warnings and the keys given.
type Parsed struct {
	Algorithm Algorithm
	Warnings  []string
	given     []string // the keys given, lower case
}

// Given says whether the `-a` string set key (lower case), as `nodata` decides whether the
// band gets a nodata value.
func (p *Parsed) Given(key string) bool { return slices.Contains(p.given, key) }

// NoDataGiven says whether the `-a` string set nodata.
func (p *Parsed) NoDataGiven() bool { return p.Given("nodata") }

// Parse parses an `-a` string through the algorithm's declaration (see Registry).
func Parse(s string) (*Parsed, error) {
	parts := strings.Split(s, ":")
	name := strings.ToLower(strings.TrimSpace(parts[0]))
	d := Lookup(name)
	if d == nil {
		names := Names()
		sort.Strings(names)
		return nil, fmt.Errorf("unknown algorithm %q (known: %s)", parts[0], strings.Join(names, ", "))
	}
	kv := &keyValues{decl: d, values: map[string]string{}}
	for _, part := range parts[1:] {
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		if !found {
			return nil, fmt.Errorf("algorithm %s: option %q is not key=value", name, part)
		}
		key := strings.ToLower(strings.TrimSpace(k))
		if _, dup := kv.values[key]; dup {
			continue // gdal_grid reads the first of repeated keys
		}
		kv.values[key] = strings.TrimSpace(v)
		kv.order = append(kv.order, key)
		kv.given = append(kv.given, strings.TrimSpace(k))
	}
	a, err := d.parse(kv)
	if err != nil {
		return nil, fmt.Errorf("algorithm %s: %w", name, err)
	}
	return &Parsed{Algorithm: a, Warnings: kv.warnings, given: kv.order}, nil
}

// keyValues hands out an algorithm's options, with the defaults and types its declaration
// gives, and remembers which were used, so that unknown keys can be reported.
type keyValues struct {
	decl     *Declaration
	values   map[string]string
	order    []string // keys in the order given, lower case
	given    []string // the same keys as written, for messages
	used     map[string]bool
	warnings []string
	err      error
}

func (kv *keyValues) raw(key string) (string, bool) {
	if kv.used == nil {
		kv.used = map[string]bool{}
	}
	kv.used[key] = true
	v, ok := kv.values[key]
	return v, ok
}

// option is key's declaration; reading an undeclared key is a mistake in the algorithm's code.
func (kv *keyValues) option(key string) *Option {
	o := kv.decl.Option(key)
	if o == nil {
		panic(fmt.Sprintf("algorithm %s reads the undeclared option %s", kv.decl.Name, key))
	}
	return o
}

// Float returns key's value, or its default when absent; a malformed value is remembered as
// the error.
func (kv *keyValues) Float(key string) float64 {
	return kv.floatOr(key, kv.option(key).defaultFloat())
}

// floatOr is Float with another default than the declared one.
func (kv *keyValues) floatOr(key string, def float64) float64 {
	v, ok := kv.raw(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		kv.fail(fmt.Errorf("%s=%q is not a number", key, v))
		return def
	}
	return f
}

// Int returns key's value as an integer, or its default when absent.
func (kv *keyValues) Int(key string) int {
	def := int(kv.option(key).defaultFloat())
	v, ok := kv.raw(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		kv.fail(fmt.Errorf("%s=%q is not an integer", key, v))
		return def
	}
	return n
}

// Floats returns key's value as a comma-separated list of numbers, or its default when absent.
func (kv *keyValues) Floats(key string) []float64 {
	def, err := parseFloats(kv.option(key).Default)
	if err != nil {
		panic(fmt.Sprintf("option %s: default %q is not a list of numbers", key, kv.option(key).Default))
	}
	v, ok := kv.raw(key)
	if !ok {
		return def
	}
	out, err := parseFloats(v)
	if err != nil {
		kv.fail(fmt.Errorf("%s=%q is not a list of numbers", key, v))
		return def
	}
	return out
}

func parseFloats(v string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// YesNo reads a boolean key: yes/no, true/false, on/off or 1/0; absent is its default.
func (kv *keyValues) YesNo(key string) bool {
	def, _ := gdalbool.Parse(kv.option(key).Default)
	v, ok := kv.raw(key)
	if !ok {
		return def
	}
	b, ok := gdalbool.Parse(v)
	if !ok {
		kv.fail(fmt.Errorf("%s=%q: must be yes or no", key, v))
		return def
	}
	return b
}

func (kv *keyValues) fail(err error) {
	if kv.err == nil {
		kv.err = err
	}
}

// unknownError is the error for keys that no option read (aidw's own algorithms refuse them),
// or nil.
func (kv *keyValues) unknownError() error {
	if u := kv.unknown(); len(u) > 0 {
		return fmt.Errorf("unknown option %s (known: %s)", strings.Join(u, ", "), strings.Join(kv.decl.optionNames(), ", "))
	}
	return nil
}

// unknown returns the keys that no option read, in the order and case given.
func (kv *keyValues) unknown() []string {
	var out []string
	for i, k := range kv.order {
		if !kv.used[k] {
			out = append(out, kv.given[i])
		}
	}
	return out
}
