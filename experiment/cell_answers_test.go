package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Known answers for a cell's figures, each computed by hand from a result built sample by sample or
// window by window: the rate sent, the failure warning's share, which models are judged for steadiness,
// which windows a cell keeps, what is in flight after dropped requests, the per-second median's
// sample floor and the breakdown's total in an open loop (issue 61: the sweep found these unpinned).

func cellOf(res *load.Result, model string) results.Cell {
	return CellFigures(plan.Cell{ID: "k/r=1", Key: "k", Concurrency: 1, Repetition: 1}, "local", model, res, nil, 1)
}

// The rate sent is the requests sent over the schedule's span in an open loop, over the elapsed time
// otherwise, and 0 when neither is known (never a division by zero).
func TestCellSentRateOverTheScheduleElseTheElapsedTime(t *testing.T) {
	for _, c := range []struct {
		span, elapsed time.Duration
		want          float64
	}{
		{2 * time.Second, 4 * time.Second, 50}, // the schedule's span wins
		{0, 4 * time.Second, 25},
		{0, 0, 0},
	} {
		res := &load.Result{Recorder: load.NewRecorder(0), ScheduleSpan: c.span, Elapsed: c.elapsed}
		res.Counts[load.ClassOK] = 90
		res.Counts[load.Class503] = 10
		res.Counts[load.ClassGeneratorLag] = 7 // never sent: not in the rate
		if got := cellOf(res, "closed").SentRPS; got != c.want {
			t.Errorf("span %s elapsed %s: sent %v/s, want %v", c.span, c.elapsed, got, c.want)
		}
	}
}

// A cell with failures says how many and their share to two decimals; one without says nothing.
func TestCellSaysItsFailedShare(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0), Elapsed: time.Second}
	res.Counts[load.ClassOK], res.Counts[load.Class503] = 15, 5
	if !hasWarning(cellOf(res, "closed"), "5 of 20 requests failed (25.00%)") {
		t.Errorf("warnings %v, want 5 of 20 failed (25.00%%)", cellOf(res, "closed").Warnings)
	}
	res.Counts[load.Class503] = 0
	if c := cellOf(res, "closed"); hasWarning(c, "requests failed") {
		t.Errorf("no failure, warned: %v", c.Warnings)
	}
}

// Only a closed or open loop is judged for steadiness; a cold-start or trace cell is not meant to be
// steady. The judged series leaves out the last (partial) second, and five seconds are enough.
func TestCellSteadinessJudgedForLoopsOnly(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0), Elapsed: 5 * time.Second}
	for _, n := range []int64{100, 1000, 1000, 1000, 10} {
		var w load.Window
		w.Counts[load.ClassOK], w.Sent = n, n
		res.Windows = append(res.Windows, w)
		res.Counts[load.ClassOK] += n
	}
	for _, model := range []string{"closed", "open"} {
		if c := cellOf(res, model); !hasWarning(c, "not steady: throughput settled only after 1 s") || !hasWarning(c, "by more than 10 %") {
			t.Errorf("%s: warnings %v, want not steady after 1 s (by more than 10 %%)", model, c.Warnings)
		}
	}
	for _, model := range []string{"coldstart", "trace"} {
		if c := cellOf(res, model); hasWarning(c, "not steady") {
			t.Errorf("%s: judged for steadiness: %v", model, c.Warnings)
		}
	}
}

// The last second is left out of the judgement: a steady cell whose last second is partial is steady.
// The windows are made at their exact capacity, so a slice past them fails.
func TestSteadyStateLeavesOutThePartialLastSecond(t *testing.T) {
	rates := []int64{1000, 1000, 1000, 1000, 1000, 1000, 3}
	ws := make([]results.Window, len(rates))
	for i, r := range rates {
		ws[i] = results.Window{Second: i, Succeeded: r}
	}
	if w := steadyState(ws); w != "" {
		t.Errorf("a steady cell with a partial last second flagged: %q", w)
	}
}

func hasWarning(c results.Cell, part string) bool {
	for _, w := range c.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// A cell keeps its seconds up to the last one in which something was sent or completed; a result with
// none keeps none. Each second's errors list only the classes that occurred.
func TestWindowsEndAtTheLastBusySecond(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0)}
	res.Windows = make([]load.Window, 3)
	if ws := windows(res, nil); len(ws) != 0 {
		t.Fatalf("three empty seconds gave %d windows, want none", len(ws))
	}
	res.Windows[0].Counts[load.ClassOK] = 4
	res.Windows[0].Counts[load.Class502] = 2
	res.Windows[0].Sent = 6
	ws := windows(res, nil)
	if len(ws) != 1 {
		t.Fatalf("a busy first second and two empty ones gave %d windows, want 1", len(ws))
	}
	if len(ws[0].Errors) != 1 || ws[0].Errors["http-502"] != 2 || ws[0].Failed != 2 || ws[0].Succeeded != 4 {
		t.Errorf("second 0: %+v, want errors {http-502: 2} only, 2 failed, 4 succeeded", ws[0])
	}
	res.Windows[2].Sent = 1 // sent, not yet completed: the second is kept
	if ws := windows(res, nil); len(ws) != 3 {
		t.Errorf("a second with a send only: %d windows, want 3", len(ws))
	}
}

