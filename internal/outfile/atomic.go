package outfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic writes data to path through a temporary file beside it, renamed into place when
// complete, so that a failure leaves no partial file and an existing one untouched.
func WriteAtomic(path string, data []byte) error {
	tmp, err := Reserve(path, filepath.Ext(path))
	if err != nil {
		return err
	}
	// the reserved file is private (0600); the finished one is readable as any output
	err = os.WriteFile(tmp, data, 0o644)
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
