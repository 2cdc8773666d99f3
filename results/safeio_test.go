package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/fileutil"
)

// hostileRun is a run directory whose names were planted by someone else:
// links out of it (to a file and a directory that must stay untouched), a
// FIFO where a reader expects a file.
func hostileRun(t *testing.T) (d *Dir, outsideFile, outsideDir string) {
	t.Helper()
	top := t.TempDir()
	outsideFile = filepath.Join(top, "passwd")
	outsideDir = filepath.Join(top, "etc")
	run := filepath.Join(top, "run")
	for _, p := range []string{outsideDir, run, filepath.Join(run, "windows")} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outsideFile, []byte("root:x:0:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"summary.json":   outsideFile,
		"timeline.json":  outsideFile,
		".lock":          outsideFile,
		".space-reserve": outsideFile,
		"cells.csv":      outsideFile,
		"hlog":           outsideDir,
		"figures":        outsideDir,
		"platform":       outsideDir,
	} {
		if err := os.Symlink(target, filepath.Join(run, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(run, "windows", WindowsName("c1")), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Dir{Path: run}, outsideFile, outsideDir
}

func untouched(t *testing.T, outsideFile, outsideDir string) {
	t.Helper()
	if b, err := os.ReadFile(outsideFile); err != nil || string(b) != "root:x:0:0\n" {
		t.Errorf("the file a link pointed to was changed: %q %v", b, err)
	}
	if es, err := os.ReadDir(outsideDir); err != nil || len(es) != 0 {
		t.Errorf("the directory a link pointed to was written: %v %v", es, err)
	}
}

// A run directory is input (issue 60): --resume, report and export read and
// write it as whoever runs them, often root. Nothing they do reaches out of
// it through a link, and no file in it hangs or floods a reader.
func TestARunDirectoryIsNeverLeftThroughALink(t *testing.T) {
	d, outsideFile, outsideDir := hostileRun(t)
	var s Summary
	if err := d.ReadJSON("summary.json", &s); err == nil {
		t.Error("summary.json was read through a link out of the run")
	}
	if _, err := ReadRunFile(d.Path, "timeline.json"); err == nil {
		t.Error("timeline.json was read through a link out of the run")
	}
	// A FIFO is refused at once, not waited on.
	done := make(chan error, 1)
	go func() { _, err := CellBuckets(d.Path, "c1"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO's windows: %v, want a refusal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO in the run directory hung")
	}
	if _, err := d.Lock(); err == nil {
		t.Error("the lock was taken through a link (its target was opened for writing)")
	}
	if _, err := d.Reserve(1 << 20); err == nil {
		t.Error("the reserve was made through a link (its target was truncated)")
	}
	if err := d.WriteFile("hlog/c1.hlog", []byte("x")); err == nil {
		t.Error("hlog/ was written through a link to a directory out of the run")
	}
	if p, err := d.Create("hlog/c2.hlog"); err == nil {
		p.Abort()
		t.Error("a pending file was made through a link to a directory out of the run")
	}
	for _, sub := range []string{"figures", "platform"} {
		if _, err := d.Subdir(sub); err == nil {
			t.Errorf("%s/, a link out of the run, was taken as the run's directory", sub)
		}
	}
	// A link at the name itself is replaced, never written through.
	if err := d.WriteJSON("summary.json", Summary{}); err != nil {
		t.Fatal(err)
	}
	if err := fileutil.WriteAtomic(d.File("cells.csv"), func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n"); return err }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.json", "cells.csv"} {
		if st, err := os.Lstat(d.File(name)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s after a write: %v %v, want a regular file of the run", name, st, err)
		}
	}
	untouched(t, outsideFile, outsideDir)
}

func TestRunFilesAreReadWithABound(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	if err := d.WriteFile("big.json", bytes.Repeat([]byte("x"), 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadFile("big.json", 99); err == nil || !strings.Contains(err.Error(), "more than the 99") {
		t.Errorf("a 100-byte file under a bound of 99: %v", err)
	}
	if b, err := d.ReadFile("big.json", 100); err != nil || len(b) != 100 {
		t.Errorf("a 100-byte file under a bound of 100: %d bytes, %v", len(b), err)
	}
	// A link inside the run stays inside it: it is read.
	if err := os.Symlink("big.json", d.File("alias.json")); err != nil {
		t.Fatal(err)
	}
	if b, err := d.ReadFile("alias.json", 0); err != nil || len(b) != 100 {
		t.Errorf("a link inside the run: %d bytes, %v", len(b), err)
	}
}

// Subdir makes a directory that is one.
func TestSubdirMakesADirectory(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	p, err := d.Subdir("figures")
	if err != nil || p != d.File("figures") {
		t.Fatalf("Subdir: %q %v", p, err)
	}
	if st, err := os.Lstat(p); err != nil || !st.IsDir() {
		t.Errorf("figures: %v %v, want a directory", st, err)
	}
}
