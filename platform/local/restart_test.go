package local

import (
	"context"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/platform"
)

// A restart ends the daemon and its instances and starts a new daemon on a
// new gateway, with nothing deployed; what is deployed again answers there
// from a new instance, and Close still leaves nothing of the run behind.
func TestRestartReplacesTheDaemon(t *testing.T) {
	p, runID := startTestPlatform(t)
	ctx := context.Background()
	fn := platform.Function{Name: "h", Workload: "hello", Language: "python", Replicas: 1}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	oldURL, _ := p.Endpoint(ctx, "h")
	before := invoke(t, oldURL)
	oldPID := p.PID()
	said, err := p.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(said, "restarted") || p.PID() == oldPID {
		t.Fatalf("restart said %q, pid %d then %d", said, oldPID, p.PID())
	}
	if reaper.Alive(oldPID) {
		t.Errorf("old daemon %d still alive", oldPID)
	}
	if err := p.Lost(); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if fns, err := p.Functions(ctx); err != nil || len(fns) != 0 {
		t.Fatalf("functions after the restart: %v %v, want none", fns, err)
	}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	newURL, _ := p.Endpoint(ctx, "h")
	after := invoke(t, newURL)
	if after.status != 200 || after.cold != "1" || before.status != 200 || newURL == oldURL {
		t.Errorf("after the restart: %+v at %s (before %+v at %s): want a cold instance behind a new gateway", after, newURL, before, oldURL)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := reaper.Find(runID); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
