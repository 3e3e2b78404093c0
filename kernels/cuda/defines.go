package cuda

import (
	"bufio"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"regexp"
	"strings"
)

var (
	defineRe = regexp.MustCompile(`^#define\s+([A-Z_][A-Z0-9_]*)\s+(.+?)\s*(//.*)?$`)
	identRe  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	callRe   = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\(([^()]*)\)\s*$`)
)

// Defines reads the numeric object-like #defines of a CUDA source file (integers, floats and
// constant expressions of earlier ones, such as (SCAN_BLOCK * SCAN_ITEMS) or (1 << RADIX_BITS))
// and the instantiations of its macros at the top level (lines such as NODE_KERNELS(16)), so
// that a test can check them against the Go constants that launch the kernels. It needs no
// GPU and no cuda build.
func Defines(path string) (defines map[string]constant.Value, calls map[string][][]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	defines, calls = map[string]constant.Value{}, map[string][][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := callRe.FindStringSubmatch(line); m != nil {
			var args []string
			for _, a := range strings.Split(m[2], ",") {
				args = append(args, strings.TrimSpace(a))
			}
			calls[m[1]] = append(calls[m[1]], args)
			continue
		}
		m := defineRe.FindStringSubmatch(line)
		if m == nil || strings.HasSuffix(m[2], `\`) {
			continue
		}
		expr, known := m[2], true
		expr = identRe.ReplaceAllStringFunc(expr, func(id string) string {
			if v, ok := defines[id]; ok {
				return "(" + v.ExactString() + ")"
			}
			if id != "e" && id != "E" {
				known = false
			}
			return id
		})
		if !known {
			continue // not a number (a function-like macro, an intrinsic, a literal with a suffix)
		}
		tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, expr)
		if err != nil || tv.Value == nil {
			continue
		}
		defines[m[1]] = tv.Value
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return defines, calls, nil
}
