package results

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/faasbench/faasbench/internal/fileutil"
)

// MaxRunFile bounds what faasbench reads of any one file of a run
// directory. A run directory is input too (issue 60): --resume, export and
// report read what another user, or a copied archive, put there.
const MaxRunFile = 1 << 30

// root opens the run directory so that nothing reached through it leaves
// it: a `..` or a symbolic link out of the directory is refused by the
// walk, at every component of a name (os.Root).
func (d *Dir) root() (*os.Root, error) {
	r, err := os.OpenRoot(d.Path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return r, nil
}

// OpenRead opens name (a path under the directory) for reading: inside the
// directory only, a regular file only (a FIFO would hang the reader and a
// device never ends), of at most max bytes (0: MaxRunFile).
func (d *Dir) OpenRead(name string, max int64) (*os.File, error) {
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer.
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	st, err := fileutil.Regular(f, name+" in "+d.Path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if max = runFileBound(max); st.Size() > max {
		f.Close()
		return nil, fmt.Errorf("results: %s in %s has %d bytes, more than the %d read from a run directory's file", name, d.Path, st.Size(), max)
	}
	return f, nil
}

// runFileBound is max, or MaxRunFile when max is 0 or less.
func runFileBound(max int64) int64 {
	if max <= 0 {
		return MaxRunFile
	}
	return max
}

// ReadFile reads name through OpenRead.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	f, err := d.OpenRead(name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max = runFileBound(max)
	// A file that grew after the check is still read only up to its bound.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("more than %d bytes", max)
	}
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", name, err)
	}
	return b, nil
}

// ReadRunFile is Dir.ReadFile for a caller that holds the directory's path.
func ReadRunFile(dir, name string) ([]byte, error) {
	return (&Dir{Path: dir}).ReadFile(name, 0)
}

// createTemp makes a new file beside name (a path under the directory), in
// its directory made inside the run directory, never through a link: the
// temp name is new (O_EXCL), and what replaces name later is a rename,
// which replaces a link rather than writing through it.
func (d *Dir) createTemp(r *os.Root, name string) (*os.File, string, error) {
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, "", fmt.Errorf("results: %w", err)
	}
	var rnd [8]byte
	for range 100 {
		if _, err := rand.Read(rnd[:]); err != nil {
			return nil, "", fmt.Errorf("results: %w", err)
		}
		tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+"."+hex.EncodeToString(rnd[:]))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("results: %w", err)
		}
		return f, tmp, nil
	}
	return nil, "", fmt.Errorf("results: no free temporary name beside %s", name)
}

// Subdir makes the directory name under the run directory (never through a
// link out of it) and returns its path; it refuses a name that is a link.
func (d *Dir) Subdir(name string) (string, error) {
	r, err := d.root()
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := r.MkdirAll(name, 0o755); err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	st, err := r.Lstat(name)
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("results: %s in %s is not a directory (%s): refused", name, d.Path, st.Mode().Type())
	}
	return d.File(name), nil
}

// openOwn opens one of faasbench's own files at the directory's top
// (.lock, .space-reserve) for writing: never a link (not even one to
// another file of the run), a regular file only.
func (d *Dir) openOwn(name string, flag int) (*os.File, error) {
	return fileutil.OpenNoFollow(d.File(name), flag, 0o600)
}
