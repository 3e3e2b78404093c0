package gdalio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aidw/aidw/sample"
)

// whitespace as a delimiter means runs of blanks (spaces and tabs).
const whitespace = ' '

// textLayout is what the head of a delimited text file says about the rest.
type textLayout struct {
	delim byte
	// cols are the fields holding x, y and z; need is how many fields a data line must have.
	cols [3]int
	need int
	// bodyStart is the byte offset of the first line after the header; bodyLine its number.
	bodyStart int64
	bodyLine  int
	// first is the first data line's x and y (the samples' origin); bytesPerLine estimates the
	// line length, to size the sample arrays.
	first        [2]float64
	bytesPerLine float64
}

// textParams are the per-sample settings every parse job shares (read-only).
type textParams struct {
	lay    *textLayout
	flt    *sample.Filter
	ox, oy float64
	extent bool
	zName  string
}

// readText reads a delimited text file of points with the native parser.
func readText(path string, opt SourceOptions, flt *sample.Filter) (Source, error) {
	s := &sample.Samples{}
	reserve := func(n int) { s.X, s.Y, s.Z = make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n) }
	src, err := scanText(path, opt, flt, reserve, func(b *sample.Samples) error {
		s.OriginX, s.OriginY = b.OriginX, b.OriginY
		s.X, s.Y, s.Z = append(s.X, b.X...), append(s.Y, b.Y...), append(s.Z, b.Z...)
		return nil
	})
	src.Samples = s
	return src, err
}

// scanText reads a delimited text file of points (or standard input's stream, see
// SourceOptions.Stdin) with the native parser, handing its samples to yield a batch at a time,
// in file order (see parseBody). The file is read once, front to back.
func scanText(path string, opt SourceOptions, flt *sample.Filter, reserve func(int), yield func(*sample.Samples) error) (Source, error) {
	in, size, err := openText(path, opt)
	if err != nil {
		return Source{}, err
	}
	defer in.Close()
	what := path
	if IsStdin(path) {
		what = "standard input"
	}
	var head bytes.Buffer
	lay, err := detectLayout(io.TeeReader(in, &head), opt.ZField)
	if err != nil {
		return Source{}, fmt.Errorf("reading %s: %w", what, err)
	}
	p := &textParams{lay: lay, flt: flt, ox: lay.first[0], oy: lay.first[1],
		extent: opt.LayerExtent, zName: "z"}
	if opt.ZField != "" {
		p.zName = opt.ZField
	}
	body := io.MultiReader(bytes.NewReader(head.Bytes()[lay.bodyStart:]), in)
	src, err := parseBody(body, size-lay.bodyStart, p, reserve, yield)
	if err != nil {
		return Source{}, fmt.Errorf("reading %s: %w", what, err)
	}
	return src, nil
}

// openText opens a text source for one pass; size is -1 when unknown (a stream).
func openText(path string, opt SourceOptions) (io.ReadCloser, int64, error) {
	if IsStdin(path) {
		if opt.Stdin == nil {
			return nil, 0, fmt.Errorf("%s: standard input cannot be read here: save it to a file", path)
		}
		return io.NopCloser(opt.Stdin), -1, nil
	}
	f, err := OpenInput(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, 0, f.Size()), f}, f.Size(), nil
}

