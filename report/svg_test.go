package report

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestLineChartIsWellFormedSVGWithEveryPoint(t *testing.T) {
	c := LineChart{Title: "Throughput <&>", XLabel: "concurrency", YLabel: "req/s", LogX: true, Series: []Series{
		{Name: "a", Points: []Point{{X: 1, Y: 100}, {X: 8, Y: 700, Lo: 650, Hi: 720, HasBar: true}, {X: 32, Y: 900}}},
		{Name: "b", Points: []Point{{X: 1, Y: 50}, {X: 8, Y: 300}}},
	}}
	s := c.SVG()
	if err := xml.Unmarshal([]byte(s), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	if n := strings.Count(s, "<circle"); n != 5 {
		t.Errorf("%d points drawn, want 5", n)
	}
	if strings.Count(s, `class="series"`) != 2 || !strings.Contains(s, "Throughput &lt;&amp;&gt;") {
		t.Error("series or escaped title missing")
	}
	if !strings.Contains(s, "<title>a: concurrency=8, req/s=700</title>") {
		t.Error("hover value missing")
	}
}

func TestEmptyChartSaysNoData(t *testing.T) {
	if s := (LineChart{Title: "x"}).SVG(); !strings.Contains(s, "no data") {
		t.Fatal("empty chart should say no data")
	}
}

func TestNiceStep(t *testing.T) {
	for span, want := range map[float64]float64{100: 20, 7: 2, 1: 0.2, 4500: 1000} {
		if got := niceStep(span, 5); got != want {
			t.Errorf("niceStep(%v) = %v, want %v", span, got, want)
		}
	}
}
