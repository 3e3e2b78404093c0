// Command aidw grids scattered point samples into georeferenced rasters by Adaptive Inverse
// Distance Weighting and by every gdal_grid algorithm, on all CPU cores or an NVIDIA GPU.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	setMemoryLimit()
	if err := newApp().RunContext(ctx, os.Args); err != nil {
		fmt.Fprintf(os.Stderr, "ERROR: %v\n", err)
		stop()
		os.Exit(1)
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:    "aidw",
		Usage:   "grid scattered points into rasters by adaptive IDW and gdal_grid's algorithms",
		Version: version,
		Commands: []*cli.Command{
			{
				Name:            "grid",
				Usage:           "create a raster from scattered samples (gdal_grid's options)",
				ArgsUsage:       gridUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprintln(c.App.Writer, "Usage: aidw grid "+gridUsage)
						return nil
					}
					if isWorker(args) {
						return runTileWorker(c.Context, args, c.App.Writer, c.App.ErrWriter)
					}
					a, err := parseGridArgs(args)
					if err != nil {
						return err
					}
					return runGrid(c.Context, a, c.App.Writer, c.App.ErrWriter)
				},
			},
			{
				Name:            "plan",
				Usage:           "plan a tiled job for many machines: a manifest of tiles that aidw grid --manifest computes one by one",
				ArgsUsage:       planUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprintln(c.App.Writer, "Usage: aidw plan "+planUsage)
						return nil
					}
					return runPlan(c.Context, args, c.App.Writer, c.App.ErrWriter)
				},
			},
			{
				Name:            "mosaic",
				Usage:           "assemble the tiles of a plan into one raster",
				ArgsUsage:       mosaicUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprintln(c.App.Writer, "Usage: aidw mosaic "+mosaicUsage)
						return nil
					}
					a, err := parseMosaicArgs(args)
					if err != nil {
						return err
					}
					return runMosaic(c.Context, a, c.App.Writer, c.App.ErrWriter)
				},
			},
			benchCommand(),
			{
				Name:            "cv",
				Usage:           "cross-validate algorithms over the samples (leave-one-out or k-fold)",
				ArgsUsage:       cvUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprintln(c.App.Writer, "Usage: aidw cv "+cvUsage)
						return nil
					}
					a, err := parseCVArgs(args)
					if err != nil {
						return err
					}
					return runCV(c.Context, a, c.App.Writer, c.App.ErrWriter)
				},
			},
		},
	}
}

const gridUsage = `[-a <algorithm>[:<key>=<value>]...] [-zfield <field>] [-z_increase <v>] [-z_multiply <v>]
    [-l <layer>]... [-where <expr>] [-sql <select>]... [-spat <xmin> <ymin> <xmax> <ymax>]
    [-clipsrc <xmin> <ymin> <xmax> <ymax>|<WKT>|<datasource>|spat_extent]
    [-clipsrcsql <select>] [-clipsrclayer <layer>] [-clipsrcwhere <expr>] [-oo <NAME>=<VALUE>]...
    [-txe <xmin> <xmax>] [-tye <ymin> <ymax>] [-tr <xres> <yres>] [-outsize <xsize> <ysize>]
    [-like <template raster>] [-ot <type>] [-of <format>] [-co <NAME>=<VALUE>]... [-a_srs <srs>]
    [-threads <n>] [-device auto|gpu|cpu] [-preview <png>] [-q] [--config <KEY> <VALUE>]
    [-class <code>[,<code>]...] [-returns first|last|all] [-drop_withheld] [-drop_overlap]
    [-zrange <min> <max>] [-tile <nodes>] [-memory <size>]
    <src_datasource>... <dst_filename>
or: aidw grid --manifest <plan.json> [--tile <i>] [-threads <n>] [-q]   (one tile of aidw plan)

Several sources (files, a directory of LAS/LAZ tiles, a quoted glob pattern) are gridded as one
point cloud.

Algorithms: aidw (default), invdist, invdistnn, nearest, average, minimum, maximum, range,
count, average_distance, average_distance_pts, linear.
aidw keys: k=15 area=<bbox> rmin=0 rmax=2 alphas=1.5,2,2.5,3,3.5 max_points=0 radius=0
min_points=0 nodata=0 diagnostics=no (yes adds bands alpha, r_obs, R, neighbours)`
