package report

import (
	"testing"
)

// The timeline's host samples become two charts of their own: the
// studies' per-invoker and per-node CPU and memory.
func TestTimelineChartsDrawTheHosts(t *testing.T) {
	run := browserRun(t)
	cs := timelineCharts(withRows([]Run{run}))
	if len(cs) != 5 {
		t.Fatalf("%d timeline charts, want 5 (instances, CPU, memory, host CPU, host memory)", len(cs))
	}
	hc, hm := cs[3], cs[4]
	if hc.Title != "CPU of each host over time" || len(hc.Series) != 1 || hc.Series[0].Name != "cpus 0" || len(hc.Series[0].Points) != 30 {
		t.Fatalf("host CPU chart %+v", hc)
	}
	if p := hc.Series[0].Points[10]; p.X != 10 || p.Y < 0.39 || p.Y > 0.41 {
		t.Errorf("host CPU at 10 s: %+v, want 0.4 cores", p)
	}
	if len(hm.Series) != 1 || hm.Series[0].Points[0].Y != 900 {
		t.Errorf("host memory chart %+v", hm)
	}
}
