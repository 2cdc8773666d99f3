package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadWorkloadFileStaysInItsRoot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "workloads")
	if err := os.MkdirAll(filepath.Join(dir, "hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello", "hello.py"), []byte("def main(): return 'hello'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "secret")
	if err := os.WriteFile(secret, []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "hello", "link.py")); err != nil {
		t.Fatal(err)
	}
	b, err := ReadWorkloadFile(dir, "hello/hello.py", "settings.code_file")
	if err != nil || !strings.Contains(string(b), "hello") {
		t.Fatalf("a file inside the root: %q, %v", b, err)
	}
	for name, want := range map[string]string{
		secret:               "not a path inside the workloads directory",
		"../secret":          "not a path inside the workloads directory",
		"hello/../../secret": "not a path inside the workloads directory",
		"hello/link.py":      "a symbolic link out of it",
		"hello/missing.py":   "no such file",
		"":                   "empty",
	} {
		b, err := ReadWorkloadFile(dir, name, "settings.code_file")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "settings.code_file: ") {
			t.Errorf("%q: got %q, %v; want an error naming the field with %q", name, b, err, want)
		}
		if strings.Contains(string(b), "token") || (err != nil && strings.Contains(err.Error(), "token")) {
			t.Errorf("%q: the secret's content leaked", name)
		}
	}
}
