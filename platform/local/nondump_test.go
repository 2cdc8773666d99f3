package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An interpreter is started through an execute-only copy of its own loader,
// a built binary is made execute-only, and a static interpreter is refused
// with its name (it has no loader to start it through).
func TestNondumpWrap(t *testing.T) {
	st, err := newStage(identity{uid: uint32(os.Geteuid()), gid: uint32(os.Getegid())})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.close() })
	n := nondump{stage: st}

	argv, err := n.wrap([]string{"sh", "-c", "exit 7"}, false)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := exec.LookPath("sh")
	sh, _ = filepath.EvalSymlinks(sh)
	if len(argv) != 4 || argv[1] != sh || argv[2] != "-c" || !strings.HasPrefix(filepath.Base(argv[0]), "loader-ld-") {
		t.Fatalf("wrapped argv %q", argv)
	}
	if fi, err := os.Stat(argv[0]); err != nil || fi.Mode().Perm() != 0o711 {
		t.Fatalf("loader copy %s: %v %v, want mode 0711", argv[0], fi.Mode(), err)
	}
	// The wrapped command runs as the original did.
	err = exec.Command(argv[0], argv[1:]...).Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("wrapped sh -c 'exit 7': %v", err)
	}

	bin := filepath.Join(st.bin(), "built")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if argv, err := n.wrap([]string{bin, "x"}, true); err != nil || len(argv) != 2 || argv[0] != bin {
		t.Fatalf("built binary: %q %v", argv, err)
	}
	if fi, _ := os.Stat(bin); fi.Mode().Perm() != 0o711 {
		t.Fatalf("built binary mode %v, want 0711", fi.Mode())
	}

	static := filepath.Join(t.TempDir(), "static")
	build := exec.Command("go", "build", "-o", static, "./testdata/static")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build a static program: %v\n%s", err, out)
	}
	if _, err := n.wrap([]string{static}, false); err == nil || !strings.Contains(err.Error(), "statically linked") || !strings.Contains(err.Error(), static) {
		t.Fatalf("a static interpreter: %v, want a refusal naming it", err)
	}
}
