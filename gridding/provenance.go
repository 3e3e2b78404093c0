package main

import (
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
)

// versionString is aidw's version as --version prints it and the output's metadata records
// it: the -ldflags version when set, else the module's; the VCS revision, time and state Go
// stamped into the build; and the GDAL library it runs on, e.g.
// "aidw dev (git abc1234, 2026-11-23, modified) GDAL 3.6.2".
func versionString() string {
	mainVersion, settings := "", map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		mainVersion = info.Main.Version
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	return formatVersion(version, mainVersion, settings, gdalio.GDALVersion())
}

// formatVersion builds versionString from the -ldflags version, the module's version and the
// build's VCS settings (vcs.revision, vcs.time, vcs.modified).
func formatVersion(ldflags, mainVersion string, settings map[string]string, gdal string) string {
	v := ldflags
	if v == "dev" && mainVersion != "" && mainVersion != "(devel)" {
		v = mainVersion
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "git "+rev[:min(7, len(rev))])
	}
	if t := settings["vcs.time"]; len(t) >= 10 {
		vcs = append(vcs, t[:10])
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	s := "aidw " + v
	if len(vcs) > 0 {
		s += " (" + strings.Join(vcs, ", ") + ")"
	}
	return s + " GDAL " + gdal
}

// writeProvenance records how the raster was made as dataset metadata, as PDAL does: the
// algorithm (the -a string as given, its name, and the -a string of every key with the value
// used, defaults and nodata overrides included), the
// inputs, the flags that select samples, and aidw's version.
func writeProvenance(w *gdalio.Writer, a *gridArgs, alg interp.Algorithm) error {
	inputs, err := gdalio.ExpandInputs(a.srcs)
	if err != nil {
		inputs = a.srcs
	}
	items := [][2]string{
		{"AIDW_ALGORITHM", a.alg},
		{"AIDW_ALGORITHM_NAME", alg.Name()},
		{"AIDW_ALGORITHM_PARAMETERS", interp.Canonical(alg)},
		{"AIDW_INPUT_COUNT", strconv.Itoa(len(inputs))},
		{"AIDW_INPUTS", strings.Join(inputs, ", ")},
		{"AIDW_FILTERS", a.filters()},
		{"AIDW_VERSION", versionString()},
	}
	for _, kv := range items {
		if err := w.SetMetadata(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// filters is the command line's sample selection (the flags that choose and change samples),
// as given; "none" without any.
func (a *gridArgs) filters() string {
	var f []string
	add := func(flag string, values ...string) {
		for i, v := range values {
			if strings.ContainsAny(v, " \t'\"") || v == "" {
				values[i] = strconv.Quote(v)
			}
		}
		f = append(f, strings.Join(append([]string{flag}, values...), " "))
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if a.zfield != "" {
		add("-zfield", a.zfield)
	}
	if a.zIncrease != 0 {
		add("-z_increase", g(a.zIncrease))
	}
	if a.zMultiply != 1 {
		add("-z_multiply", g(a.zMultiply))
	}
	for _, l := range a.layers {
		add("-l", l)
	}
	if a.where != "" {
		add("-where", a.where)
	}
	for _, s := range a.sqls {
		add("-sql", s)
	}
	if a.spat != nil {
		add("-spat", g(a.spat[0]), g(a.spat[1]), g(a.spat[2]), g(a.spat[3]))
	}
	if a.clipsrc != "" {
		add("-clipsrc", a.clipsrc)
	}
	if a.clipsrcSQL != "" {
		add("-clipsrcsql", a.clipsrcSQL)
	}
	if a.clipsrcLayer != "" {
		add("-clipsrclayer", a.clipsrcLayer)
	}
	if a.clipsrcWhere != "" {
		add("-clipsrcwhere", a.clipsrcWhere)
	}
	for _, o := range a.openOptions {
		add("-oo", o)
	}
	if len(a.las.Classes) > 0 {
		c := make([]string, len(a.las.Classes))
		for i, v := range a.las.Classes {
			c[i] = strconv.Itoa(v)
		}
		add("-class", strings.Join(c, ","))
	}
	if a.las.Returns != "" {
		add("-returns", a.las.Returns)
	}
	if a.las.DropWithheld {
		add("-drop_withheld")
	}
	if a.las.DropOverlap {
		add("-drop_overlap")
	}
	if r := a.las.ZRange; r != nil {
		add("-zrange", g(r[0]), g(r[1]))
	}
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, " ")
}