// In flight at the end of a second: sent so far less completed so far, where a request dropped for the
// generator's lag completes without ever being sent.
func TestWindowsInFlightLeaveOutRequestsDroppedForLag(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0)}
	res.Windows = make([]load.Window, 3)
	res.Windows[0].Sent, res.Windows[0].Counts[load.ClassOK] = 22, 20
	res.Windows[1].Sent, res.Windows[1].Counts[load.ClassOK], res.Windows[1].Counts[load.ClassGeneratorLag] = 5, 2, 3
	res.Windows[2].Counts[load.ClassOK] = 5
	ws := windows(res, nil)
	var got []int64
	for _, w := range ws {
		got = append(got, w.InFlight)
	}
	// second 0: 22 sent, 20 done; second 1: 27 sent, 22 done (3 dropped were never sent); second 2: all done.
	if len(got) != 3 || got[0] != 2 || got[1] != 5 || got[2] != 0 {
		t.Errorf("in flight %v, want [2 5 0]", got)
	}
}

// A second's median is given from stats.MinSamples(0.5) completions (20) and its p99 from
// MinSamples(0.99) (1000), in ms; below, none.
func TestWindowsGiveAPercentileFromItsSampleFloor(t *testing.T) {
	for _, c := range []struct {
		n            int64
		p50, p99     bool
		wantP50Value float64
	}{
		{stats.MinSamples(0.5) - 1, false, false, 0},
		{stats.MinSamples(0.5), true, false, 1},
		{stats.MinSamples(0.99) - 1, true, false, 1},
		{stats.MinSamples(0.99), true, true, 1},
	} {
		rec := load.NewRecorder(0)
		for i := range c.n {
			at := 100*time.Millisecond + time.Duration(i)*time.Microsecond
			rec.Record(&load.Sample{Intended: at, Sent: at, Done: at + time.Millisecond, Status: 200, Class: load.ClassOK, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1})
		}
		ws := windows(&load.Result{Recorder: rec}, nil)
		if len(ws) != 1 || ws[0].Completed != c.n {
			t.Fatalf("%d samples in second 0: windows %+v", c.n, ws)
		}
		if (ws[0].P50Ms != nil) != c.p50 || (ws[0].P99Ms != nil) != c.p99 {
			t.Errorf("%d completions: p50 given %v, p99 given %v; want %v, %v", c.n, ws[0].P50Ms != nil, ws[0].P99Ms != nil, c.p50, c.p99)
		}
		if c.p50 && *ws[0].P50Ms != c.wantP50Value {
			t.Errorf("%d completions of 1 ms: p50 %v ms", c.n, *ws[0].P50Ms)
		}
		if c.p99 && *ws[0].P99Ms != 1 {
			t.Errorf("%d completions of 1 ms: p99 %v ms", c.n, *ws[0].P99Ms)
		}
	}
}

// In an open loop the breakdown's total is the successes' mean service time (from the send), not their
// latency (from the intended time, which adds the generator's lag).
func TestBreakdownOfAnOpenLoopIsOfTheServiceTime(t *testing.T) {
	rec := func(ns int64) *hist.Histogram {
		h := hist.New()
		for range 10 {
			h.Record(ns)
		}
		return h
	}
	res := &load.Result{Recorder: load.NewRecorder(0)}
	res.Latency[load.ClassOK], res.Service[load.ClassOK] = rec(5_000_000), rec(4_000_000)
	res.GwQueue, res.GwUpstream, res.Handler = rec(1_000_000), rec(2_000_000), rec(1_000_000)
	b := breakdown(res)
	if b == nil || b.TotalMs < 3.99 || b.TotalMs > 4.01 {
		t.Fatalf("breakdown %+v, want a total of the 4 ms service time", b)
	}
	res.Closed = true // a closed loop keeps no service histogram: its latency is the service time
	if b := breakdown(res); b == nil || b.TotalMs < 4.99 || b.TotalMs > 5.01 {
		t.Fatalf("closed: breakdown %+v, want 5 ms", b)
	}
}
