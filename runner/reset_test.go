package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

// restartingFake is the fake platform with platform.Restarter.
type restartingFake struct{ *fakePlatform }

func (p restartingFake) Restart(context.Context) (string, error) {
	p.record("restart")
	return "fake components restarted", nil
}

// eventsOf runs sweepSpec (2 concurrency levels × 3 repetitions, two
// functions) with between_repetitions set to level on the fake platform,
// restartable or not, and returns the platform's events and the run.
func eventsOf(t *testing.T, level string, restartable bool) ([]string, *Run) {
	t.Helper()
	t.Setenv("FB_RUNNER_TEST_TOKEN", "x")
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	if restartable {
		reg, plain := platform.NewRegistry(), o.Platforms
		_ = reg.Register("fake", func(ctx context.Context, cfg platform.Config) (platform.Platform, error) {
			inner, _ := plain.New(ctx, "fake", cfg)
			return restartingFake{inner.(*fakePlatform)}, nil
		})
		o.Platforms = reg
	}
	y := strings.Replace(sweepSpec, "repetitions: 2", "repetitions: 3\nbetween_repetitions: "+level, 1)
	y = strings.Replace(y, "functions:\n", "functions:\n  - {name: other, workload: hello, language: go}\n", 1)
	r := runSpec(t, y, o)
	if fp == nil {
		t.Fatal("no platform")
	}
	return fp.events, r
}

// Each level resets what it says before every repetition but the first,
// once per repetition, and the manifest records it.
func TestBetweenRepetitionsLevels(t *testing.T) {
	ev, r := eventsOf(t, "rerun", false)
	want := []string{"deploy other", "deploy hello-go", "close"}
	if !slices.Equal(ev, want) {
		t.Errorf("rerun: events %v, want %v", ev, want)
	}
	if len(r.m.Resets) != 0 {
		t.Errorf("rerun: resets %v", r.m.Resets)
	}
	// Repetition r's cells: other c=1, other c=2, hello-go c=1, hello-go c=2.
	ev, r = eventsOf(t, "redeploy", false)
	round := []string{"remove hello-go", "remove other", "deploy other", "deploy hello-go"}
	want = append(append(append([]string{"deploy other", "deploy hello-go"}, round...), round...), "close")
	if !slices.Equal(ev, want) {
		t.Errorf("redeploy: events %v, want %v", ev, want)
	}
	if len(r.m.Resets) != 2 || r.m.Resets[0].BeforeRepetition != 2 || r.m.Resets[1].BeforeRepetition != 3 || r.m.Resets[1].Level != "redeploy" {
		t.Errorf("redeploy: resets %+v", r.m.Resets)
	}
	if n := len(r.Summary().Cells); n != 12 || r.Summary().Status != results.StatusComplete {
		t.Errorf("redeploy: %d cells, %s", n, r.Summary().Status)
	}
	ev, r = eventsOf(t, "restart", true)
	round = []string{"remove hello-go", "remove other", "restart", "deploy other", "deploy hello-go"}
	want = append(append(append([]string{"deploy other", "deploy hello-go"}, round...), round...), "close")
	if !slices.Equal(ev, want) {
		t.Errorf("restart: events %v, want %v", ev, want)
	}
	if len(r.m.Resets) != 2 || !strings.Contains(r.m.Resets[0].What, "fake components restarted") {
		t.Errorf("restart: resets %+v", r.m.Resets)
	}
}

// A platform that cannot restart its components refuses level restart
// before anything is deployed.
func TestBetweenRepetitionsRestartNeedsARestarter(t *testing.T) {
	t.Setenv("FB_RUNNER_TEST_TOKEN", "x")
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	_, err := execute(t, strings.Replace(sweepSpec, "repetitions: 2", "repetitions: 2\nbetween_repetitions: restart", 1), o)
	if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "between_repetitions: restart") {
		t.Fatalf("execute: %v, want a refusal naming between_repetitions", err)
	}
	if slices.Contains(fp.events, "deploy hello-go") {
		t.Errorf("events %v: deployed before refusing", fp.events)
	}
}
