package main

// The man page and the shell completions are generated from the declarations the commands
// run on: the commands and their usage, grid's flag list, the cli flags of bench and
// algorithms, and interp's registry of algorithms. scripts/deb.sh installs what `aidw man` and
// `aidw completion bash|zsh` print.

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/aidw/aidw/interp"
)

// docFlag is a flag as the man page and completions show it: its name, what follows it (as
// help writes it, "<xsize> <ysize>", "first|last|all") and its help, "" when undeclared.
type docFlag struct{ name, args, help string }

// docCommand is a visible command with its flags.
type docCommand struct {
	name, usage, argsUsage, description string
	flags                               []docFlag
}

// docsCommands are the hidden commands that print the man page and the completions.
func docsCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:   "man",
			Usage:  "print the man page (roff)",
			Hidden: true,
			Action: func(c *cli.Context) error {
				_, err := io.WriteString(c.App.Writer, manPage(c.App))
				return err
			},
		},
		{
			Name:      "completion",
			Usage:     "print the completion script of a shell",
			ArgsUsage: "bash|zsh",
			Hidden:    true,
			Action: func(c *cli.Context) error {
				cmds := docCommands(c.App)
				switch c.Args().First() {
				case "bash":
					return writeBashCompletion(c.App.Writer, cmds)
				case "zsh":
					return writeZshCompletion(c.App.Writer, cmds)
				}
				return fmt.Errorf("completion %q: give bash or zsh", c.Args().First())
			},
		},
	}
}

// docCommands lists the visible commands and their flags, from their declarations: grid's
// flag list (plan takes the same), the cli flags of the commands that declare them, and the
// flags a usage text names (cv's own, mosaic's), with grid's help where grid has the flag.
func docCommands(app *cli.App) []docCommand {
	var out []docCommand
	for _, c := range app.VisibleCommands() {
		if c.Name == "help" {
			continue
		}
		d := docCommand{name: c.Name, usage: c.Usage, argsUsage: c.ArgsUsage, description: c.Description}
		switch {
		case c.Name == "grid" || c.Name == "plan":
			for _, f := range gridFlagList {
				d.flags = append(d.flags, docFlag{f.name, f.args, f.help})
			}
		case len(c.Flags) > 0:
			for _, f := range c.Flags {
				d.flags = append(d.flags, cliDocFlag(f))
			}
		default:
			d.flags = usageFlags(c.ArgsUsage)
		}
		out = append(out, d)
	}
	return out
}

// cliDocFlag is a cli flag as a docFlag, named as cli's help names it (-o, --quick), with the
// placeholder of its usage when it takes a value.
func cliDocFlag(f cli.Flag) docFlag {
	name := f.Names()[0]
	d := docFlag{name: "--" + name}
	if len(name) == 1 {
		d.name = "-" + name
	}
	if df, ok := f.(cli.DocGenerationFlag); ok {
		placeholder, usage := unquoteUsage(df.GetUsage())
		d.help = usage
		if df.TakesValue() {
			d.args = "<" + cmp.Or(placeholder, "value") + ">"
		}
	}
	return d
}

// unquoteUsage reads a cli usage's placeholder, the first `quoted` word, as cli's help does.
func unquoteUsage(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	name, after, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 {
		return "", usage
	}
	return name, before + name + after
}

// usageFlag is a flag in a usage text: "[-folds <k>", "[-json]".
var usageFlag = regexp.MustCompile(`\[(--?[a-z_]+)((?: <[^>]+>)*)`)

// usageFlags are the flags a usage text names, in order, each once, with grid's help where
// grid declares the flag.
func usageFlags(usage string) []docFlag {
	var out []docFlag
	for _, m := range usageFlag.FindAllStringSubmatch(usage, -1) {
		if slices.ContainsFunc(out, func(f docFlag) bool { return f.name == m[1] }) {
			continue
		}
		f := docFlag{name: m[1], args: strings.TrimSpace(m[2])}
		for _, g := range gridFlagList {
			if g.name == f.name {
				f.args, f.help = g.args, g.help
			}
		}
		out = append(out, f)
	}
	return out
}

// manPage is the man page in roff. go-md2man turns hyphenation off before .TH, and every
// paragraph turns it back on (groff's man macros, register HY): off for good after .TH, and
// lines left-adjusted, so that keys (max_points_per_quadrant) and flags stay whole.
func manPage(app *cli.App) string {
	page := string(md2man.Render([]byte(manMarkdown(app))))
	head, rest, _ := strings.Cut(page, "\n.TH ")
	title, body, _ := strings.Cut(rest, "\n")
	return head + "\n.TH " + title + "\n.nr HY 0\n.nh\n.ad l\n" + body
}

