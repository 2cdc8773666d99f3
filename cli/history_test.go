package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/faasbench/faasbench/report"
)

// faasbench history: the table (text and JSON), CSV and Parquet that read
// back the same rows, a chart per metric; a throughput drop beyond the
// intervals flagged; a bad metric or run is exit 2.
func TestHistoryCommand(t *testing.T) {
	a := fakeRun(t, "a", []float64{1000, 1010, 990, 1005, 995, 1002})
	b := fakeRun(t, "b", []float64{700, 707, 693, 703, 697, 701})
	out := t.TempDir()
	csvPath, pqPath, svgDir := filepath.Join(out, "h.csv"), filepath.Join(out, "h.parquet"), filepath.Join(out, "svg")
	code, text, errOut := runCLI(t, "history", a, b, "--metric", "throughput,p50", "--csv", csvPath, "--parquet", pqPath, "--svg", svgDir)
	if code != 0 || !strings.Contains(text, "2 changes whose intervals do not overlap") || !strings.Contains(text, "f/c=1 throughput in") ||
		!strings.Contains(text, ": WORSE (median 700") {
		t.Fatalf("%d\n%s\n%s", code, text, errOut)
	}
	csvB, err := os.ReadFile(csvPath)
	if err != nil || strings.Count(string(csvB), "\n") != 5 || !strings.HasPrefix(string(csvB), "run,start,commit,platform,key,metric,reps,median,lo,hi,change\n") {
		t.Errorf("csv %v\n%s", err, csvB)
	}
	rows, err := parquet.ReadFile[report.HistoryRow](pqPath)
	if err != nil || len(rows) != 4 || rows[2].Metric != "throughput" || rows[2].Change != "worse" || rows[2].Lo == nil {
		t.Errorf("parquet %v %+v", err, rows)
	}
	for _, m := range []string{"throughput", "p50"} {
		if b, err := os.ReadFile(filepath.Join(svgDir, "history-"+m+".svg")); err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("svg %s: %v", m, err)
		}
	}
	code, js, _ := runCLI(t, "history", a, b, "-o", "json")
	var got []report.HistoryRow
	// Three metrics of the default four (the runs have no p99), two runs.
	if code != 0 || json.Unmarshal([]byte(js), &got) != nil || len(got) != 6 || got[0].Run != "a" || got[3].Run != "b" {
		t.Errorf("json: %d %d rows\n%s", code, len(got), js)
	}
	if code, _, e := runCLI(t, "history", a, "--metric", "p98"); code != ExitUsage || !strings.Contains(e, `--metric "p98": not one of throughput, p50, p99`) {
		t.Errorf("bad metric: %d %s", code, e)
	}
	if code, _, e := runCLI(t, "history", a, "/nonexistent"); code != ExitUsage || !strings.Contains(e, "/nonexistent") {
		t.Errorf("missing run: %d %s", code, e)
	}
}
