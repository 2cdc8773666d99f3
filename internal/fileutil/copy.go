// Package fileutil holds file operations several packages need.
package fileutil

import (
	"io"
	"io/fs"
	"os"
)

// Copy copies the regular file src to dst (replacing dst, never writing
// through a link at dst) with mode, whatever the umask.
func Copy(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	_ = os.Remove(dst)
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}