// detectLayout reads the head of the file: comments and blank lines, the optional header (a
// first line that is not all numbers), the delimiter (from the first data line) and the
// columns of x, y and z.
func detectLayout(f io.Reader, zfield string) (*textLayout, error) {
	head := make([]byte, 1<<20)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	offset := 0
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		offset = 3
	}
	var content [][]byte // the first two content lines
	var starts []int
	var numbers []int
	lineNo := 0
	for offset < len(head) && len(content) < 2 {
		nl := bytes.IndexByte(head[offset:], '\n')
		if nl < 0 && n == len(head) && len(head) == cap(head) {
			return nil, errors.New("no complete data line in the first MiB")
		}
		end := len(head)
		if nl >= 0 {
			end = offset + nl
		}
		line := trimCR(head[offset:end])
		lineNo++
		if !blankOrComment(line) {
			content = append(content, line)
			starts = append(starts, offset)
			numbers = append(numbers, lineNo)
		}
		offset = end + 1
	}
	if len(content) == 0 {
		return nil, errors.New("no data lines")
	}
	lay := &textLayout{}
	header := !allNumbers(content[0])
	data := content[0]
	if header {
		if len(content) < 2 {
			return nil, errors.New("a header line but no data lines")
		}
		data = content[1]
		lay.bodyStart, lay.bodyLine = int64(starts[1]), numbers[1]
	} else {
		lay.bodyStart, lay.bodyLine = int64(starts[0]), numbers[0]
	}
	lay.delim = detectDelimiter(data)
	var names []string
	if header {
		names = splitAll(content[0], lay.delim)
	}
	cols, err := findColumns(names, zfield)
	if err != nil {
		return nil, err
	}
	lay.cols, lay.need = cols, max(cols[0], cols[1], cols[2])+1
	fields := splitAll(data, lay.delim)
	if len(fields) >= lay.need {
		x, errX := strconv.ParseFloat(fields[cols[0]], 64)
		y, errY := strconv.ParseFloat(fields[cols[1]], 64)
		if errX == nil && errY == nil && finite(x) && finite(y) {
			lay.first = [2]float64{x, y}
		}
	}
	// up to a MiB of lines sizes the sample arrays well; a single line could be far off
	body := head[lay.bodyStart:]
	lay.bytesPerLine = float64(len(body)) / float64(max(bytes.Count(body, []byte{'\n'}), 1))
	return lay, nil
}

func trimCR(line []byte) []byte {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		return line[:len(line)-1]
	}
	return line
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func blankOrComment(line []byte) bool {
	for _, c := range line {
		if !isBlank(c) {
			return c == '#'
		}
	}
	return true
}

// detectDelimiter picks the most frequent of tab, semicolon and comma outside quotes, or runs
// of blanks when none occurs (or when tabs and spaces both separate fields).
func detectDelimiter(line []byte) byte {
	candidates := []byte{'\t', ';', ','}
	var count [3]int
	quoted := false
	for _, c := range line {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		for k, d := range candidates {
			if c == d {
				count[k]++
			}
		}
	}
	best := -1
	for k := range candidates {
		if count[k] > 0 && (best < 0 || count[k] > count[best]) {
			best = k
		}
	}
	if best < 0 {
		return whitespace
	}
	if candidates[best] == '\t' && blanksSeparate(line) {
		return whitespace
	}
	return candidates[best]
}

// blanksSeparate reports whether spaces split a tab-separated field outside quotes ("1 2\t3"):
// then tabs and spaces are both separators.
func blanksSeparate(line []byte) bool {
	quoted, text, gap := false, false, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
			if gap {
				return true
			}
			text = true
		case quoted:
		case c == '\t':
			text, gap = false, false
		case c == ' ':
			gap = text
		default:
			if gap {
				return true
			}
			text = true
		}
	}
	return false
}

// splitAll splits a whole line into unquoted fields (for the header and the first line).
func splitAll(line []byte, delim byte) []string {
	var out []string
	rest := line
	for {
		f, next, ok := nextField(rest, delim)
		if !ok {
			return out
		}
		out = append(out, strings.ReplaceAll(string(f), `""`, `"`))
		if next == nil {
			return out
		}
		rest = next
	}
}

func allNumbers(line []byte) bool {
	delim := detectDelimiter(line)
	fields := splitAll(line, delim)
	if len(fields) == 0 {
		return false
	}
	for _, f := range fields {
		if _, err := parseFloat([]byte(f)); err != nil || f == "" {
			return false
		}
	}
	return true
}

