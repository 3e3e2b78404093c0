package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aidw/aidw/gridding"
)

const mosaicUsage = `[-q] [-of <format>] [-co <NAME>=<VALUE>]... [-preview <png>] <plan.json> <dst_filename>

Assembles the tiles of a plan (aidw plan; each computed by aidw grid --manifest) into one
raster, the one aidw grid computes on one machine, bit for bit. The format and creation options
are the plan's (-of and -co override them); a .vrt destination (or -of VRT) is a VRT over the
tile rasters. A missing tile, or one of another plan, is an error.`

type mosaicArgs struct {
	manifest, dst string
	format        string
	creation      []string
	preview       string
	quiet         bool
}

func parseMosaicArgs(args []string) (*mosaicArgs, error) {
	a := &mosaicArgs{}
	var positional []string
	for i := 0; i < len(args); i++ {
		need := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		var err error
		switch strings.ToLower(args[i]) {
		case "-q", "-quiet":
			a.quiet = true
		case "-of":
			a.format, err = need()
		case "-co":
			var v string
			v, err = need()
			a.creation = append(a.creation, v)
		case "-preview":
			a.preview, err = need()
		default:
			if len(args[i]) > 1 && args[i][0] == '-' {
				return nil, fmt.Errorf("unknown option %s", args[i])
			}
			positional = append(positional, args[i])
		}
		if err != nil {
			return nil, err
		}
	}
	if len(positional) != 2 {
		return nil, fmt.Errorf("expected the plan and the destination raster")
	}
	a.manifest, a.dst = positional[0], positional[1]
	return a, nil
}

// runMosaic is `aidw mosaic`: the flags as options, and one call.
func runMosaic(ctx context.Context, a *mosaicArgs, stdout, stderr io.Writer) error {
	o := &gridding.MosaicOptions{Plan: a.manifest, Dest: a.dst, Format: a.format, Creation: a.creation,
		Preview: a.preview}
	if !a.quiet {
		o.Progress = progressOn(stdout)
	}
	return gridding.Mosaic(ctx, o)
}
