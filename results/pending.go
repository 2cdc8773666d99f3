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
	root  *os.Root
	tmp   string
	final string
	done  bool
}

// Create starts writing name (a path under the directory), never through a
// link (Dir.WriteFile's rules).
func (d *Dir) Create(name string) (*Pending, error) {
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	f, tmp, err := d.createTemp(r, name)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Pending{File: f, root: r, tmp: tmp, final: name}, nil
}

// Commit makes the file appear under its name.
func (p *Pending) Commit() error {
	if p.done {
		return nil
	}
	p.done = true
	defer p.root.Close()
	err := p.Sync()
	if cerr := p.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.root.Rename(p.tmp, p.final)
	}
	if err != nil {
		p.root.Remove(p.tmp)
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
	p.root.Remove(p.tmp)
	p.root.Close()
}
