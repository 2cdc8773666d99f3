package results

import (
	"fmt"
	"os"
	"syscall"
)

// ReserveSize is the space a run keeps back for its last words.
const ReserveSize = 4 << 20

// Reserve sets aside size bytes of the run directory's file system (an
// allocated file, .space-reserve) and returns the function that gives them
// back: a run that fills its disk releases the reserve before it writes its
// final manifest, summary and report, so they can say what happened.
func (d *Dir) Reserve(size int64) (release func(), err error) {
	path := d.File(".space-reserve")
	f, err := d.openOwn(".space-reserve", os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return func() {}, fmt.Errorf("results: reserve: %w", err)
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, size)
	f.Close()
	if err != nil {
		os.Remove(path)
		return func() {}, fmt.Errorf("results: reserve %d bytes: %w", size, err)
	}
	return func() { os.Remove(path) }, nil
}
