package fileutil

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// OpenNoFollow opens path with flag (os.O_RDONLY, os.O_WRONLY|os.O_CREATE|...) and
// perm, never through a symbolic link at path itself (O_NOFOLLOW), and
// returns it only when it is a regular file: a FIFO would block a reader
// or writer for ever (it is opened without blocking, then refused), a
// device would never end. The directories on the way are the caller's.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if isLinkErr(err) {
			return nil, fmt.Errorf("%s is a symbolic link: refused (%w)", path, err)
		}
		return nil, err
	}
	if _, err := Regular(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// Regular returns the open file f's information when it is a regular file;
// otherwise it closes f and says why (name: how to call it). A file opened
// without blocking and found not regular (a FIFO, a device) is refused
// here, before anything waits on it or reads it without end.
func Regular(f *os.File, name string) (os.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s): refused", name, st.Mode().Type())
	}
	return st, nil
}

// isLinkErr is O_NOFOLLOW's refusal: ELOOP on Linux.
func isLinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// MkdirNoFollow makes path (mode perm) unless it is there, and refuses it when it
// is anything but a directory: a symbolic link at path (to a directory
// elsewhere) is refused, not followed. Its parent must exist.
func MkdirNoFollow(path string, perm os.FileMode) error {
	err := os.Mkdir(path, perm)
	if err != nil && !os.IsExist(err) {
		return err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (%s): refused", path, st.Mode().Type())
	}
	return nil
}
