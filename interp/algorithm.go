package interp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Algorithm is a parsed, validated `-a name:key=value:...` string. Each algorithm is an options
// struct with gdal_grid's key names and defaults (aidw's are the project's own).
type Algorithm interface {
	// Name is the algorithm's name as written on the command line.
	Name() string
	// NoData is the value of nodes the algorithm cannot compute.
	NoData() float64
}

// parser is how each algorithm is built from its key=value pairs.
type parser func(kv *keyValues) (Algorithm, error)

// parsers maps algorithm names to their parsers; each algorithm's file registers itself in
// its init, so adding an algorithm touches one file.
var parsers = map[string]parser{}

// ParseAlgorithm parses an `-a` string. Warnings are what gdal_grid itself would warn about
// (unknown keys of gdal_grid's algorithms); aidw's unknown keys are errors.
func ParseAlgorithm(s string) (Algorithm, []string, error) {
	parts := strings.Split(s, ":")
	name := strings.ToLower(strings.TrimSpace(parts[0]))
	p, ok := parsers[name]
	if !ok {
		names := make([]string, 0, len(parsers))
		for n := range parsers {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, nil, fmt.Errorf("unknown algorithm %q (known: %s)", parts[0], strings.Join(names, ", "))
	}
	kv := &keyValues{alg: name, values: map[string]string{}}
	for _, part := range parts[1:] {
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		if !found {
			return nil, nil, fmt.Errorf("algorithm %s: option %q is not key=value", name, part)
		}
		key := strings.ToLower(strings.TrimSpace(k))
		if _, dup := kv.values[key]; dup {
			continue // gdal_grid reads the first of repeated keys
		}
		kv.values[key] = strings.TrimSpace(v)
		kv.order = append(kv.order, key)
		kv.given = append(kv.given, strings.TrimSpace(k))
	}
	a, err := p(kv)
	if err != nil {
		return nil, nil, fmt.Errorf("algorithm %s: %w", name, err)
	}
	return a, kv.warnings, nil
}

// keyValues hands out an algorithm's options and remembers which were used, so that unknown
// keys can be reported.
type keyValues struct {
	alg      string
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

// Float returns key's value, or def when absent; a malformed value is remembered as the error.
func (kv *keyValues) Float(key string, def float64) float64 {
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

// Int returns key's value as an integer, or def when absent.
func (kv *keyValues) Int(key string, def int) int {
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

// Floats returns key's value as a comma-separated list of numbers, or def when absent.
func (kv *keyValues) Floats(key string, def []float64) []float64 {
	v, ok := kv.raw(key)
	if !ok {
		return def
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			kv.fail(fmt.Errorf("%s=%q is not a list of numbers", key, v))
			return def
		}
		out = append(out, x)
	}
	return out
}

func (kv *keyValues) fail(err error) {
	if kv.err == nil {
		kv.err = err
	}
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
