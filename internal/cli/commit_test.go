package cli

import "testing"

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
