package fileutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with what write writes, through a new temporary
// file beside it (a random name, O_EXCL) and a rename, readable by all
// (0644): a link planted at path is replaced, never written through
// (export's cells.csv in a run directory could truncate the file a link
// pointed to, as root), and a full disk leaves the previous file, never a
// truncated one.
func WriteAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
