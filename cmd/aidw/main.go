// Command aidw grids scattered point samples into georeferenced rasters by Adaptive Inverse
// Distance Weighting and by every gdal_grid algorithm, on all CPU cores or an NVIDIA GPU.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/aidw/aidw/interp"
)

// version is set by -ldflags "-X main.version=..." for releases; see versionString.
var version = "dev"

func main() {
	// SIGINT and SIGTERM cancel the work, which cleans up and exits as shells report a
	// process killed by the signal (130, 143); a second signal is caught too, so cleanup
	// finishes.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		s := <-sigs
		cancel(signalError{s.(syscall.Signal)})
	}()
	setMemoryLimit()
	err := newApp().RunContext(ctx, os.Args)
	var se signalError
	if err != nil && errors.As(context.Cause(ctx), &se) {
		err = se
	}
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage ends a command called without arguments, after its usage: exit 1, no ERROR line.
var errUsage = errors.New("usage")

// signalError is the cause of a run cancelled by a signal.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}

// exitCode prints err's one-line ERROR (with the stack of an internal error when AIDW_DEBUG
// is set) and returns the exit code: 0 without error, 128 + the signal's number for a run a
// signal stopped, 2 for an internal error, else 1. A progress line left unfinished is ended
// first, so the error starts a line of its own.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errUsage) {
		return 1
	}
	endProgressLine()
	var se signalError
	if errors.As(err, &se) {
		fmt.Fprintf(stderr, "ERROR: %v\n", se)
		return 128 + int(se.sig)
	}
	var ie *internalError
	if errors.As(err, &ie) {
		fmt.Fprintf(stderr, "ERROR: internal error: %s\n", oneLine(fmt.Sprint(ie.value)))
		if os.Getenv("AIDW_DEBUG") != "" {
			stderr.Write(ie.stack)
		}
		return 2
	}
	fmt.Fprintf(stderr, "ERROR: %v\n", err)
	return 1
}

// internalError is a panic recovered in a command: a bug, not bad input.
type internalError struct {
	value any
	stack []byte
}

func (e *internalError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// protect runs a command and turns a panic into an internalError, so that the command's
// deferred cleanups have run (no temporary file is left) and the user gets one line instead
// of a Go stack dump (AIDW_DEBUG=1 prints it). A panic of a worker goroutine comes with the
// worker's stack.
func protect(run func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			ie := &internalError{value: r, stack: debug.Stack()}
			if pe, ok := r.(*interp.PanicError); ok {
				ie.value, ie.stack = pe.Value, pe.Stack
			}
			err = ie
		}
	}()
	return run()
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func newApp() *cli.App {
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, versionString()) }
	return &cli.App{
		Name:    "aidw",
		Usage:   "grid scattered points into rasters by adaptive IDW and gdal_grid's algorithms",
		Version: versionString(),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				var names []string
				for _, cmd := range c.App.VisibleCommands() {
					names = append(names, cmd.Name)
				}
				return fmt.Errorf("unknown command %q: the commands are %s (aidw --help)", c.Args().First(), strings.Join(names, ", "))
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			{
				Name:            "grid",
				Usage:           "create a raster from scattered samples (gdal_grid's options)",
				ArgsUsage:       gridUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 { // as gdal_grid: usage on stderr, exit 1
						fmt.Fprint(c.App.ErrWriter, gridHelp())
						return errUsage
					}
					if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprint(c.App.Writer, gridHelp())
						return nil
					}
					if isWorker(args) {
						return runTileWorker(c.Context, args, c.App.Writer, c.App.ErrWriter)
					}
					a, err := parseGridArgs(args)
					if err != nil {
						return err
					}
					return protect(func() error { return runGrid(c.Context, a, c.App.Writer, c.App.ErrWriter) })
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
			algorithmsCommand(),
			{
				Name:            "cv",
				Usage:           "cross-validate algorithms over the samples (leave-one-out or k-fold)",
				ArgsUsage:       cvUsage,
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if len(args) == 0 { // as gdal_grid: usage on stderr, exit 1
						fmt.Fprintln(c.App.ErrWriter, "Usage: aidw cv "+cvUsage)
						return errUsage
					}
					if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
						fmt.Fprintln(c.App.Writer, "Usage: aidw cv "+cvUsage)
						return nil
					}
					a, err := parseCVArgs(args)
					if err != nil {
						return err
					}
					return protect(func() error { return runCV(c.Context, a, c.App.Writer, c.App.ErrWriter) })
				},
			},
		},
	}
}

const gridUsage = `[-a <algorithm>[:<key>=<value>]...] [-zfield <field>] [-z_increase <v>] [-z_multiply <v>]
    [-l <layer>]... [-where <expr>] [-sql <select>]... [-spat <xmin> <ymin> <xmax> <ymax>]
    [-clipsrc <xmin> <ymin> <xmax> <ymax>|<WKT>|<datasource>|spat_extent]
    [-clipsrcsql <select>] [-clipsrclayer <layer>] [-clipsrcwhere <expr>] [-oo <NAME>=<VALUE>]...
    [-txe <xmin> <xmax>] [-tye <ymin> <ymax>] [-tr <xres> <yres> [-tap]] [-outsize <xsize> <ysize>]
    [-like <template raster>] [-ot <type>] [-of <format>] [-co <NAME>=<VALUE>]... [-a_srs <srs>]
    [-threads <n>] [-device auto|gpu|gpu:<n>|cpu] [-gpus <count>|<n>,...] [-preview <png>] [-q]
    [--config <KEY> <VALUE>]
    [-class <code>[,<code>]...] [-returns first|last|all] [-drop_withheld] [-drop_overlap]
    [-zrange <min> <max>] [-tile <nodes>] [-memory <size>]
    <src_datasource>... <dst_filename>
or: aidw grid --manifest <plan.json> [--plan-tile <i>] [-threads <n>] [-q]   (one tile of aidw plan)`
