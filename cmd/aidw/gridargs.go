package main

import (
	"fmt"
	"slices"

	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/aidw/aidw/interp"

	"github.com/aidw/aidw/lidar"
)

// gridArgs is an `aidw grid` command line: gdal_grid's own flags with their meaning, plus
// aidw's additions (-like, -threads, -device).
type gridArgs struct {
	srcs []string // one or more: files, directories, glob patterns (inputs.Expand)
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
	gpus                 []int    // -gpus, -device gpu:<n>: the GPUs to use; nil for all visible
	config               []string // KEY=VALUE
	las                  lidar.Filter
	preview              string // -preview: a PNG quick look of the first band
	tap                  bool   // -tap: the extent snaps outwards to whole multiples of -tr

	tiles tileArgs // -tile, -memory (tiled.go)
}

// flagSpec is one flag: how many values follow it and what to do with them.
type flagSpec struct {
	values int
	set    func(a *gridArgs, v []string) error
}

// gridFlag is one flag of `aidw grid` as help shows it: its name, what follows it and one line
// of help, with its spec.
type gridFlag struct {
	name, args, help string
	flagSpec
}

// gridFlagList is every flag of `aidw grid`, in the order of its help.
var gridFlagList = []gridFlag{
	{"-a", "<algorithm>[:<key>=<value>]...", "the algorithm and its options (default aidw; see Algorithms below)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.alg = v[0]; return nil }}},
	{"-zfield", "<field>", "the attribute to grid instead of the points' Z (field, text column, LAS attribute)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.zfield = v[0]; return nil }}},
	{"-z_increase", "<v>", "added to every value before -z_multiply",
		flagSpec{1, func(a *gridArgs, v []string) error { return parseFloat(v[0], &a.zIncrease) }}},
	{"-z_multiply", "<v>", "multiplies every value (after -z_increase)",
		flagSpec{1, func(a *gridArgs, v []string) error { return parseFloat(v[0], &a.zMultiply) }}},
	{"-l", "<layer>", "a layer of the source; repeated, one band each",
		flagSpec{1, func(a *gridArgs, v []string) error { a.layers = append(a.layers, v[0]); return nil }}},
	{"-where", "<expr>", "an attribute filter of the features (OGR SQL)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.where = v[0]; return nil }}},
	{"-sql", "<select>", "an SQL statement whose result is the layer; repeated, one band each",
		flagSpec{1, func(a *gridArgs, v []string) error { a.sqls = append(a.sqls, v[0]); return nil }}},
	{"-spat", "<xmin> <ymin> <xmax> <ymax>", "keeps the samples in this box",
		flagSpec{4, func(a *gridArgs, v []string) error { a.spat = make([]float64, 4); return parseFloatSlice(v, a.spat) }}},
	{"-clipsrc", "<xmin> <ymin> <xmax> <ymax>|<WKT>|<datasource>|spat_extent", "keeps the samples inside a box, a WKT geometry, the geometries of a datasource or the -spat box",
		flagSpec{1, nil}}, // read by parseFlags: one value or four
	{"-clipsrcsql", "<select>", "the SQL statement that selects -clipsrc's geometries",
		flagSpec{1, func(a *gridArgs, v []string) error { a.clipsrcSQL = v[0]; return nil }}},
	{"-clipsrclayer", "<layer>", "the layer of -clipsrc's datasource",
		flagSpec{1, func(a *gridArgs, v []string) error { a.clipsrcLayer = v[0]; return nil }}},
	{"-clipsrcwhere", "<expr>", "an attribute filter of -clipsrc's geometries",
		flagSpec{1, func(a *gridArgs, v []string) error { a.clipsrcWhere = v[0]; return nil }}},
	{"-oo", "<NAME>=<VALUE>", "an open option of the source's driver; repeatable",
		flagSpec{1, func(a *gridArgs, v []string) error { a.openOptions = append(a.openOptions, v[0]); return nil }}},
	{"-txe", "<xmin> <xmax>", "the output's x extent (default: the samples' bounding box)",
		flagSpec{2, func(a *gridArgs, v []string) error { a.txe = make([]float64, 2); return parseFloatSlice(v, a.txe) }}},
	{"-tye", "<ymin> <ymax>", "the output's y extent (default: the samples' bounding box)",
		flagSpec{2, func(a *gridArgs, v []string) error { a.tye = make([]float64, 2); return parseFloatSlice(v, a.tye) }}},
	{"-tr", "<xres> <yres>", "the cell size; the extent is kept and the size rounded to whole cells",
		flagSpec{2, func(a *gridArgs, v []string) error { a.tr = make([]float64, 2); return parseFloatSlice(v, a.tr) }}},
	{"-tap", "", "with -tr: the extent grows to whole multiples of the resolution (target aligned pixels)",
		flagSpec{0, func(a *gridArgs, v []string) error { a.tap = true; return nil }}},
	{"-outsize", "<xsize> <ysize>", "the output's size in cells (default 256 256)", flagSpec{2, setOutsize}},
	{"-like", "<template raster>", "size, georeferencing and CRS from a raster; its nodata nodes stay nodata",
		flagSpec{1, func(a *gridArgs, v []string) error { a.like = v[0]; return nil }}},
	{"-ot", "<type>", "the output's data type (default Float64)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.outType = v[0]; return nil }}},
	{"-of", "<format>", "the output's GDAL driver (default: from the extension, else GTiff)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.format = v[0]; return nil }}},
	{"-co", "<NAME>=<VALUE>", "a creation option of the output's driver; repeatable",
		flagSpec{1, func(a *gridArgs, v []string) error { a.creation = append(a.creation, v[0]); return nil }}},
	{"-a_srs", "<srs>", "the output's CRS (and the samples' when they have none)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.srs = v[0]; return nil }}},
	{"-threads", "<n>", "CPU workers (default: GDAL_NUM_THREADS, else all cores)", flagSpec{1, setThreads}},
	{"-device", "auto|gpu|gpu:<n>|cpu", "the engine: the GPUs of the cuda build (gpu:<n> one of them), or the CPU (default auto)", flagSpec{1, setDevice}},
	{"-gpus", "<count>|<n>,<n>...", "the GPUs to use: the first <count>, or those numbered (default every visible GPU)", flagSpec{1, setGPUs}},
	{"-tile", "<nodes>", "tiled run: tiles of this many nodes a side, each from its samples and a halo; the samples wait in a spill file under TMPDIR",
		flagSpec{1, setTile}},
	{"-memory", "<size>", "tiled run held to this budget for samples and rasters, when LAS/LAZ headers declare more points than it holds or other inputs are given (400MB, 8GB; default half the free memory; the process needs about 300 MB more)",
		flagSpec{1, setMemory}},
	{"-preview", "<png>", "also writes a hillshaded quick look of the first band",
		flagSpec{1, func(a *gridArgs, v []string) error { a.preview = v[0]; return nil }}},
	{"-q", "", "quiet: no progress",
		flagSpec{0, func(a *gridArgs, v []string) error { a.quiet = true; return nil }}},
	{"-quiet", "", "the same as -q",
		flagSpec{0, func(a *gridArgs, v []string) error { a.quiet = true; return nil }}},
	{"--config", "<KEY> <VALUE>", "sets a GDAL configuration option",
		flagSpec{2, func(a *gridArgs, v []string) error { a.config = append(a.config, v[0]+"="+v[1]); return nil }}},
	{"-class", "<code>[,<code>]...", "LAS: keeps these classification codes (ground is 2); repeatable", flagSpec{1, setClasses}},
	{"-returns", "first|last|all", "LAS: keeps first or last returns only (default all)",
		flagSpec{1, func(a *gridArgs, v []string) error { a.las.Returns = strings.ToLower(v[0]); return nil }}},
	{"-drop_withheld", "", "LAS: drops points flagged withheld",
		flagSpec{0, func(a *gridArgs, v []string) error { a.las.DropWithheld = true; return nil }}},
	{"-drop_overlap", "", "LAS: drops points flagged overlap",
		flagSpec{0, func(a *gridArgs, v []string) error { a.las.DropOverlap = true; return nil }}},
	{"-zrange", "<min> <max>", "LAS: keeps the points whose Z is within [min, max]", flagSpec{2, setZRange}},
}

// gridFlags maps each flag, lower case, to its spec. gdal_grid's flags are case-insensitive.
var gridFlags = func() map[string]flagSpec {
	m := map[string]flagSpec{}
	for _, f := range gridFlagList {
		if f.set != nil {
			m[f.name] = f.flagSpec
		}
	}
	return m
}()

// gridHelp is `aidw grid --help`: the synopsis, every flag with its help, and every algorithm
// with its keys and defaults, as gdal_grid's usage lists them.
func gridHelp() string {
	var b strings.Builder
	b.WriteString("Usage: aidw grid " + gridUsage + "\n\n")
	b.WriteString("Several sources (files, a directory of LAS/LAZ tiles, a quoted glob pattern) are gridded as one\n" +
		"point cloud.\n\nFlags:\n")
	const column = 34
	for _, f := range gridFlagList {
		left := strings.TrimSpace(f.name + " " + f.args)
		if len(left) > column {
			fmt.Fprintf(&b, "  %s\n  %*s  %s\n", left, column, "", f.help)
		} else {
			fmt.Fprintf(&b, "  %-*s  %s\n", column, left, f.help)
		}
	}
	b.WriteString("\n" + interp.AlgorithmsHelp())
	return b.String()
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
	if lidar.IsLAS(a.dst) {
		return nil, fmt.Errorf("the destination %s is a LAS file: the last argument must be the output raster", a.dst)
	}
	if a.outsize != nil && a.tr != nil {
		return nil, fmt.Errorf("-outsize and -tr options cannot be used at the same time")
	}
	if a.tap && a.tr == nil {
		return nil, fmt.Errorf("-tap needs -tr: it aligns the extent on the resolution")
	}
	if a.like != "" && (a.outsize != nil || a.tr != nil || a.txe != nil || a.tye != nil) {
		return nil, fmt.Errorf("-like takes size and extent from the template: it cannot be combined with -outsize, -tr, -txe or -tye")
	}
	if err := a.las.Validate(); err != nil {
		return nil, err
	}
	if a.gpus != nil {
		// naming GPUs asks for them, as -device gpu does: an error where none can be opened
		if a.device == "cpu" {
			return nil, fmt.Errorf("-gpus names GPUs but -device cpu runs on the CPU: give one of them")
		}
		a.device = "gpu"
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
	d := strings.ToLower(v[0])
	if n, ok := strings.CutPrefix(d, "gpu:"); ok {
		// gpu:1 is -device gpu -gpus 1,: that GPU alone
		a.device = "gpu"
		return setGPUs(a, []string{n + ","})
	}
	switch d {
	case "auto", "gpu", "cpu":
		a.device = d
		return nil
	}
	return fmt.Errorf("device %q is not auto, gpu, gpu:<n> or cpu", v[0])
}

// setGPUs takes -gpus: a count ("2", the first two visible GPUs) or a list ("0,2"; a single
// number followed by a comma is one GPU).
func setGPUs(a *gridArgs, v []string) error {
	s := strings.TrimSpace(v[0])
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return fmt.Errorf("GPU count %d: use 1 or more", n)
		}
		a.gpus = make([]int, n)
		for i := range a.gpus {
			a.gpus[i] = i
		}
		return nil
	}
	a.gpus = nil
	for _, f := range strings.Split(strings.TrimSuffix(s, ","), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("GPUs %q: give a count or a comma-separated list of GPU numbers", v[0])
		}
		if slices.Contains(a.gpus, n) {
			return fmt.Errorf("GPUs %q: GPU %d is named twice", v[0], n)
		}
		a.gpus = append(a.gpus, n)
	}
	return nil
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
