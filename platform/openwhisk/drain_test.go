package openwhisk

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// drainSetUp deploys fn on the stand-in, its activations running for runs
// (past the controller's wait of 50 ms: answered 202, their records stored
// when they end), and calls it n times.
func drainSetUp(t *testing.T, runs time.Duration, n int) (*Platform, *apiStandIn, time.Time) {
	t.Helper()
	p, s := start(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "fn", Workload: "sleep", Language: "node"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.runs["fn"], s.wait = runs, 50*time.Millisecond
	s.mu.Unlock()
	since := time.Now().Add(-time.Millisecond)
	url, _ := p.Endpoint(ctx, "fn")
	for range n {
		if code, _ := post(t, url, 1); code != http.StatusAccepted {
			t.Fatalf("call answered %d, want 202 (it runs past the wait)", code)
		}
	}
	return p, s, since
}

// After a cell whose calls were answered 202, the drain waits until every
// one's activation has a record: OpenWhisk went on running them (seed 004's
// memory quotas: the next cells measured that backlog).
func TestDrainWaitsForTheActivationsAnsweredNotReady(t *testing.T) {
	p, _, since := drainSetUp(t, 400*time.Millisecond, 5)
	p.cfg.DrainQuiet = 5 * time.Second // longer than the backlog: the count ends it, not the quiet
	d, err := p.Drain(context.Background(), "fn", since, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Done || d.AtEnd != 0 || d.Finished != 5 || d.Waited < 300*time.Millisecond || d.Waited > 4*time.Second {
		t.Errorf("drained %+v: want done, 0 records at the end, 5 after about 400 ms", d)
	}
}

// Open calls whose activations never appear (a gateway's 504 before the
// controller took the call, a record gone missing) end the drain after the
// quiet period; with none open and every record there it ends at once.
func TestDrainEndsOnQuietOrWhenEveryRecordIsThere(t *testing.T) {
	p, _, since := drainSetUp(t, 100*time.Millisecond, 2)
	p.cfg.DrainQuiet = 300 * time.Millisecond
	d, err := p.Drain(context.Background(), "fn", since, 0, 5) // 3 of the 5 open never ran
	if err != nil {
		t.Fatal(err)
	}
	if !d.Done || d.Finished != 2 || d.Waited < 300*time.Millisecond {
		t.Errorf("drained %+v: want done with 2 records after the quiet period", d)
	}
	p.cfg.DrainQuiet = time.Minute
	d, err = p.Drain(context.Background(), "fn", since, 2, 0)
	if err != nil || !d.Done || d.AtEnd != 2 || d.Waited > 5*time.Second {
		t.Errorf("drained %+v, %v: want done at once, the 2 records there", d, err)
	}
}

// The bound passes first: the drain says so (not done, how many records it
// saw), for the runner to mark the next cell; 0s waits for nothing; the
// API's failure is an error naming the function.
func TestDrainBoundOffAndAPIFailure(t *testing.T) {
	p, s, since := drainSetUp(t, time.Hour, 3)
	p.cfg.DrainQuiet, p.cfg.DrainTimeout = time.Minute, 300*time.Millisecond
	d, err := p.Drain(context.Background(), "fn", since, 0, 3)
	if err != nil || d.Done || d.Finished != 0 || !strings.Contains(d.Why, "0 of the cell's activations had records (0 answered, 3 open)") {
		t.Errorf("drained %+v, %v: want not done, saying 0 records of 3 open", d, err)
	}
	p.cfg.DrainTimeout = 0
	s.mu.Lock()
	calls := len(s.calls)
	s.mu.Unlock()
	if d, err := p.Drain(context.Background(), "fn", since, 0, 3); err != nil || !d.Done || len(s.calls) != calls {
		t.Errorf("drain_timeout 0s: %+v, %v, %d API calls: want done at once, none", d, err, len(s.calls)-calls)
	}
	p.cfg.DrainTimeout = time.Minute
	s.mu.Lock()
	s.down, s.downBody = http.StatusBadGateway, "<html>502 Bad Gateway</html>"
	s.mu.Unlock()
	if _, err := p.Drain(context.Background(), "fn", since, 0, 3); err == nil || !strings.Contains(err.Error(), "draining fn") {
		t.Errorf("API down: %v", err)
	}
}

// The options are read with the field named in their errors.
func TestDrainOptions(t *testing.T) {
	c, err := ParseConfig(platform.Config{Options: map[string]any{"drain_quiet": "3s", "drain_timeout": "0s"}})
	if err != nil || c.DrainQuiet != 3*time.Second || c.DrainTimeout != 0 {
		t.Errorf("%+v, %v", c, err)
	}
	for k, v := range map[string]string{"drain_quiet": "0s", "drain_timeout": "3h"} {
		if _, err := ParseConfig(platform.Config{Options: map[string]any{k: v}}); err == nil || !strings.Contains(err.Error(), "platform.options."+k) {
			t.Errorf("%s %s: %v", k, v, err)
		}
	}
}

// A count whose reply lacks "activations" is an error naming the action, not
// a count of zero (which would end a drain at once).
func TestCountActivationsNeedsItsField(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("count") != "true" || r.URL.Query().Get("name") != "fn" {
			t.Errorf("asked %s", r.URL)
		}
		_, _ = w.Write([]byte(`{"count": 3}`))
	}))
	defer srv.Close()
	c := &Client{APIHost: srv.URL, Namespace: "guest", HTTP: srv.Client()}
	if n, err := c.CountActivations(context.Background(), "fn", 0); err == nil || !strings.Contains(err.Error(), `activations of fn: the count's reply has no "activations"`) {
		t.Errorf("count %d, %v", n, err)
	}
}
