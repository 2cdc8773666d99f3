package threshold

import (
	"math"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

func f(v float64) *float64 { return &v }

func mustParse(t *testing.T, s string) Threshold {
	t.Helper()
	th, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestWholeCell(t *testing.T) {
	c := results.Cell{ThroughputRPS: 480, Requests: results.Requests{Total: 1000, Succeeded: 990, Failed: 10},
		SuccessLatencyMs: stats.Percentiles{Count: 990, Mean: 4, Max: 80, P50: f(3), P99: f(40)}}
	c.ID = "f/c=8/r=1"
	for expr, held := range map[string]bool{
		"p99<50ms": true, "p99<40ms": false, "p99<=40ms": true, "p50<3ms": false, "max<0.1s": true, "mean<4": false,
		"errors<2%": true, "errors<1%": false, "errors<=0.01": true, "rps>=480": true, "rps>500": false,
	} {
		o := mustParse(t, expr).Check(c, nil)
		if o.Held != held || o.Observed == nil || o.Cell != "f/c=8/r=1" {
			t.Errorf("%s: %+v, want held %v", expr, o, held)
		}
	}
	// A figure the cell lacks breaks the threshold, and says why.
	o := mustParse(t, "p99.9<1s").Check(c, nil)
	if o.Held || o.Observed != nil || o.Note != "990 successful requests: p99.9 needs at least 10000" {
		t.Errorf("p99.9 of 990: %+v", o)
	}
	if o := mustParse(t, "errors<1%").Check(results.Cell{}, nil); o.Held || o.Note != "no request completed" {
		t.Errorf("no request: %+v", o)
	}
}

// Windows of 2 s over 5 seconds: [0,2) [2,4) [4,5); the bad second 3 breaks
// p99[2s] and errors[2s] in the second window only, which is reported as the
// worst; the last, short window's rate is per its own one second.
func TestWindows(t *testing.T) {
	lowest, per := 1000.0, 4
	bucket := func(ms float64) int { return int(math.Ceil(math.Log2(ms*1e6/lowest)*float64(per))) - 1 }
	sec := func(ms float64, n uint32) []uint32 {
		b := make([]uint32, bucket(ms)+1)
		b[bucket(ms)] = n
		return b
	}
	c := results.Cell{Windows: []results.Window{
		{Second: 0, Completed: 1000, Succeeded: 1000, MaxMs: f(11)},
		{Second: 1, Completed: 1000, Succeeded: 1000, MaxMs: f(11)},
		{Second: 2, Completed: 0},
		{Second: 3, Completed: 1000, Succeeded: 900, Failed: 100, MaxMs: f(210)},
		{Second: 4, Completed: 500, Succeeded: 500, MaxMs: f(11)},
	}}
	c.ID = "f/r=1"
	b := &stats.Buckets{LowestNs: lowest, PerOctave: per, Seconds: [][]uint32{sec(10, 1000), sec(10, 1000), sec(200, 1000), sec(10, 500)}}

	o := mustParse(t, "p99[2s]<100ms").Check(c, b)
	if o.Held || o.Observed == nil || *o.WindowStartS != 2 || *o.Observed < 200 || *o.Observed > 210 {
		t.Fatalf("p99[2s]: %+v (observed %v)", o, deref(o.Observed))
	}
	// The short last window (500 requests) is too small for a p99 and is left out, with a note.
	if !strings.Contains(o.Note, "1 of 3 windows were left out (too few requests for p99") {
		t.Errorf("note %q", o.Note)
	}
	if o := mustParse(t, "p99[2s]<300ms").Check(c, b); !o.Held {
		t.Errorf("p99[2s]<300ms: %+v", o)
	}
	// Per second: second 3's median is the 200 ms bucket's upper edge (211 ms) capped by its max (210 ms);
	// the empty second 2 is left out.
	if o := mustParse(t, "p50[1s]<12ms").Check(c, b); o.Held || *o.Observed != 210 || *o.WindowStartS != 3 ||
		o.Note != "1 of 5 windows were left out (too few requests for p50, or a rate's window cut short by the cell's end)" {
		t.Errorf("p50[1s]: %+v (observed %v)", o, deref(o.Observed))
	}
	if o := mustParse(t, "errors[2s]<5%").Check(c, b); o.Held || *o.Observed != 0.1 || *o.WindowStartS != 2 {
		t.Errorf("errors[2s]: %+v", o)
	}
	if o := mustParse(t, "rps[2s]>=500").Check(c, b); o.Held || *o.Observed != 450 || *o.WindowStartS != 2 {
		t.Errorf("rps[2s]: %+v", o)
	}
	// The last window, one second of two, is left out of a rate (its 500 requests over 1 s would pass and
	// over 2 s would not: neither is the rate of a whole window).
	if o := mustParse(t, "rps[2s]>=450").Check(c, b); !o.Held || !strings.Contains(o.Note, "1 of 3 windows were left out") {
		t.Errorf("rps[2s]>=450: %+v", o)
	}
	// A cell that ended 4.2 s in: the window [4, 5) is cut short too, even at 1 s.
	c.ElapsedS = 4.2
	if o := mustParse(t, "rps[1s]>=450").Check(c, b); o.Held || *o.Observed != 0 || *o.WindowStartS != 2 {
		t.Errorf("rps[1s] with a cell of 4.2 s: %+v (the empty second 2 is the worst; second 4 is left out)", o)
	}
	c.ElapsedS = 0
	if o := mustParse(t, "max[5s]<200ms").Check(c, b); o.Held || *o.Observed != 210 {
		t.Errorf("max[5s]: %+v", o)
	}
	if o := mustParse(t, "p99[2s]<1s").Check(c, nil); o.Held || !strings.Contains(o.Note, "no per-second latency buckets") {
		t.Errorf("no buckets: %+v", o)
	}
	if o := mustParse(t, "p99.9[2s]<1s").Check(c, b); o.Held || o.Note != "no window of 2 s had enough requests for p99.9" {
		t.Errorf("p99.9 of 2000: %+v", o)
	}
	if o := mustParse(t, "p99[2s]<1s").Check(results.Cell{}, b); o.Held || o.Note != "the cell has no per-second windows" {
		t.Errorf("no windows: %+v", o)
	}
}

func TestLines(t *testing.T) {
	s := 2
	lines := Lines([]Outcome{{Threshold: "p99<1ms", Cell: "a", Held: true, Observed: f(0.5)},
		{Threshold: "p99[2s]<1ms", Cell: "b", Observed: f(3), WindowStartS: &s},
		{Threshold: "p99.9<1ms", Cell: "c", Note: "too few"}})
	want := []string{"threshold p99[2s]<1ms: BROKEN in cell b: 3 in the window from second 2",
		"threshold p99.9<1ms: BROKEN in cell c: no figure (too few)", "thresholds: 1 of 3 held (threshold × cell)"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("%q", lines)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
