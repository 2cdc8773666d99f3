package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// A payload-size grid gets box plots on a log2 axis, one box per size,
// each from the pooled histograms.
func TestBoxPlotsOverPayloadSizes(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hlog"), 0o755)
	var cells []results.Cell
	for i, size := range []string{"1", "1024", "1048576"} {
		id := "rev/payload_size=" + size + "/c=1/r=1"
		h := hist.New()
		for j := 0; j < 100; j++ {
			h.Record(int64((i+1)*1_000_000 + j*10_000))
		}
		f, _ := os.Create(filepath.Join(dir, "hlog", results.HlogName(id)))
		_ = hist.WriteLog(f, 0, []hist.LogEntry{{Tag: "ok", Histogram: h}})
		f.Close()
		cells = append(cells, results.Cell{Cell: plan.Cell{ID: id, Key: strings.TrimSuffix(id, "/r=1"), Function: "rev", Concurrency: 1, Repetition: 1,
			Params: plan.Params{{Name: "payload_size", Value: size}}}, ThroughputRPS: 100})
	}
	run := Run{Dir: dir, Summary: results.Summary{Cells: cells}}
	c, ok := boxChart(withRows([]Run{run}))
	if !ok || len(c.Series) != 1 || len(c.Series[0].Boxes) != 3 {
		t.Fatalf("boxes: %+v", c)
	}
	b := c.Series[0].Boxes[2]
	if b.X != 1048576 || !(b.P5 < b.P25 && b.P25 < b.P50 && b.P50 < b.P75 && b.P75 < b.P95) || b.P50 < 3.4 || b.P50 > 3.6 {
		t.Errorf("box %+v", b)
	}
	svg := c.SVG()
	if n := strings.Count(svg, `<rect class="series"`); n != 3 {
		t.Errorf("%d boxes drawn, want 3", n)
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Errorf("box chart SVG does not parse: %v", err)
	}
	bars := BarChart{Title: "t", YLabel: "ms", Categories: []string{"a", "b"}, Segments: []Segment{{Name: "x", Values: []float64{1, 2}}, {Name: "y", Values: []float64{3, 0}}}}
	if n := strings.Count(bars.SVG(), `<rect class="series"`); n != 3 {
		t.Errorf("%d bar segments drawn, want 3 (a zero is not drawn)", n)
	}
}
