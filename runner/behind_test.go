package runner

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

const behindSpec = `version: 1
name: behind
platform: {name: fake}
functions:
  - {workload: hello, language: go}
load: {model: open, rate: [200, 400], max_in_flight: 1, duration: 20s, warmup: 1ms, abort_when_behind: {share: 0.2, window: 500ms}}
`

// A platform slower than the rate (20 ms a request, one in flight, 200
// offered a second): the first cell stops itself within about a window,
// the run stops there, partial, and the manifest and the cell say why.
func TestRunStopsWhenTheLoadFallsBehind(t *testing.T) {
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	withPlatform(t, &o, func() platform.Platform {
		fp = pongPlatform(func(*http.Request) { time.Sleep(20 * time.Millisecond) })
		return fp
	})
	began := time.Now()
	r, err := execute(t, behindSpec, o)
	if !errors.Is(err, ErrBehind) || !strings.Contains(err.Error(), "cell hello-go/rate=200/r=1 stopped the run") {
		t.Fatalf("execute: %v, want the behind error naming the first cell", err)
	}
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("took %v: the 20 s cell was not cut", took)
	}
	sum := r.Summary()
	if sum.Status != results.StatusPartial || len(sum.Cells) != 1 {
		t.Fatalf("summary %s with %d cells, want partial with the one that fell behind", sum.Status, len(sum.Cells))
	}
	c := sum.Cells[0]
	if c.Behind == "" || !c.Interrupted || c.Valid || c.Requests.Succeeded == 0 {
		t.Errorf("cell: behind %q, interrupted %v, valid %v, %d ok", c.Behind, c.Interrupted, c.Valid, c.Requests.Succeeded)
	}
	var m results.Manifest
	b, _ := os.ReadFile(filepath.Join(r.Dir(), "manifest.json"))
	if err := json.Unmarshal(b, &m); err != nil || m.Status != results.StatusPartial || !strings.Contains(m.Error, "in-flight slots were taken") {
		t.Errorf("manifest: %v, status %s, error %q", err, m.Status, m.Error)
	}
	if fp == nil || fp.events[len(fp.events)-1] != "close" {
		t.Errorf("the platform was not closed: %v", fp)
	}
}
