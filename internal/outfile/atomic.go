package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic writes data to path through a temporary file beside it, renamed into place when
// complete, so that a failure leaves no partial file and an existing one untouched.
func WriteAtomic(path string, data []byte) error {
	return WriteAtomicFrom(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomicFrom is WriteAtomic of what write writes, which need not be in memory at once.
func WriteAtomicFrom(path string, write func(w io.Writer) error) error {
	tmp, err := Reserve(path, filepath.Ext(path))
	if err != nil {
		return err
	}
	// the reserved file is private (0600); the finished one is readable as any output
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
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