// manMarkdown is the man page in go-md2man's Markdown.
func manMarkdown(app *cli.App) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%% aidw 1 \"\" %q \"User Commands\"\n\n", "aidw "+version)
	fmt.Fprintf(&b, "# NAME\n\naidw - %s\n\n", app.Usage)
	b.WriteString("# SYNOPSIS\n\n")
	cmds := docCommands(app)
	for _, c := range cmds {
		fmt.Fprintf(&b, "**aidw %s** [*options*]  \n", c.name)
	}
	b.WriteString("\n**aidw** **--help** | **--version**\n\n")
	b.WriteString("# DESCRIPTION\n\n" + mdEscape(manDescription) + "\n\n")
	b.WriteString("# COMMANDS\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "### aidw %s\n\n%s.\n\n", c.name, mdEscape(c.usage))
		if c.argsUsage != "" {
			fmt.Fprintf(&b, "```\naidw %s %s\n```\n\n", c.name, c.argsUsage)
		}
		if c.description != "" {
			b.WriteString(mdEscape(c.description) + "\n\n")
		}
		if c.name == "grid" {
			continue // its flags have a section of their own
		}
		for _, f := range c.flags {
			if f.help != "" && c.name != "plan" {
				writeFlag(&b, f)
			}
		}
	}
	b.WriteString("# GRID OPTIONS\n\nThe flags of **aidw grid** and **aidw plan**, as gdal_grid's (single dash, case-insensitive):\n\n")
	for _, f := range cmds[slices.IndexFunc(cmds, func(c docCommand) bool { return c.name == "grid" })].flags {
		writeFlag(&b, f)
	}
	b.WriteString("# ALGORITHMS\n\nThe algorithms of **-a** *name*[:*key*=*value*]..., with their keys and defaults " +
		"(**aidw algorithms** describes every key):\n\n")
	for i, d := range interp.Registry {
		name := "**" + d.Name + "**"
		if i == 0 {
			name += " (default)"
		}
		fmt.Fprintf(&b, "%s\n: %s. Keys: `%s`\n\n", name, mdEscape(d.Help), d.Keys())
	}
	b.WriteString(manTail)
	return b.String()
}

// writeFlag writes a flag as a definition.
func writeFlag(b *strings.Builder, f docFlag) {
	term := "**" + mdEscape(f.name) + "**"
	if f.args != "" {
		term += " *" + mdEscape(f.args) + "*"
	}
	fmt.Fprintf(b, "%s\n: %s\n\n", term, mdEscape(cmp.Or(f.help, "see the usage above")))
}

// mdEscape keeps Markdown from reading text as markup: tags (<value>), emphasis, links.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

const manDescription = "aidw grids scattered point samples into georeferenced rasters by Adaptive Inverse " +
	"Distance Weighting and by every gdal_grid algorithm, on all CPU cores (and on NVIDIA GPUs in its cuda " +
	"build), in memory, in tiles larger than memory, or as a plan for many machines. It reads OGR vector " +
	"sources, CSV/XYZ text and LAS, LAZ and COPC (through GDAL's virtual file systems too), and writes any " +
	"GDAL raster format. Its grid command takes gdal_grid's options and gives gdal_grid's rasters."

const manTail = `# STANDARD INPUT AND OUTPUT

A source **-** or **/vsistdin/** reads text (CSV, XYZ) or LAS/LAZ from standard input. Text is parsed as it
arrives; LAS/LAZ, and text that a tiled run reads twice, are first copied to a temporary file in
**TMPDIR**, removed when the run ends. A destination **/vsistdout/** writes the finished raster to standard
output (any single-file format: GTiff, XYZ, AAIGrid, ...); progress and messages then go to standard error.
A reader that closes the pipe early ends the run quietly with status 141.

# ENVIRONMENT

**TMPDIR**
: where tiled runs spill their samples, standard input is spilled and a raster bound for standard output is written first

**GDAL_NUM_THREADS**
: CPU workers when **-threads** is not given

**AIDW_DEBUG**
: set, an internal error prints its Go stack

# EXIT STATUS

0 on success; 1 on bad input or a failed run, with one line "ERROR: ..." on standard error and no
partial output left; 2 on an internal error; 130 and 143 when interrupted by SIGINT or SIGTERM (within a
second, cleaning up); 141 when standard output was closed early.

# EXAMPLES

` + "```" + `
aidw grid -a invdistnn:power=2:radius=50:max_points=12 -tr 10 10 -ot Float32 points.gpkg dem.tif
las2txt -i survey.laz -stdout -parse xyz | aidw grid -a invdistnn:radius=5 -tr 1 1 /vsistdin/ dem.tif
aidw grid -a nearest -tr 1 1 -of XYZ survey.laz /vsistdout/ | head
` + "```" + `

# SEE ALSO

gdal_grid(1), gdalinfo(1), gdal_translate(1)
`

