package results

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/stats"
)

func TestExportCSV(t *testing.T) {
	p50, worst := 1.5, 12.5
	s := Summary{RunID: "r1", Cells: []Cell{{
		Cell:     plan.Cell{ID: "f/c=2/r=1", Key: "f/c=2", Function: "f", Concurrency: 2, Repetition: 1},
		Requests: Requests{Total: 10, Succeeded: 8, Failed: 2}, Errors: map[string]int64{"http-503": 1, "connect": 1},
		SuccessLatencyMs: stats.Percentiles{P50: &p50, Max: 3},
		Windows:          []Window{{Second: 0, Sent: 6, Completed: 6, Succeeded: 5, Failed: 1, MaxMs: &worst, Errors: map[string]int64{"connect": 1}}, {Second: 1, Sent: 4, Completed: 4, Succeeded: 3, Failed: 1}},
	}}}
	var b bytes.Buffer
	if err := WriteCellsCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 || len(rows[1]) != len(CellsCSVHeader) {
		t.Fatalf("cells: %v %v", rows, err)
	}
	col := func(name string) string {
		for i, h := range CellsCSVHeader {
			if h == name {
				return rows[1][i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if col("p50_ms") != "1.5" || col("p99_ms") != "" || col("failed") != "2" || col("errors") != "connect=1;http-503=1" {
		t.Fatalf("row %v", rows[1])
	}
	b.Reset()
	if err := WriteWindowsCSV(&b, s); err != nil {
		t.Fatal(err)
	}
	rows, _ = csv.NewReader(&b).ReadAll()
	if len(rows) != 3 || rows[1][2] != "0" || rows[1][11] != "12.5" || rows[2][11] != "" || rows[1][14] != "connect=1" || rows[2][4] != "4" {
		t.Fatalf("windows: %v", rows)
	}
}

// The CSV exports write every digit a figure has (no rounding).
func TestCSVNumbersKeepEveryDigit(t *testing.T) {
	for v, want := range map[float64]string{0.125: "0.125", 1234.5678: "1234.5678", 3: "3", 1e-7: "0.0000001"} {
		if got := f(v); got != want {
			t.Errorf("f(%v) = %q, want %q", v, got, want)
		}
	}
}
