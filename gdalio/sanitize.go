package gdalio

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQuoted is how many characters of a file's content an error message quotes.
const maxQuoted = 40

// printable makes text read from a file safe to quote in an error line: bytes that are not
// printable (control characters, escape sequences, invalid UTF-8) become \xNN, and the text is
// cut to maxQuoted characters, so a binary file given as CSV cannot garble the terminal.
func printable(s string) string { return escape(s, maxQuoted) }

// PrintableLine is a message as aidw prints it, on one line: every byte that is not printable
// becomes \xNN, whatever path brought it (a field name, a GDAL or OGR message quoting a
// corrupt file, a non-UTF-8 file name). The one place every ERROR and warning line passes.
func PrintableLine(s string) string { return escape(s, -1) }

// escape writes s with its unprintable bytes as \xNN, cut to limit characters and "..." (no
// cut when limit < 0).
func escape(s string, limit int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if n == limit {
			b.WriteString("...")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || !unicode.IsPrint(r) {
			for _, c := range []byte(s[i : i+max(size, 1)]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += max(size, 1)
		n++
	}
	return b.String()
}
