package fileutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCopyReplacesAndSetsTheMode(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A link at dst is replaced, never written through.
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dst); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	err := Copy(src, dst, 0o755)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dst)
	st, _ := os.Lstat(dst)
	keep, _ := os.ReadFile(target)
	if string(b) != "new" || st.Mode() != 0o755 || string(keep) != "keep" {
		t.Fatalf("dst %q mode %v, link target %q", b, st.Mode(), keep)
	}
}
