package spec

import (
	"fmt"
	"os"
	"strconv"
)

// MaxMemoryMB bounds a function's memory_mb (1 TiB).
const MaxMemoryMB = 1 << 20

// MaxCellsEnv raises the bound on a plan's cells.
const MaxCellsEnv = "FAASBENCH_MAX_CELLS"

// DefaultMaxCells bounds a plan's cells unless MaxCellsEnv says otherwise:
// a grid of a million cells is a typo, not a study (and a manifest of
// hundreds of MB).
const DefaultMaxCells = 20000

// MaxCells is the bound on a plan's cells.
func MaxCells() int64 {
	if v, err := strconv.ParseInt(os.Getenv(MaxCellsEnv), 10, 64); err == nil && v > 0 {
		return v
	}
	return DefaultMaxCells
}

// CellCount is how many cells the spec's plan has (saturating at 1<<62),
// computed without expanding it.
func (s Spec) CellCount() int64 {
	n := int64(max(len(s.Functions), 1))
	v := s.Vary
	for _, l := range []int{len(s.Load.Concurrency) + len(s.Load.Rate), len(v.Replicas), len(v.Workers), len(v.Mode), len(v.MemoryMB),
		len(v.CPUs), len(v.Routing), len(v.PayloadSize), len(v.Path), s.Repetitions} {
		if l > 1 {
			if n > (1<<62)/int64(l) {
				return 1 << 62
			}
			n *= int64(l)
		}
	}
	return n
}

// CheckPayloadFile checks a file sent as a request body: a regular file (not
// a directory, a device such as /dev/zero or a FIFO) of at most
// MaxPayloadSize bytes.
func CheckPayloadFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("no such file (relative paths start at the spec's directory; faasbench data writes inputs)")
	case !st.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	case st.Size() > MaxPayloadSize:
		return fmt.Errorf("%d bytes: a body is at most %d", st.Size(), MaxPayloadSize)
	}
	return nil
}
