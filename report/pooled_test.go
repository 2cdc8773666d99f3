package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// Repetitions are pooled by merging their histograms: 600 fast requests in
// one repetition and 600 slow ones in the other give a pooled p99 that is
// the slow one's, whatever the average of the two p99s would say.
func TestRowsPoolHistogramsAcrossRepetitions(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	var cells []results.Cell
	for rep, ms := range []int64{1, 100} {
		h := hist.New()
		for i := 0; i < 600; i++ {
			h.Record(ms * 1_000_000)
		}
		id := "f/c=1/r=" + string(rune('1'+rep))
		f, err := os.Create(filepath.Join(dir, "hlog", results.HlogName(id)))
		if err != nil {
			t.Fatal(err)
		}
		if err := hist.WriteLog(f, 0, []hist.LogEntry{{Tag: "ok", Histogram: h}}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		cells = append(cells, results.Cell{Cell: plan.Cell{ID: id, Key: "f/c=1", Function: "f", Repetition: rep + 1}, ThroughputRPS: float64(100 * (rep + 1))})
	}
	rows := Rows(Run{Dir: dir, Summary: results.Summary{Cells: cells}})
	if len(rows) != 1 || rows[0].Pooled == nil {
		t.Fatalf("rows %+v", rows)
	}
	p := rows[0].Pooled
	if p.Count != 1200 || p.P99 == nil || *p.P99 < 99 || *p.P50 > 1.01 {
		t.Errorf("pooled %+v: want 1200 samples, p99 ~100 ms, p50 ~1 ms", p)
	}
	if rows[0].RPSReps.N != 2 || rows[0].CI() == "" {
		t.Errorf("reps %+v", rows[0].RPSReps)
	}
}
