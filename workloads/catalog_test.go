package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadRealCatalogue(t *testing.T) {
	c, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	w, ok := c.Get("hello")
	if !ok {
		t.Fatalf("hello missing; have %v", c.Names())
	}
	if !w.HasLanguage("python") || !w.HasLanguage("go") || w.HasLanguage("cobol") {
		t.Errorf("languages %v", w.Languages)
	}
	if w.Expect.Body != "pong" {
		t.Errorf("expect body %q", w.Expect.Body)
	}
}

func TestLoadRejectsMismatches(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "x"), 0o755)
	os.WriteFile(filepath.Join(dir, "x", "workload.yaml"), []byte("name: y\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("want a name mismatch error, got %v", err)
	}
	os.WriteFile(filepath.Join(dir, "x", "workload.yaml"), []byte("name: x\nlanguages: [rust]\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no directory rust/") {
		t.Fatalf("want a missing language dir error, got %v", err)
	}
}

func TestFindRoot(t *testing.T) {
	if _, err := FindRoot(t.TempDir()); err == nil {
		t.Fatal("an empty dir is no catalogue")
	}
	got, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(got) {
		t.Fatalf("root %q is not absolute", got)
	}
}
