package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
)

// The exit codes of docs/cli.md, on the local platform with the payload
// function's real body limit (max_body): a function that refuses its probe
// fails the run (1); a cell whose every request is refused breaks its
// expectation (1); a run whose every cell is invalid measured nothing (3);
// cells declared to be refused with 413 are what the spec asked (0); a run
// interrupted is 130 (TestInterruptKeepsResultsAndLeavesNoProcess), a bad
// spec 2 (TestBadSpecFailsBeforeAnythingStarts).
func TestExitCodesSayWhatWasMeasured(t *testing.T) {
	const base = `version: 1
name: e2e
platform: {name: local}
functions: [{workload: payload, language: python, settings: {max_body: "LIMIT"}}]
vary: {payload_size: [50000]}
load: {concurrency: [2], duration: 300ms, warmup: 0s}
repetitions: 1
`
	// A generator that cannot send its schedule (one request in flight at 100,000 req/s): every
	// cell invalid although the function answers.
	const starved = "load: {model: open, rate: [100000], max_in_flight: 1, duration: 300ms, warmup: 0s}"
	for _, tc := range []struct {
		name, limit, sizes, load, extra string
		code                            int
		status                          string
		cells                           int
		want                            string
	}{
		// The first cell's request (50000 bytes) is over 1 KB: its probe gets the gateway's 413, or,
		// when the gateway's early refusal closes the connection while the body is still being
		// written, a broken pipe (as a real gateway's can): either way the probe fails the run.
		{"probe refused", "1KB", "[50000]", "", "", 1, "failed", 0, "its probe"},
		// The small payload answers; the large one is refused (413) in every request: a cell that
		// broke its expectation.
		{"a cell refused", "20KB", "[10, 50000]", "", "", 1, "failed", 2, "a cell broke its expectation"},
		{"nothing valid", "20KB", "[10]", starved, "", 3, "failed", 1, "nothing valid was measured"},
		{"refusal declared", "20KB", "[10, 50000]", "", "expect:\n  cells: [{where: {payload_size: 50000}, status: 413}]\n", 0, "complete", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := t.TempDir()
			spec := strings.Replace(strings.Replace(base, "LIMIT", tc.limit, 1), "[50000]", tc.sizes, 1) + tc.extra
			if tc.load != "" {
				spec = strings.Replace(spec, "load: {concurrency: [2], duration: 300ms, warmup: 0s}", tc.load, 1)
			}
			code, stderr := runBinary(t, "run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t))
			if tc.code == 0 && code == 3 { // every cell invalid for the machine's faults alone
				tc.code, tc.status = code, wantStatus(t, code, stderr, res)
			}
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q\n%s", code, tc.code, tc.want, stderr)
			}
			dir := runDirOf(t, res)
			var m results.Manifest
			var s results.Summary
			mb, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
			sb, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			if json.Unmarshal(mb, &m) != nil || json.Unmarshal(sb, &s) != nil {
				t.Fatalf("manifest or summary unreadable in %s", dir)
			}
			if err := results.ValidateSummary(sb); err != nil {
				t.Errorf("summary.json fails its schema: %v", err)
			}
			if string(m.Status) != tc.status || len(s.Cells) != tc.cells || len(m.Probes) != 1 {
				t.Fatalf("status %s, %d cells, probes %+v", m.Status, len(s.Cells), m.Probes)
			}
			if last := len(s.Cells) - 1; tc.cells == 2 && s.Cells[last].Statuses["413"] != s.Cells[last].Requests.Total {
				t.Errorf("cell statuses %v of %d requests, want every one 413", s.Cells[last].Statuses, s.Cells[last].Requests.Total)
			}
		})
	}
}