// completionValues are the words that may follow a flag: the algorithms after -a, the
// alternatives that args names plainly when it names several ("first|last|all"), none
// otherwise (files).
func completionValues(f docFlag) []string {
	if f.name == "-a" {
		var names []string
		for _, d := range interp.Registry {
			names = append(names, d.Name)
		}
		return names
	}
	if !strings.Contains(f.args, "|") {
		return nil
	}
	var out []string
	for _, alt := range strings.Split(f.args, "|") {
		if !strings.ContainsAny(alt, "<> ") {
			out = append(out, alt)
		}
	}
	if len(out) < 2 {
		return nil // -clipsrc: a box, WKT or a datasource besides spat_extent
	}
	return out
}

// valueCount is how many words follow a flag: its args' words, or one for alternatives.
func valueCount(f docFlag) int {
	if f.args == "" {
		return 0
	}
	if strings.Contains(f.args, "|") {
		return 1
	}
	return len(strings.Fields(f.args))
}

// writeBashCompletion writes a bash completion: commands, each command's flags, the values of
// flags that have a closed set; files otherwise (complete -o default).
func writeBashCompletion(w io.Writer, cmds []docCommand) error {
	var b strings.Builder
	b.WriteString("# bash completion for aidw (generated by `aidw completion bash`)\n_aidw() {\n")
	b.WriteString("\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	names := []string{"--help", "--version"}
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, "\tif [[ $COMP_CWORD -eq 1 ]]; then\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names, " "))
	b.WriteString("\tlocal flags=\n\tcase ${COMP_WORDS[1]} in\n")
	values := map[string][]string{}
	var valueFlags []string
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, f.name)
			if v := completionValues(f); v != nil && values[f.name] == nil {
				values[f.name] = v
				valueFlags = append(valueFlags, f.name)
			}
		}
		fmt.Fprintf(&b, "\t%s) flags=%q ;;\n", c.name, strings.Join(fl, " "))
	}
	b.WriteString("\tesac\n\tcase $prev in\n")
	for _, f := range valueFlags {
		fmt.Fprintf(&b, "\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", f, strings.Join(values[f], " "))
	}
	b.WriteString("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n\tfi\n}\n")
	b.WriteString("complete -o default -F _aidw aidw\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeZshCompletion writes a zsh completion: commands with their usage, each command's flags
// with their help and values (repeatable, as gdal_grid's; files where no closed set is
// declared), files as arguments.
func writeZshCompletion(w io.Writer, cmds []docCommand) error {
	var b strings.Builder
	b.WriteString("#compdef aidw\n# zsh completion for aidw (generated by `aidw completion zsh`)\n_aidw() {\n")
	b.WriteString("\tlocal -a commands\n\tcommands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t\t%s\n", zshQuote(c.name+":"+strings.ReplaceAll(c.usage, ":", `\:`)))
	}
	b.WriteString("\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command commands\n\t\treturn\n\tfi\n")
	b.WriteString("\tlocal -a flags\n\tcase $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%s) flags=(\n", c.name)
		for _, f := range c.flags {
			spec := "*" + f.name + "[" + zshHelp(f.help) + "]"
			action := "_files"
			if vals := completionValues(f); vals != nil {
				action = "(" + strings.Join(vals, " ") + ")"
			}
			for i := range valueCount(f) {
				spec += ":" + zshHelp(argWord(f.args, i)) + ":" + action
			}
			fmt.Fprintf(&b, "\t\t%s\n", zshQuote(spec))
		}
		b.WriteString("\t) ;;\n")
	}
	b.WriteString("\tesac\n\t_arguments -s $flags '*:file:_files'\n}\n_aidw \"$@\"\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// argWord names the i-th word of a flag's args: "xsize" of "<xsize> <ysize>", "algorithm" of
// "<algorithm>[:<key>=<value>]...", the word itself without placeholders ("first|last|all").
func argWord(args string, i int) string {
	words := strings.Fields(args)
	if len(words) == 0 {
		return "value"
	}
	w := words[min(i, len(words)-1)]
	if m := placeholder.FindStringSubmatch(w); m != nil && !strings.Contains(w, "|") {
		return m[1]
	}
	return w
}

var placeholder = regexp.MustCompile(`<([^>]+)>`)

// zshHelp makes text safe inside an _arguments spec: no brackets, colons or backslashes.
func zshHelp(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", ":", " -", "\\", "/").Replace(s)
}

// zshQuote quotes a word for zsh in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
