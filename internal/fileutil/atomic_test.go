package fileutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// WriteAtomic's file is readable by all (0644, whatever the temporary
// file's mode was); a link at its name is replaced, never written through;
// a write that fails leaves nothing and says why.
func TestWriteAtomicReplacesAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.WriteFile(outside, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cells.csv")
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "a\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
		t.Errorf("written: %v %v, want a regular file of mode 0644", st, err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Errorf("written through the link: %q", b)
	}
	failing := errors.New("the disk is full")
	if err := WriteAtomic(filepath.Join(dir, "other.csv"), func(w io.Writer) error { return failing }); !errors.Is(err, failing) {
		t.Errorf("a failing write: %v, want its error", err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("after a failing write the directory holds %v, want only cells.csv and outside", es)
	}
}
