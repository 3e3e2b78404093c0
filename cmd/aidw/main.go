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

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/memory"
	"github.com/aidw/aidw/internal/quote"
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
	// A closed pipe on standard output makes writes fail with EPIPE rather than killing the
	// process mid-run, so that temporary files are removed (see exitCode).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	setMemoryLimit()
	arena := memory.NewArena(arenaLeast)
	stopProfile, err := startProfile()
	if err == nil {
		err = newApp(arena).RunContext(ctx, os.Args)
		stopProfile()
	}
	var se signalError
	if err != nil && errors.As(context.Cause(ctx), &se) {
		err = se
	}
	code := exitCode(err, os.Stderr)
	// The outputs are published or removed: hand the run's big arrays back on several
	// threads, which the exit would free on one, for a stop within a second beside busy
	// processes.
	arena.Release()
	os.Exit(code)
}

// arenaLeast is the smallest array an in-memory run keeps in its arena: its samples' and
// index's arrays from about a million samples on, not the many small arrays of its phases.
const arenaLeast = 4 << 20

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
	if errors.Is(err, syscall.EPIPE) {
		// the reader of standard output went away (| head): quiet, as a GDAL utility that
		// SIGPIPE ended, with the status a shell gives one
		return 128 + int(syscall.SIGPIPE)
	}
	endProgressLine()
	var se signalError
	if errors.As(err, &se) {
		fmt.Fprintf(stderr, "ERROR: %v\n", se)
		return 128 + int(se.sig)
	}
	var ie *internalError
	if errors.As(err, &ie) {
		fmt.Fprintf(stderr, "ERROR: internal error: %s\n", quote.PrintableLine(oneLine(fmt.Sprint(ie.value))))
		if os.Getenv("AIDW_DEBUG") != "" {
			stderr.Write(ie.stack)
		}
		return 2
	}
	fmt.Fprintf(stderr, "ERROR: %s\n", quote.PrintableLine(err.Error()))
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
			var pe *interp.PanicError
			if e, ok := r.(error); ok && errors.As(e, &pe) {
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

// newApp is the command line; arena, when not nil, holds an in-memory grid run's big arrays
// (see gridding.Options.Arena).
func newApp(arena *memory.Arena) *cli.App {
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
		Commands: append([]*cli.Command{
			argsCommand("grid", "create a raster from scattered samples (gdal_grid's options)", gridUsage, gridHelp,
				func(c *cli.Context, args []string) error {
					if isWorker(args) {
						return runTileWorker(c.Context, args, c.App.Writer, c.App.ErrWriter)
					}
					a, err := parseGridArgs(args)
					if err != nil {
						return err
					}
					return protect(func() error { return runGrid(c.Context, a, arena, messages(c, a.dst), c.App.ErrWriter) })
				}),
			argsCommand("plan", "plan a tiled job for many machines: a manifest of tiles that aidw grid --manifest computes one by one",
				planUsage, nil, func(c *cli.Context, args []string) error {
					return runPlan(c.Context, args, c.App.Writer, c.App.ErrWriter)
				}),
			argsCommand("mosaic", "assemble the tiles of a plan into one raster", mosaicUsage, nil,
				func(c *cli.Context, args []string) error {
					a, err := parseMosaicArgs(args)
					if err != nil {
						return err
					}
					return runMosaic(c.Context, a, messages(c, a.dst), c.App.ErrWriter)
				}),
			benchCommand(),
			algorithmsCommand(),
			argsCommand("cv", "cross-validate algorithms over the samples (leave-one-out or k-fold)", cvUsage, nil,
				func(c *cli.Context, args []string) error {
					a, err := parseCVArgs(args)
					if err != nil {
						return err
					}
					return protect(func() error { return runCV(c.Context, a, c.App.Writer, c.App.ErrWriter) })
				}),
		}, docsCommands()...),
	}
}

// argsCommand declares a command that parses its own arguments, gdal style, with the rule
// every such command follows: called without arguments it prints its usage on stderr and exits
// 1 (as gdal_grid does); -h, -help or --help print it on stdout, exit 0. help is the full help
// text; nil makes it the usage line.
func argsCommand(name, usage, argsUsage string, help func() string, run func(c *cli.Context, args []string) error) *cli.Command {
	if help == nil {
		help = func() string { return "Usage: aidw " + name + " " + argsUsage + "\n" }
	}
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		ArgsUsage:       argsUsage,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case len(args) == 0:
				fmt.Fprint(c.App.ErrWriter, help())
				return errUsage
			case args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
				fmt.Fprint(c.App.Writer, help())
				return nil
			}
			return run(c, args)
		},
	}
}

// messages is where a command that writes the raster dst prints its progress and reports:
// standard output, unless the raster goes there (/vsistdout/), then standard error.
func messages(c *cli.Context, dst string) io.Writer {
	if gdalio.IsStdout(dst) {
		return c.App.ErrWriter
	}
	return c.App.Writer
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