// findColumns returns the x, y and z columns: by name (case-insensitive) when there is a
// header, the first three otherwise; -zfield names z's column (field_N, OGR's name for
// headerless columns, works without a header).
func findColumns(names []string, zfield string) ([3]int, error) {
	if names == nil {
		cols := [3]int{0, 1, 2}
		if zfield != "" {
			k, ok := ogrFieldNumber(zfield)
			if !ok {
				return cols, fmt.Errorf("-zfield %q: the file has no header line; name the column field_N (N from 1)", printable(zfield))
			}
			cols[2] = k
		}
		return cols, nil
	}
	find := func(name string) int {
		for i, n := range names {
			if n == name {
				return i
			}
		}
		for i, n := range names {
			if strings.EqualFold(strings.TrimSpace(n), name) {
				return i
			}
		}
		if k, ok := ogrFieldNumber(name); ok && k < len(names) {
			return k
		}
		return -1
	}
	var cols [3]int
	for k, name := range []string{"x", "y", "z"} {
		label := "column named " + name
		if k == 2 && zfield != "" {
			name = zfield
			label = fmt.Sprintf("-zfield column %q", printable(zfield))
		}
		if cols[k] = find(name); cols[k] < 0 {
			return cols, fmt.Errorf("no %s in the header (columns: %s)", label, printable(strings.Join(names, ", ")))
		}
	}
	return cols, nil
}

func ogrFieldNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(name), "field_")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 1 {
		return 0, false
	}
	return k - 1, true
}

// nextField cuts the first field off a line: blanks around it are trimmed and quotes removed
// (a doubled quote inside stays doubled). next is nil after the last field; ok is false when
// the line holds no more fields or a quote is not closed.
func nextField(line []byte, delim byte) (field, next []byte, ok bool) {
	i, n := 0, len(line)
	for i < n && (line[i] == ' ' || (line[i] == '\t' && delim != '\t')) {
		i++
	}
	if delim == whitespace && i == n {
		return nil, nil, false
	}
	if i < n && line[i] == '"' {
		j := i + 1
		for {
			q := bytes.IndexByte(line[j:], '"')
			if q < 0 {
				return nil, nil, false
			}
			j += q + 1
			if j < n && line[j] == '"' {
				j++
				continue
			}
			break
		}
		field = line[i+1 : j-1]
		if delim == whitespace {
			switch {
			case j == n:
				return field, nil, true
			case isBlank(line[j]):
				return field, line[j:], true
			}
			return nil, nil, false
		}
		for j < n && (line[j] == ' ' || (line[j] == '\t' && delim != '\t')) {
			j++
		}
		switch {
		case j == n:
			return field, nil, true
		case line[j] == delim:
			return field, line[j+1:], true
		}
		return nil, nil, false
	}
	var end int
	if delim == whitespace {
		end = i
		for end < n && !isBlank(line[end]) {
			end++
		}
	} else {
		end = bytes.IndexByte(line[i:], delim)
		if end < 0 {
			end = n
		} else {
			end += i
		}
	}
	field = line[i:end]
	for len(field) > 0 && isBlank(field[len(field)-1]) {
		field = field[:len(field)-1]
	}
	if end == n {
		return field, nil, true
	}
	return field, line[end+1:], true
}

// fields picks the x, y and z fields of a data line.
func (l *textLayout) fields(line []byte, out *[3][]byte) error {
	rest := line
	for i := range l.need {
		if rest == nil {
			return fmt.Errorf("%d fields, need at least %d", i, l.need)
		}
		f, next, ok := nextField(rest, l.delim)
		if !ok {
			if bytes.IndexByte(rest, '"') >= 0 {
				return errors.New("unclosed quote (quoted fields cannot span lines)")
			}
			return fmt.Errorf("%d fields, need at least %d", i, l.need)
		}
		for k, c := range l.cols {
			if c == i {
				out[k] = f
			}
		}
		rest = next
	}
	return nil
}
