package report

import (
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// historyRun is a run started at start whose cell "f/c=1" has these
// throughputs, one per repetition.
func historyRun(id string, start time.Time, rps ...float64) Run {
	r := Run{Manifest: results.Manifest{RunID: id, Start: start}}
	r.Manifest.Fingerprint.Tool.Commit = "c-" + id
	r.Summary.Platform = "local"
	for i, v := range rps {
		r.Summary.Cells = append(r.Summary.Cells, results.Cell{Cell: plan.Cell{Key: "f/c=1", Repetition: i + 1},
			ThroughputRPS: v, Requests: results.Requests{Total: 100, Succeeded: 100}})
	}
	return r
}

// The runs in order of their start whatever the order given; a change is
// flagged only where the intervals do not overlap; one repetition has no
// interval and flags nothing.
func TestHistoryFlagsChangesWhoseIntervalsDoNotOverlap(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	runs := []Run{
		historyRun("c", t0.Add(2*time.Hour), 700, 705, 695), // worse than b
		historyRun("a", t0, 1000, 1010, 990),
		historyRun("b", t0.Add(time.Hour), 1002, 1012, 995), // overlaps a
		historyRun("d", t0.Add(3*time.Hour), 900),           // one repetition: no interval
		historyRun("e", t0.Add(4*time.Hour), 1000, 1005, 995),
	}
	rows := History(runs, Metrics[:1])
	var got []string
	for _, r := range rows {
		got = append(got, r.Run+":"+r.Change)
	}
	if strings.Join(got, " ") != "a:first b: c:worse d: e:" {
		t.Fatalf("changes %v", got)
	}
	if rows[0].Commit != "c-a" || rows[0].Reps != 3 || rows[0].Median != 1000 || rows[0].Lo == nil || rows[3].Lo != nil {
		t.Errorf("rows %+v", rows)
	}
	// e against d: d has no interval, so no flag, though e is far from c.
	if rows[4].Change != "" {
		t.Errorf("e: %q", rows[4].Change)
	}
	// Lower latency is better: the same numbers as p50 flag c as better.
	p50 := Metric{Name: "p50", Of: func(c results.Cell) (float64, bool) { return c.ThroughputRPS, true }}
	if r := History(runs, []Metric{p50}); r[2].Change != "better" {
		t.Errorf("p50 of c: %q", r[2].Change)
	}
	charts := HistoryCharts(rows, Metrics[:1])
	c, ok := charts["throughput"]
	if !ok || len(c.Series) != 1 || len(c.Series[0].Points) != 5 || c.Series[0].Points[2].X != 3 || !c.Series[0].Points[2].HasBar || c.Series[0].Points[3].HasBar {
		t.Fatalf("chart %+v", c)
	}
	if svg := c.SVG(); !strings.Contains(svg, "<svg") || !strings.Contains(svg, "f/c=1") {
		t.Errorf("svg %.200s", svg)
	}
}
