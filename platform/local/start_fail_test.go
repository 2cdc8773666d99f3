package local

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A daemon that cannot start says why (issue 60: "daemon did not start:
// (no output)", its reason lost because it was killed before it wrote it).
func TestADaemonThatCannotStartSaysWhy(t *testing.T) {
	for _, script := range []string{
		`echo the-reason >&2; exit 3`,
		`sleep 0.3; echo the-late-reason >&2; exit 3`, // slower than the ready pipe's EOF
		`exec 3>&-; sleep 0.3; echo the-late-reason >&2; exit 3`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := Start(ctx, StartConfig{Command: []string{"/bin/sh", "-c", script, "daemon"}, RunID: "tfail",
			Workloads: workloadsRoot(t), WorkDir: t.TempDir()})
		cancel()
		want := "the-reason"
		if strings.Contains(script, "late") {
			want = "the-late-reason"
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "exit status 3") {
			t.Errorf("%s: %v, want the daemon's own words and its exit status", script, err)
		}
	}
}
