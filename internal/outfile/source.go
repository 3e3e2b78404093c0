package outfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckNotSource refuses a destination that would overwrite one of the sources, or that lies
// in a directory given as a source (a directory of LAS tiles, a folder of shapefiles). Files
// are compared by device and inode (os.SameFile), so that a hard link, a symbolic link or
// another spelling of the same path is caught; sources are the command line's, inputs what
// inputs.Expand made of them (globs, directories). It reads no source.
func CheckNotSource(dst string, sources, inputs []string) error {
	dstInfo, dstErr := os.Stat(dst)
	parent, parentErr := os.Stat(filepath.Dir(dst))
	for _, p := range inputs {
		if st, err := os.Stat(p); err == nil && dstErr == nil && !st.IsDir() && os.SameFile(st, dstInfo) {
			return fmt.Errorf("the destination %s is the source %s: give another output file", dst, p)
		}
	}
	if parentErr != nil {
		return nil
	}
	for _, d := range sources {
		if st, err := os.Stat(d); err == nil && st.IsDir() && os.SameFile(st, parent) {
			return fmt.Errorf("the destination %s is inside the source directory %s: give an output outside it", dst, d)
		}
	}
	for _, p := range inputs {
		if st, err := os.Stat(p); err == nil && st.IsDir() && os.SameFile(st, parent) {
			return fmt.Errorf("the destination %s is inside the source directory %s: give an output outside it", dst, p)
		}
	}
	return nil
}
