package runner

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// drainingPlatform is the fake platform with platform.Drainer: each drain
// is recorded with what the runner passed, and answers the next of done.
type drainingPlatform struct {
	*fakePlatform
	mu    sync.Mutex
	done  []bool
	calls []drainCall
}

type drainCall struct {
	name     string
	since    time.Time
	ok, open int64
}

func (p *drainingPlatform) Drain(_ context.Context, name string, since time.Time, ok, open int64) (platform.Drained, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := platform.Drained{AtEnd: ok, Finished: ok + 3, Waited: 40 * time.Millisecond, Done: true}
	if i := len(p.calls); i < len(p.done) && !p.done[i] {
		d.Done, d.Why = false, "after 10m0s, 7 of the cell's activations had records"
	}
	p.calls = append(p.calls, drainCall{name, since, ok, open})
	return d, nil
}

const drainSpec = `version: 1
name: drain
platform: {name: fake}
functions: [{workload: hello, language: go}]
load: {model: closed, concurrency: [1, 2, 4], duration: 300ms, warmup: 0s}
repetitions: 1
`

// After each cell the runner waits for a platform that goes on running
// invocations (OpenWhisk) to drain them, passing the cell's successes and
// the rest (open), and records the wait in the cell; a drain whose bound
// passed first marks the cell and makes the next one invalid (it measured
// beside the backlog), and only that one.
func TestCellsWaitForThePlatformToDrain(t *testing.T) {
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	dp := &drainingPlatform{done: []bool{false, true, true}}
	withPlatform(t, &o, func() platform.Platform {
		dp.fakePlatform = pongPlatform(nil)
		return dp
	})
	began := time.Now()
	r, err := execute(t, drainSpec, o)
	if err != nil {
		t.Fatal(err)
	}
	cells := r.Summary().Cells
	if len(cells) != 3 || len(dp.calls) != 3 {
		t.Fatalf("%d cells, %d drains: want 3 and 3", len(cells), len(dp.calls))
	}
	for i, c := range cells {
		call := dp.calls[i]
		if call.name != "hello-go" || call.ok != c.Requests.Succeeded || call.open != c.Requests.Total-c.Requests.Succeeded || call.since.Before(began) {
			t.Errorf("cell %s: drain asked %+v, want hello-go with its %d ok and %d open, since the cell began", c.ID, call, c.Requests.Succeeded, c.Requests.Total-c.Requests.Succeeded)
		}
		if i > 0 && !call.since.After(dp.calls[i-1].since) {
			t.Errorf("cell %s: its drain counts since %v, not after the previous cell's start", c.ID, call.since)
		}
		if c.Drain == nil || c.Drain.Finished != c.Drain.AtEnd+3 || c.Drain.Done != (i > 0) {
			t.Errorf("cell %s: drain %+v", c.ID, c.Drain)
		}
	}
	notDrained := slices.ContainsFunc(cells[0].Warnings, func(w string) bool { return strings.HasPrefix(w, "not drained: after 10m0s") })
	beside := func(i int) bool {
		return slices.ContainsFunc(cells[i].Warnings, func(w string) bool {
			return strings.HasPrefix(w, "invalid: began beside the previous measurement's backlog: cell hello-go/c=1/r=1's invocations were still running")
		})
	}
	if !notDrained || !cells[0].Valid || cells[1].Valid || !beside(1) || !cells[2].Valid || beside(2) {
		t.Errorf("warnings %q / %q / %q, valid %v %v %v: want the first not drained, the second invalid beside its backlog, the third valid",
			cells[0].Warnings, cells[1].Warnings, cells[2].Warnings, cells[0].Valid, cells[1].Valid, cells[2].Valid)
	}
}

// drainingServerPlatform is serverPlatform (direct calls) with drainingPlatform's Drain.
type drainingServerPlatform struct {
	*serverPlatform
	d drainingPlatform
}

func (p *drainingServerPlatform) Drain(ctx context.Context, name string, since time.Time, ok, open int64) (platform.Drained, error) {
	return p.d.Drain(ctx, name, since, ok, open)
}

// A cell whose calls went past the platform (baseline.via server or direct) left nothing running in it: no
// drain, where each gateway cell has one.
func TestCellsPastThePlatformAreNotDrained(t *testing.T) {
	o := fakeOptions(t, new(*fakePlatform))
	dp := &drainingServerPlatform{}
	withPlatform(t, &o, func() platform.Platform {
		dp.serverPlatform = &serverPlatform{langs: map[string]string{}, paths: map[string]int{}, fakePlatform: pongPlatform(nil)}
		return dp
	})
	r, err := execute(t, `version: 1
name: past
kind: baseline
platform: {name: fake}
functions: [{name: ping, workload: hello, language: go}]
baseline: {via: [gateway, direct, server]}
load: {concurrency: [1], requests: 5, warmup: 0s}
repetitions: 1
`, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Summary().Cells {
		gateway := !strings.Contains(c.ID, "via=direct") && !strings.Contains(c.ID, "via=server")
		if (c.Drain != nil) != gateway {
			t.Errorf("cell %s: drain %+v: want one for a gateway cell only", c.ID, c.Drain)
		}
	}
	if len(dp.d.calls) != 1 {
		t.Errorf("%d drains: want the gateway cell's alone", len(dp.d.calls))
	}
}
