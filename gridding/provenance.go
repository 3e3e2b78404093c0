package gridding

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/interp"
)

// writeProvenance records how the raster was made as dataset metadata, as PDAL does: the
// algorithm (the -a string as given, its name, and the -a string of every key with the value
// used, defaults and nodata overrides included), the inputs, the flags that select samples,
// and the program's version.
func (r *run) writeProvenance(w *gdalio.Writer) error {
	items := [][2]string{
		{"AIDW_ALGORITHM", cmp.Or(r.Algorithm, DefaultAlgorithm)},
		{"AIDW_ALGORITHM_NAME", r.alg.Name()},
		{"AIDW_ALGORITHM_PARAMETERS", interp.Canonical(r.alg)},
		{"AIDW_INPUT_COUNT", strconv.Itoa(len(r.named))},
		{"AIDW_INPUTS", strings.Join(r.named, ", ")},
		{"AIDW_FILTERS", filters(r.Select)},
		{"AIDW_VERSION", r.Version},
	}
	for _, kv := range items {
		if err := w.SetMetadata(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// filters is the sample selection (the flags that choose and change samples), as given;
// "none" without any.
func filters(o gdalio.SourceOptions) string {
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
	if o.ZField != "" {
		add("-zfield", o.ZField)
	}
	if o.ZIncrease != 0 {
		add("-z_increase", g(o.ZIncrease))
	}
	if o.ZMultiply != nil && *o.ZMultiply != 1 {
		add("-z_multiply", g(*o.ZMultiply))
	}
	for _, l := range o.Layers {
		add("-l", l)
	}
	if o.Where != "" {
		add("-where", o.Where)
	}
	for _, s := range o.SQL {
		add("-sql", s)
	}
	if o.Spat != nil {
		add("-spat", g(o.Spat[0]), g(o.Spat[1]), g(o.Spat[2]), g(o.Spat[3]))
	}
	if o.ClipSrc != "" {
		add("-clipsrc", o.ClipSrc)
	}
	if o.ClipSrcSQL != "" {
		add("-clipsrcsql", o.ClipSrcSQL)
	}
	if o.ClipSrcLayer != "" {
		add("-clipsrclayer", o.ClipSrcLayer)
	}
	if o.ClipSrcWhere != "" {
		add("-clipsrcwhere", o.ClipSrcWhere)
	}
	for _, oo := range o.OpenOptions {
		add("-oo", oo)
	}
	if len(o.LAS.Classes) > 0 {
		c := make([]string, len(o.LAS.Classes))
		for i, v := range o.LAS.Classes {
			c[i] = strconv.Itoa(v)
		}
		add("-class", strings.Join(c, ","))
	}
	if o.LAS.Returns != "" {
		add("-returns", o.LAS.Returns)
	}
	if o.LAS.DropWithheld {
		add("-drop_withheld")
	}
	if o.LAS.DropOverlap {
		add("-drop_overlap")
	}
	if r := o.LAS.ZRange; r != nil {
		add("-zrange", g(r[0]), g(r[1]))
	}
	if len(f) == 0 {
		return "none"
	}
	return strings.Join(f, " ")
}
