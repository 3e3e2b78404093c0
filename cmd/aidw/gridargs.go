package main

import (
	"fmt"

	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/aidw/aidw/lidar"
)

// gridArgs is an `aidw grid` command line: gdal_grid's own flags with their meaning, plus
// aidw's additions (-like, -threads, -device).
type gridArgs struct {
	srcs []string // one or more: files, directories, glob patterns (gdalio.ExpandInputs)
	dst  string

	alg                  string
	zfield               string
	zIncrease, zMultiply float64
	layers, sqls         []string
	where                string
	spat                 []float64 // xmin ymin xmax ymax
	clipsrc              string
	clipsrcSQL           string
	clipsrcLayer         string
	clipsrcWhere         string
	openOptions          []string
	txe, tye, tr         []float64
	outsize              []int
	outType, format      string
	creation             []string
	srs                  string
	quiet                bool
	like                 string
	threads              int
	device               string
	config               []string // KEY=VALUE
	las                  lidar.Filter
	nodataGiven          bool   // the -a string sets nodata, so the band gets it (as gdal_grid)
	preview              string // -preview: a PNG quick look of the first band

	tiles tileArgs // -tile, -memory (tiled.go)
}

// flagSpec is one flag: how many values follow it and what to do with them.
type flagSpec struct {
	values int
	set    func(a *gridArgs, v []string) error
}

// gridFlags maps each flag, lower case, to its spec. gdal_grid's flags are case-insensitive.
var gridFlags = map[string]flagSpec{
	"-a":             {1, func(a *gridArgs, v []string) error { a.alg = v[0]; return nil }},
	"-zfield":        {1, func(a *gridArgs, v []string) error { a.zfield = v[0]; return nil }},
	"-z_increase":    {1, func(a *gridArgs, v []string) error { return parseFloat(v[0], &a.zIncrease) }},
	"-z_multiply":    {1, func(a *gridArgs, v []string) error { return parseFloat(v[0], &a.zMultiply) }},
	"-l":             {1, func(a *gridArgs, v []string) error { a.layers = append(a.layers, v[0]); return nil }},
	"-where":         {1, func(a *gridArgs, v []string) error { a.where = v[0]; return nil }},
	"-sql":           {1, func(a *gridArgs, v []string) error { a.sqls = append(a.sqls, v[0]); return nil }},
	"-spat":          {4, func(a *gridArgs, v []string) error { a.spat = make([]float64, 4); return parseFloatSlice(v, a.spat) }},
	"-clipsrcsql":    {1, func(a *gridArgs, v []string) error { a.clipsrcSQL = v[0]; return nil }},
	"-clipsrclayer":  {1, func(a *gridArgs, v []string) error { a.clipsrcLayer = v[0]; return nil }},
	"-clipsrcwhere":  {1, func(a *gridArgs, v []string) error { a.clipsrcWhere = v[0]; return nil }},
	"-oo":            {1, func(a *gridArgs, v []string) error { a.openOptions = append(a.openOptions, v[0]); return nil }},
	"-txe":           {2, func(a *gridArgs, v []string) error { a.txe = make([]float64, 2); return parseFloatSlice(v, a.txe) }},
	"-tye":           {2, func(a *gridArgs, v []string) error { a.tye = make([]float64, 2); return parseFloatSlice(v, a.tye) }},
	"-tr":            {2, func(a *gridArgs, v []string) error { a.tr = make([]float64, 2); return parseFloatSlice(v, a.tr) }},
	"-outsize":       {2, setOutsize},
	"-ot":            {1, func(a *gridArgs, v []string) error { a.outType = v[0]; return nil }},
	"-of":            {1, func(a *gridArgs, v []string) error { a.format = v[0]; return nil }},
	"-co":            {1, func(a *gridArgs, v []string) error { a.creation = append(a.creation, v[0]); return nil }},
	"-a_srs":         {1, func(a *gridArgs, v []string) error { a.srs = v[0]; return nil }},
	"-q":             {0, func(a *gridArgs, v []string) error { a.quiet = true; return nil }},
	"-quiet":         {0, func(a *gridArgs, v []string) error { a.quiet = true; return nil }},
	"--config":       {2, func(a *gridArgs, v []string) error { a.config = append(a.config, v[0]+"="+v[1]); return nil }},
	"-class":         {1, setClasses},
	"-returns":       {1, func(a *gridArgs, v []string) error { a.las.Returns = strings.ToLower(v[0]); return nil }},
	"-drop_withheld": {0, func(a *gridArgs, v []string) error { a.las.DropWithheld = true; return nil }},
	"-drop_overlap":  {0, func(a *gridArgs, v []string) error { a.las.DropOverlap = true; return nil }},
	"-zrange":        {2, setZRange},
	"-like":          {1, func(a *gridArgs, v []string) error { a.like = v[0]; return nil }},
	"-threads":       {1, setThreads},
	"-device":        {1, setDevice},
	"-preview":       {1, func(a *gridArgs, v []string) error { a.preview = v[0]; return nil }},
	"-tile":          {1, setTile},
	"-memory":        {1, setMemory},
}

