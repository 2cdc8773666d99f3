package results

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrInUse says that another process writes the run directory.
var ErrInUse = errors.New("run directory in use")

// Lock takes the run directory for this process (an exclusive flock on its
// .lock file, which holds the owner's pid): a second writer (a --resume of
// a run that is still running) is refused, and the kernel lets go when the
// owner ends, however it ends. Unlock (or the process's end) releases it.
func (d *Dir) Lock() (unlock func(), err error) {
	// Never through a link: a planted .lock -> /etc/passwd was opened for
	// writing and truncated (issue 60).
	f, err := d.openOwn(".lock", os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("results: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		b = b[:n]
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			owner := strings.TrimSpace(string(b))
			if _, perr := strconv.Atoi(owner); perr != nil {
				owner = "another process"
			} else {
				owner = "pid " + owner
			}
			return nil, fmt.Errorf("%w: %s is being written by %s (a run that is still going: wait for it or stop it first)", ErrInUse, d.Path, owner)
		}
		return nil, fmt.Errorf("results: lock: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
