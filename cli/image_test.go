package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// image build --base REF=DIR: the reference builds from the directory's tree; a bad value is the
// user's error (exit 2) naming the flag.
func TestImageBuildBase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("image build needs root")
	}
	dir := t.TempDir()
	wd := filepath.Join(dir, "wd")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "fwatchdog"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	df := filepath.Join(dir, "Dockerfile")
	if err := os.WriteFile(df, []byte("FROM example.org/wd:1 AS w\nFROM scratch\nCOPY --from=w /fwatchdog /fwatchdog\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "i.tar")
	code, stdout, stderr := runCLI(t, "image", "build", df, "-t", "t/x:1", "-O", out, "--cache", filepath.Join(dir, "cache"), "--context", dir, "--base", "example.org/wd:1="+wd)
	if st, err := os.Stat(out); code != 0 || err != nil || st.Size() == 0 || !strings.Contains(stdout, "built docker.io/t/x:1") {
		t.Fatalf("exit %d %q %q", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "image", "build", df, "-t", "t/x:1", "-O", out, "--context", dir, "--base", "example.org/wd:1")
	if code != 2 || !strings.Contains(stderr, "--base") || !strings.Contains(stderr, "REF=DIR") {
		t.Errorf("a --base without a directory: exit %d %q", code, stderr)
	}
}

// workload image --flavor names one of the workload's Dockerfiles: any other value is refused
// (exit 2) naming the flag and the flavors, before a path is made of it.
func TestWorkloadImageFlavor(t *testing.T) {
	for _, flavor := range []string{"../../go.mod", "openfaas/../x", "classic"} {
		code, _, stderr := runCLI(t, "workload", "image", "hello", "--lang", "python", "--flavor", flavor, "-O", filepath.Join(t.TempDir(), "i.tar"), "--workloads", "../workloads")
		if code != 2 || !strings.Contains(stderr, "--flavor: ") || !strings.Contains(stderr, "openfaas-classic") {
			t.Errorf("--flavor %s: exit %d, %s", flavor, code, stderr)
		}
	}
}