// parseGridArgs parses gdal_grid-style arguments: single-dash flags, several values after one
// flag, repeatable flags, then the source and the destination.
func parseGridArgs(args []string) (*gridArgs, error) {
	a := newGridArgs()
	positional, err := a.parseFlags(args, func(name string) (flagSpec, bool) { s, ok := gridFlags[name]; return s, ok })
	if err != nil {
		return nil, err
	}
	if len(positional) < 2 {
		return nil, fmt.Errorf("expected a source datasource and a destination file")
	}
	a.srcs, a.dst = positional[:len(positional)-1], positional[len(positional)-1]
	if ext := strings.ToLower(filepath.Ext(a.dst)); ext == ".las" || ext == ".laz" {
		return nil, fmt.Errorf("the destination %s is a LAS file: the last argument must be the output raster", a.dst)
	}
	if a.outsize != nil && a.tr != nil {
		return nil, fmt.Errorf("-outsize and -tr options cannot be used at the same time")
	}
	if a.like != "" && (a.outsize != nil || a.tr != nil || a.txe != nil || a.tye != nil) {
		return nil, fmt.Errorf("-like takes size and extent from the template: it cannot be combined with -outsize, -tr, -txe or -tye")
	}
	if err := a.las.Validate(); err != nil {
		return nil, err
	}
	for _, part := range strings.Split(a.alg, ":")[1:] {
		if k, _, _ := strings.Cut(part, "="); strings.EqualFold(strings.TrimSpace(k), "nodata") {
			a.nodataGiven = true
		}
	}
	return a, nil
}

// newGridArgs is a command line with gdal_grid's defaults.
func newGridArgs() *gridArgs { return &gridArgs{alg: "aidw", zMultiply: 1, device: "auto"} }

// parseFlags reads the flags that lookup knows into a: single-dash flags (lookup gets them in
// lower case: gdal_grid's flags are case-insensitive), several values after one flag,
// repeatable flags. It returns the other arguments in order.
func (a *gridArgs) parseFlags(args []string, lookup func(name string) (flagSpec, bool)) ([]string, error) {
	var positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name := strings.ToLower(arg)
		if name == "-clipsrc" {
			n, err := a.setClipsrc(args[i+1:])
			if err != nil {
				return nil, err
			}
			i += n
			continue
		}
		spec, ok := lookup(name)
		if !ok {
			if len(arg) > 1 && arg[0] == '-' && !isNumber(arg) {
				return nil, fmt.Errorf("unknown option %s", arg)
			}
			positional = append(positional, arg)
			continue
		}
		if i+spec.values >= len(args) {
			return nil, fmt.Errorf("option %s needs %d value(s)", arg, spec.values)
		}
		if err := spec.set(a, args[i+1:i+1+spec.values]); err != nil {
			return nil, fmt.Errorf("option %s: %w", arg, err)
		}
		i += spec.values
	}
	return positional, nil
}

// setClipsrc takes -clipsrc's value: four numbers (a box), or one WKT, datasource or
// spat_extent. It returns how many arguments it consumed.
func (a *gridArgs) setClipsrc(rest []string) (int, error) {
	if len(rest) >= 4 && isNumber(rest[0]) && isNumber(rest[1]) && isNumber(rest[2]) && isNumber(rest[3]) {
		a.clipsrc = strings.Join(rest[:4], " ")
		return 4, nil
	}
	if len(rest) < 1 {
		return 0, fmt.Errorf("option -clipsrc needs a value")
	}
	a.clipsrc = rest[0]
	return 1, nil
}

func setOutsize(a *gridArgs, v []string) error {
	a.outsize = make([]int, 2)
	for i, s := range v {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("size %q is not a positive integer", s)
		}
		a.outsize[i] = n
	}
	return nil
}

// setClasses takes -class's comma-separated LAS classification codes; it may be repeated.
func setClasses(a *gridArgs, v []string) error {
	for _, s := range strings.Split(v[0], ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("class %q is not an integer", s)
		}
		a.las.Classes = append(a.las.Classes, c)
	}
	return nil
}

func setZRange(a *gridArgs, v []string) error {
	var r [2]float64
	if err := parseFloatSlice(v, r[:]); err != nil {
		return err
	}
	a.las.ZRange = &r
	return nil
}

func setThreads(a *gridArgs, v []string) error {
	n, err := parseThreads(v[0])
	a.threads = n
	return err
}

func setDevice(a *gridArgs, v []string) error {
	switch d := strings.ToLower(v[0]); d {
	case "auto", "gpu", "cpu":
		a.device = d
		return nil
	}
	return fmt.Errorf("device %q is not auto, gpu or cpu", v[0])
}

// parseThreads reads a thread count as -threads and GDAL_NUM_THREADS write it: a positive
// number or ALL_CPUS.
func parseThreads(s string) (int, error) {
	if strings.EqualFold(s, "ALL_CPUS") {
		return runtime.NumCPU(), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("thread count %q is not a positive integer or ALL_CPUS", s)
	}
	return n, nil
}

// threadCount resolves the number of CPU workers: -threads, else GDAL_NUM_THREADS (from
// --config or the environment), else all cores.
func (a *gridArgs) threadCount() (int, error) {
	if a.threads > 0 {
		return a.threads, nil
	}
	env := os.Getenv("GDAL_NUM_THREADS")
	for _, kv := range a.config {
		if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, "GDAL_NUM_THREADS") {
			env = v
		}
	}
	if env == "" {
		return runtime.NumCPU(), nil
	}
	n, err := parseThreads(env)
	if err != nil {
		return 0, fmt.Errorf("GDAL_NUM_THREADS: %w", err)
	}
	return n, nil
}

func parseFloat(s string, dst *float64) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	*dst = f
	return nil
}

func parseFloatSlice(v []string, dst []float64) error {
	for i, s := range v {
		if err := parseFloat(s, &dst[i]); err != nil {
			return err
		}
	}
	return nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
