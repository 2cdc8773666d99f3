package local

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A Go workload is built once per state of its sources: a second deploy
// reuses the binary, and a change to a package it imports (not only its
// own) builds it again, with the change in the new binary.
func TestBuildGoOncePerSourceState(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain")
	}
	st, err := newStage(identity{uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.close() })
	mod := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(mod, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/w\n\ngo 1.21\n")
	write("lib/lib.go", "package lib\n\nconst Word = \"one\"\n")
	write("w/go/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/w/lib\"\n)\n\nfunc main() { fmt.Print(lib.Word) }\n")
	l := &launcher{workloads: mod, stage: st}
	ctx := context.Background()
	run := func() (string, time.Time) {
		t.Helper()
		bin, err := l.buildGo(ctx, "w", filepath.Join(mod, "w", "go"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return string(out), fi.ModTime()
	}
	word, built := run()
	if word != "one" {
		t.Fatalf("first build says %q", word)
	}
	if word, again := run(); word != "one" || !again.Equal(built) {
		t.Fatalf("second deploy: %q, binary rewritten (%v then %v): the unchanged sources were built again", word, built, again)
	}
	// The imported package changes (a later modification time, whatever the
	// file system's clock granularity).
	write("lib/lib.go", "package lib\n\nconst Word = \"two!\"\n")
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(mod, "lib", "lib.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if word, _ := run(); word != "two!" {
		t.Fatalf("after the imported package changed: %q, want the new build's two!", word)
	}
	// The binary gone from the stage: built again.
	if err := os.Remove(filepath.Join(st.bin(), "w-go")); err != nil {
		t.Fatal(err)
	}
	if word, _ := run(); word != "two!" {
		t.Fatalf("after the binary was removed: %q", word)
	}
}
