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
						fmt.Fprint(c.App.Writer, gridHelp())
						return nil
					}
					a, err := parseGridArgs(args)
					if err != nil {
						return err
					}
					return runGrid(c.Context, a, c.App.Writer, c.App.ErrWriter)
				},
			},
			benchCommand(),
			algorithmsCommand(),
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
    [-zrange <min> <max>]
    <src_datasource>... <dst_filename>`
