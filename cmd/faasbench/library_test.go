package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Go program in docs/library.md, as written there, builds against this
// module and runs an experiment on the local platform: two cells measured,
// the run directory complete.
func TestLibraryExampleInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/library.md has no Go block")
	}
	// Inside the module (so it builds against this checkout), in a directory go's ./... skips.
	if err := os.MkdirAll("../../.cache", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("../../.cache", "docexample-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "library")
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the docs' example does not build: %v\n%s", err, out)
	}
	results := t.TempDir()
	out, err := exec.Command(exe, binary, workloadsDir(t), results).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the docs' example failed: %v\n%s\n%s", err, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "hello-go/c=1/r=1: ") || !strings.HasPrefix(lines[1], "hello-go/c=4/r=1: ") {
		t.Fatalf("output %q", out)
	}
	runDir := lines[2]
	if !strings.HasPrefix(runDir, results) {
		t.Fatalf("run directory %q not under %s", runDir, results)
	}
	b, err := os.ReadFile(filepath.Join(runDir, "manifest.json"))
	if err != nil || !strings.Contains(string(b), `"status": "complete"`) {
		t.Fatalf("manifest: %v %.200s", err, b)
	}
	if _, err := os.Stat(filepath.Join(runDir, "report.html")); err != nil {
		t.Fatal(err)
	}
}
