package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
)

const sweepSpec = `version: 1
name: lib
platform: {name: fake}
functions:
  - {workload: hello, language: go, env: {TOKEN: "${FB_RUNNER_TEST_TOKEN}"}}
load: {concurrency: [1, 2], requests: 40, warmup: 1ms}
repetitions: 2
`

// A spec runs end to end through the runner without the CLI: every
// planned cell measured in order, the final files written, the platform
// closed, and a secret the spec passes to a function in no file of the run.
func TestRunnerRunsASpec(t *testing.T) {
	t.Setenv("FB_RUNNER_TEST_TOKEN", "s3cr3t-token-value")
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	var log, msgs bytes.Buffer
	o.Log, o.Messages = &log, &msgs
	r := runSpec(t, sweepSpec, o)
	var ids []string
	for _, c := range r.Plan() {
		ids = append(ids, c.ID)
	}
	want := []string{"hello-go/c=1/r=1", "hello-go/c=2/r=1", "hello-go/c=1/r=2", "hello-go/c=2/r=2"}
	if !slices.Equal(ids, want) {
		t.Fatalf("plan %v, want %v", ids, want)
	}
	sum := r.Summary()
	if sum.Status != results.StatusComplete || len(sum.Cells) != 4 {
		t.Fatalf("summary: %s, %d cells", sum.Status, len(sum.Cells))
	}
	for i, c := range sum.Cells {
		if c.ID != want[i] || c.Requests.Succeeded != 40 || !c.Valid {
			t.Errorf("cell %d: %s, %d succeeded, valid %v %v", i, c.ID, c.Requests.Succeeded, c.Valid, c.Warnings)
		}
	}
	if fp == nil || fp.events[0] != "deploy hello-go" || fp.events[len(fp.events)-1] != "close" {
		t.Errorf("platform events %v", fp.events)
	}
	for _, f := range []string{"manifest.json", "summary.json", "report.html", "summary.md", "timeline.json", "hlog/hello-go_c2_r2.hlog"} {
		if _, err := os.Stat(filepath.Join(r.Dir(), f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(log.String(), "hello-go/c=2/r=2") || !strings.Contains(msgs.String(), "complete; 4 cells measured") {
		t.Errorf("log %q\nmessages %q", log.String(), msgs.String())
	}
	_ = filepath.Walk(r.Dir(), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("s3cr3t-token-value")) {
				t.Errorf("%s holds the secret", path)
			}
		}
		return nil
	})
	var m results.Manifest
	b, _ := os.ReadFile(filepath.Join(r.Dir(), "manifest.json"))
	if err := json.Unmarshal(b, &m); err != nil || m.Status != results.StatusComplete || len(m.Plan) != 4 || m.End == nil {
		t.Errorf("manifest: %v %s %d", err, m.Status, len(m.Plan))
	}
}

// Bad input is ErrInput, named, before anything starts: an unknown kind,
// a run directory that is complete.
func TestRunnerInputErrors(t *testing.T) {
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	_, err := LoadSpec(writeSpec(t, strings.Replace(sweepSpec, "name: lib", "name: lib\nkind: nope", 1)), nil, o)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `kind: unknown experiment kind "nope"`) {
		t.Fatalf("unknown kind: %v", err)
	}
	t.Setenv("FB_RUNNER_TEST_TOKEN", "x")
	r := runSpec(t, sweepSpec, o)
	if _, err := Resume(r.Dir(), o); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "is complete") {
		t.Fatalf("resume of a complete run: %v", err)
	}
	if fp == nil {
		t.Fatal("the platform was never made")
	}
}
