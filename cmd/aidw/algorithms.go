package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/aidw/aidw/interp"
	"github.com/urfave/cli/v2"
)

// algorithmsCommand is `aidw algorithms`: every algorithm of -a and its options, from the
// declarations in interp.Registry.
func algorithmsCommand() *cli.Command {
	return &cli.Command{
		Name:  "algorithms",
		Usage: "list the algorithms of -a and their options (keys, types, defaults, ranges)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print them as JSON (the QGIS provider builds its dialogs from it)"},
			&cli.BoolFlag{Name: "markdown", Usage: "print the README's table of algorithms"},
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.Bool("json"):
				return writeAlgorithmsJSON(c.App.Writer)
			case c.Bool("markdown"):
				_, err := io.WriteString(c.App.Writer, interp.MarkdownTable())
				return err
			}
			return writeAlgorithmsText(c.App.Writer)
		},
	}
}

// algorithmJSON is one algorithm in `aidw algorithms --json`.
type algorithmJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     bool   `json:"default"` // the algorithm of `aidw grid` without -a
	// GDALCompatible: gdal_grid's algorithm, with its keys, defaults and results.
	GDALCompatible bool `json:"gdal_compatible"`
	// UnknownKeys is what an undeclared key gets: "warning" (gdal_grid's) or "error".
	UnknownKeys string       `json:"unknown_keys"`
	Engines     enginesJSON  `json:"engines"`
	Options     []optionJSON `json:"options"`
}

// enginesJSON is what runs an algorithm (interp.Declaration.GPU): the CPU engine always; the
// GPU engine of the cuda build where the algorithm has a GPU form (null: it falls back to the
// CPU engine), with its raster's accuracy against the CPU engine's and the forms it runs.
type enginesJSON struct {
	CPU bool     `json:"cpu"`
	GPU *gpuJSON `json:"gpu"`
}

type gpuJSON struct {
	Accuracy string `json:"accuracy"` // bit-identical, within 1e-12 or within 1e-5
	Forms    string `json:"forms"`
}

// optionJSON is one key of an algorithm in `aidw algorithms --json`.
type optionJSON struct {
	Name string `json:"name"`
	Type string `json:"type"` // int, float, float_list or bool
	// Default is a number, a list of numbers, a boolean, or null for a key without a default.
	Default      any      `json:"default"`
	Min          *float64 `json:"min"`
	Max          *float64 `json:"max"`
	MinExclusive bool     `json:"min_exclusive"`
	Help         string   `json:"help"`
}

// algorithmsJSON is the registry as `aidw algorithms --json` prints it.
func algorithmsJSON() []algorithmJSON {
	var out []algorithmJSON
	for i, d := range interp.Registry {
		a := algorithmJSON{Name: d.Name, Description: d.Help, Default: i == 0, GDALCompatible: d.GDAL,
			UnknownKeys: "error", Engines: enginesJSON{CPU: true}, Options: []optionJSON{}}
		if d.GPU != nil {
			a.Engines.GPU = &gpuJSON{Accuracy: d.GPU.Accuracy.String(), Forms: d.GPU.Forms}
		}
		if d.GDAL {
			a.UnknownKeys = "warning"
		}
		for _, o := range d.Options {
			a.Options = append(a.Options, optionJSON{Name: o.Name, Type: o.Type.String(),
				Default: jsonDefault(o), Min: o.Min, Max: o.Max, MinExclusive: o.MinExclusive, Help: o.Help})
		}
		out = append(out, a)
	}
	return out
}

// jsonDefault is an option's default as a JSON value of its type.
func jsonDefault(o interp.Option) any {
	if o.Default == "" {
		return nil
	}
	switch o.Type {
	case interp.TypeInt, interp.TypeFloat:
		f, err := strconv.ParseFloat(o.Default, 64)
		if err != nil {
			panic(err)
		}
		return f
	case interp.TypeFloatList:
		var out []float64
		for _, s := range strings.Split(o.Default, ",") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				panic(err)
			}
			out = append(out, f)
		}
		return out
	case interp.TypeYesNo:
		return o.Default == "yes"
	}
	return o.Default
}

func writeAlgorithmsJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(algorithmsJSON())
}

// writeAlgorithmsText lists each algorithm and, under it, each key with its default, type and
// range, and help.
func writeAlgorithmsText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, d := range interp.Registry {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		name, unknown := d.Name, "unknown keys are errors"
		if i == 0 {
			name += " (default)"
		}
		if d.GDAL {
			unknown = "gdal_grid's, which warns about unknown keys"
		}
		fmt.Fprintf(tw, "%s: %s (%s)\n", name, d.Help, unknown)
		engines := "  engines: " + d.Engines()
		if d.GPU != nil {
			engines += ": " + d.GPU.Forms
		}
		fmt.Fprintln(tw, engines)
		for _, o := range d.Options {
			key := o.Name
			if o.Default != "" {
				key += "=" + o.Default
			}
			kind := o.Type.String()
			if r := o.Range(); r != "" {
				kind += " " + r
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", key, kind, o.Help)
		}
	}
	return tw.Flush()
}
