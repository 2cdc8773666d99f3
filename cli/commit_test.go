package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// The Makefile's commit wins; without it the toolchain's stamp (absent in
// a test binary) or "unknown".
func TestToolCommit(t *testing.T) {
	was := commit
	defer func() { commit = was }()
	commit = "abc1234"
	if got := toolCommit(); got != "abc1234" {
		t.Errorf("with -ldflags: %q", got)
	}
	commit = "unknown"
	if got := toolCommit(); got == "" {
		t.Error("an empty commit")
	}
}

// Without a stamp (go run, -buildvcs=false, a test binary), the checkout's
// commit, read from git; outside a faasbench checkout, nothing.
func TestCheckoutCommit(t *testing.T) {
	want, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout here: %v", err)
	}
	got := checkoutCommit(".")
	if !strings.HasPrefix(got, strings.TrimSpace(string(want))) {
		t.Errorf("checkout commit %q, want HEAD %s", got, want)
	}
	other := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", other}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if got := checkoutCommit(other); got != "" {
		t.Errorf("another repository's commit taken for faasbench's: %q", got)
	}
	if got := checkoutCommit(t.TempDir()); got != "" {
		t.Errorf("outside a checkout: %q", got)
	}
	was := commit
	defer func() { commit = was }()
	commit = "unknown"
	if got := toolCommit(); got == "unknown" {
		t.Error("an unstamped binary in a checkout says unknown")
	}
}
