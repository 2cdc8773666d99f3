package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// CheckPayloadFile checks a file sent as a request body: once every
// symbolic link is resolved, under one of roots (the spec's directory, the
// data directory) and never under /proc, /sys or /dev; a regular file (not a
// directory, a device such as /dev/zero or a FIFO) of at most
// MaxPayloadSize bytes. faasbench reads it, as root perhaps, on the spec's
// behalf: /etc/shadow or /proc/self/environ (faasbench's own secrets) must
// never become a request's body.
func CheckPayloadFile(path string, roots ...string) error {
	if err := Contained(path, roots...); err != nil {
		return err
	}
	return CheckBodyFile(path)
}

// CheckBodyFile checks a file named to be a request's body (faasbench
// load --body-file): resolved with its links, not under /proc, /sys or /dev,
// a regular file of at most MaxPayloadSize bytes.
func CheckBodyFile(path string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if real, err = filepath.Abs(real); err == nil {
			if err := neverRead(real); err != nil {
				return err
			}
		}
	}
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

// Contained checks that path, resolved with its symbolic links, lies under
// one of roots (also resolved) and not under /proc, /sys or /dev.
func Contained(path string, roots ...string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("no such file (relative paths start at the spec's directory; faasbench data writes inputs)")
	}
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	if err := neverRead(real); err != nil {
		return err
	}
	var tried []string
	for _, r := range roots {
		if r == "" {
			continue
		}
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			rr = r
		}
		if rr, err = filepath.Abs(rr); err == nil && within(real, rr) {
			return nil
		}
		tried = append(tried, r)
	}
	return fmt.Errorf("resolves to %s, outside %s: a spec's files stay under its directory or the data directory", real, strings.Join(tried, " and "))
}

// within says whether p is dir or under it (both absolute and clean).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// neverRead refuses a resolved path under /proc, /sys or /dev.
func neverRead(real string) error {
	for _, never := range []string{"/proc", "/sys", "/dev"} {
		if within(real, never) {
			return fmt.Errorf("resolves to %s: files under %s are never read", real, never)
		}
	}
	return nil
}
