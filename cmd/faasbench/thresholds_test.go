package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/threshold"
)

// run --threshold on the local platform: thresholds every cell holds exit 0;
// one a cell breaks exits 4 after the whole run; with :abort the run stops
// after the first cell that breaks it, partial, exit 4; a malformed one is
// exit 2 before anything starts. The outcomes are kept in thresholds.json.
//
// The cells are bounded by count, not time: p99 needs 1000 successes, and a
// 400 ms cell made 350 on a fresh machine building its components beside
// the tests (its 'held' case then broke p99 for want of a figure).
func TestRunThresholds(t *testing.T) {
	const spec = `version: 1
name: e2e
platform: {name: local}
functions: [{workload: hello, language: go}]
load: {concurrency: [1, 2], requests: 1500, warmup: 0s}
repetitions: 1
`
	path := writeSpec(t, spec)
	for _, tc := range []struct {
		name       string
		thresholds []string
		code       int
		status     string
		cells      int
		broken     int
		want       string
	}{
		{"held", []string{"p99<10s", "errors<1%", "rps>1", "max[1s]<10s"}, 0, "complete", 2, 0, "thresholds: 8 of 8 held"},
		{"broken", []string{"p50<1us", "errors<1%"}, 4, "complete", 2, 2, "threshold p50<1us: BROKEN in cell hello-go/c=1/r=1"},
		{"abort", []string{"p50<1us:abort"}, 4, "partial", 1, 1, "aborted after cell hello-go/c=1/r=1: threshold p50<1us:abort: BROKEN"},
		{"malformed", []string{"p98<1ms"}, 2, "", 0, 0, `--threshold "p98<1ms": no metric "p98"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := t.TempDir()
			args := []string{"run", path, "--results", res, "--workloads", workloadsDir(t)}
			for _, th := range tc.thresholds {
				args = append(args, "--threshold", th)
			}
			code, stderr := runBinary(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q\n%s", code, tc.code, tc.want, stderr)
			}
			if tc.code == 2 {
				if m, _ := filepath.Glob(filepath.Join(res, "*")); len(m) != 0 {
					t.Errorf("a malformed threshold made %v", m)
				}
				return
			}
			dir := runDirOf(t, res)
			var m results.Manifest
			var s results.Summary
			var rep threshold.Report
			mb, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
			sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			tb, _ := os.ReadFile(filepath.Join(dir, threshold.FileName))
			if json.Unmarshal(mb, &m) != nil || json.Unmarshal(sb, &s) != nil || json.Unmarshal(tb, &rep) != nil {
				t.Fatalf("manifest, summary or %s unreadable in %s", threshold.FileName, dir)
			}
			if m.Status != tc.status || len(s.Cells) != tc.cells || rep.Broken != tc.broken || len(rep.Outcomes) != tc.cells*len(tc.thresholds) {
				t.Errorf("status %s, %d cells, %d of %d outcomes broken; want %s, %d, %d", m.Status, len(s.Cells), rep.Broken, len(rep.Outcomes), tc.status, tc.cells, tc.broken)
			}
			if tc.status == "partial" && !strings.Contains(m.Error, "aborted after cell") {
				t.Errorf("manifest error %q", m.Error)
			}
		})
	}
}
