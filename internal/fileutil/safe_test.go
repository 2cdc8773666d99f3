package fileutil

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenNoFollowRefusesLinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	if err := os.WriteFile(outside, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	fifo := filepath.Join(dir, "fifo")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_APPEND, os.O_RDWR | os.O_CREATE} {
		if f, err := OpenNoFollow(link, flag, 0o600); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			f.Close()
			t.Errorf("flag %#x: a link was opened (%v)", flag, err)
		}
		// A FIFO is refused at once: opened for reading without a writer
		// (or for writing without a reader) it would block for ever.
		if f, err := OpenNoFollow(fifo, flag&^(os.O_TRUNC|os.O_APPEND), 0o600); err == nil {
			f.Close()
			t.Errorf("flag %#x: a FIFO was opened", flag)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Errorf("the link's target was changed: %q", b)
	}
	f, err := OpenNoFollow(filepath.Join(dir, "new"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatalf("a new regular file: %v", err)
	}
	f.Close()
}

func TestMkdirNoFollowRefusesALinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "logs")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if err := MkdirNoFollow(link, 0o755); err == nil {
		t.Error("a link to a directory was taken as the directory")
	}
	for range 2 { // made, then found
		if err := MkdirNoFollow(filepath.Join(dir, "real"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
