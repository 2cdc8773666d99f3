package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// fakeRun writes a run directory whose cell "f/c=1" has the given
// throughput per repetition (and p50 = 1000/throughput ms).
func fakeRun(t *testing.T, name string, rps []float64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	d := &results.Dir{Path: dir}
	sum := results.Summary{SchemaVersion: results.SchemaVersion, Name: name, Status: results.StatusComplete}
	for i, v := range rps {
		p50 := 1000 / v
		c := results.Cell{Cell: plan.Cell{ID: "f/c=1/r=" + string(rune('1'+i)), Key: "f/c=1", Function: "f", Concurrency: 1, Repetition: i + 1},
			ThroughputRPS: v, Requests: results.Requests{Total: 1000, Succeeded: 1000}}
		c.SuccessLatencyMs = stats.Percentiles{Count: 1000, P50: &p50}
		sum.Cells = append(sum.Cells, c)
	}
	sum.IdleFootprint = &results.Footprint{Seconds: 2, Samples: 2, CPUCores: 0.005, MemoryMiB: 44, Components: []results.ComponentFootprint{}}
	if err := d.WriteJSON("summary.json", sum); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteJSON("manifest.json", results.Manifest{SchemaVersion: results.SchemaVersion, Status: results.StatusComplete}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCompareCommand(t *testing.T) {
	a := fakeRun(t, "a", []float64{1000, 1010, 990, 1005, 995, 1002})
	faster := fakeRun(t, "b", []float64{1300, 1310, 1290, 1305, 1295, 1302})
	code, out, errOut := runCLI(t, "compare", a, faster, "-o", "json")
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	var got struct{ Comparisons []stats.Comparison }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, c := range got.Comparisons {
		verdicts[c.Metric] = c.Verdict
	}
	if verdicts["throughput"] != "better" || verdicts["p50"] != "better" || verdicts["error_rate"] != "equivalent" {
		t.Errorf("verdicts %v", verdicts)
	}
	// Beside Welch, the rank test: 6 against 6 completely apart, exact p = 2/924, a +30 % shift.
	for _, c := range got.Comparisons {
		if c.Metric == "throughput" && (c.Rank == nil || !c.Rank.Exact || c.Rank.P > 0.0022 || c.Rank.RelShift < 0.28 || c.Rank.Lo == nil) {
			t.Errorf("throughput's rank test %+v", c.Rank)
		}
	}
	few := fakeRun(t, "c", []float64{900, 1300, 1100})
	code, out, _ = runCLI(t, "compare", a, few)
	if code != 0 || !strings.Contains(out, "inconclusive") || !strings.Contains(out, "repetitions per run would decide") ||
		!strings.Contains(out, "rank test: Mann-Whitney p = ") || !strings.Contains(out, "idle (one window per run, not tested): A 0.005 cores, 44 MiB; B 0.005 cores, 44 MiB") {
		t.Errorf("3 noisy repetitions: %d\n%s", code, out)
	}
	if code, _, e := runCLI(t, "compare", a, faster, "--margin", "5"); code != 2 || !strings.Contains(e, "--margin") {
		t.Errorf("bad margin: %d %s", code, e)
	}
	if code, _, e := runCLI(t, "compare", a, "/nonexistent"); code != 2 || !strings.Contains(e, "/nonexistent") {
		t.Errorf("missing run: %d %s", code, e)
	}
}

// compare --fail-on: exit 4 with a line per cell when a watched metric is worse beyond the margin; a
// better run, an unwatched metric or a bad value do not fail it (a bad value is exit 2).
func TestCompareFailOnIsAGate(t *testing.T) {
	a := fakeRun(t, "a", []float64{1000, 1010, 990, 1005, 995, 1002})
	slower := fakeRun(t, "b", []float64{700, 707, 693, 703, 697, 701})
	code, out, errOut := runCLI(t, "compare", a, slower, "--fail-on", "worse")
	if code != ExitGate || !strings.Contains(out, "gate: FAILED: f/c=1 throughput worse by -30.0% [") ||
		!strings.Contains(out, "gate: FAILED: f/c=1 p50 worse by +42.9% [") || !strings.Contains(errOut, "gate failed: 2 cell metric(s) worse beyond ±5%") {
		t.Errorf("slower: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "compare", a, slower, "--fail-on", "worse:error_rate"); code != 0 || !strings.Contains(out, "gate: passed: no cell's error_rate is worse") {
		t.Errorf("error_rate only: %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "compare", slower, a, "--fail-on", "worse"); code != 0 || !strings.Contains(out, "gate: passed") {
		t.Errorf("faster: %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "compare", a, slower); code != 0 {
		t.Errorf("no --fail-on: exit %d", code)
	}
	code, out, _ = runCLI(t, "compare", a, slower, "--fail-on", "worse:p99,throughput", "-o", "json")
	var got struct {
		Gate struct {
			Failed []stats.Comparison
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != ExitGate || err != nil || len(got.Gate.Failed) != 1 || got.Gate.Failed[0].Metric != "throughput" {
		t.Errorf("json: %d %v %+v", code, err, got.Gate)
	}
	if code, _, e := runCLI(t, "compare", a, slower, "--fail-on", "slower"); code != ExitUsage || !strings.Contains(e, `--fail-on "slower": want worse`) {
		t.Errorf("bad --fail-on: %d %s", code, e)
	}
}
