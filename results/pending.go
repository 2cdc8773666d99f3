package results

import (
	"fmt"
	"os"
	"path/filepath"
)

// Pending is a file of the run directory being written: it appears under
// its name only when Commit succeeds (temp file, sync, rename); Abort (or a
// failed Commit) removes it. A full disk never leaves a truncated file.
type Pending struct {
	*os.File
	final string
	done  bool
}

// Create starts writing name (a path under the directory).
func (d *Dir) Create(name string) (*Pending, error) {
	final := d.File(name)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".*")
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return &Pending{File: f, final: final}, nil
}

// Commit makes the file appear under its name.
func (p *Pending) Commit() error {
	if p.done {
		return nil
	}
	p.done = true
	err := p.Sync()
	if cerr := p.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.Name(), p.final)
	}
	if err != nil {
		os.Remove(p.Name())
		return fmt.Errorf("results: %s: %w", filepath.Base(p.final), err)
	}
	return nil
}

// Abort drops the file (nothing after Commit).
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.File.Close()
	os.Remove(p.Name())
}
