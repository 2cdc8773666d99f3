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
