package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

func TestCellFiguresKeepFailuresAndCountThem(t *testing.T) {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set(load.HeaderInstance, "i1")
		w.Header().Set(load.HeaderHandlerBegin, "100")
		w.Header().Set(load.HeaderHandlerEnd, "200")
		w.Write([]byte("pong"))
	}))
	defer s.Close()
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	res, err := load.Closed{Concurrency: 2, Requests: 200}.Run(context.Background(), cl, load.Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := CellFigures(plan.Cell{ID: "x/c=2/r=1", Key: "x/c=2", Concurrency: 2, Repetition: 1}, "local", "closed", res, nil, 1)
	if c.Requests.Total != 200 || c.Requests.Succeeded != 150 || c.Requests.Failed != 50 || c.Errors["http-503"] != 50 {
		t.Fatalf("requests %+v errors %v", c.Requests, c.Errors)
	}
	if c.LatencyMs.Count != 200 || c.SuccessLatencyMs.Count != 150 || c.LatencyByClassMs["http-503"].Count != 50 {
		t.Errorf("latency counts all %d ok %d 503 %d", c.LatencyMs.Count, c.SuccessLatencyMs.Count, c.LatencyByClassMs["http-503"].Count)
	}
	if c.Instances["i1"] != 150 || c.HandlerMs.Count != 150 {
		t.Errorf("instances %v handler %d", c.Instances, c.HandlerMs.Count)
	}
	if !c.Valid || len(c.Warnings) != 1 {
		t.Errorf("valid %v warnings %v (a failure rate is a warning, not invalid)", c.Valid, c.Warnings)
	}
	var inWindows int64
	for _, w := range c.Windows {
		inWindows += w.Completed
	}
	if inWindows != 200 {
		t.Errorf("windows hold %d", inWindows)
	}
}

func TestCellFiguresInterruptedIsInvalid(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
	}))
	defer s.Close()
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, _ := load.Closed{Concurrency: 1, Duration: time.Minute}.Run(ctx, cl, load.Target{URL: s.URL})
	c := CellFigures(plan.Cell{ID: "x", Key: "x", Concurrency: 1, Repetition: 1}, "local", "closed", res, nil, 1)
	if c.Valid || !c.Interrupted || c.Requests.Succeeded == 0 {
		t.Fatalf("valid %v interrupted %v", c.Valid, c.Interrupted)
	}
}

func TestSteadyStateFlagsAWarmingCell(t *testing.T) {
	mk := func(rates ...int64) []results.Window {
		var ws []results.Window
		for i, r := range rates {
			ws = append(ws, results.Window{Second: i, Succeeded: r})
		}
		return ws
	}
	if w := steadyState(mk(100, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500)); !strings.Contains(w, "not steady") {
		t.Errorf("a slow first second not flagged: %q", w)
	}
	if w := steadyState(mk(990, 1000, 1010, 1000, 995, 1005, 1000, 1000, 1000, 1000, 500)); w != "" {
		t.Errorf("a steady cell flagged: %q", w)
	}
	if w := steadyState(mk(1, 1000)); w != "" {
		t.Errorf("too short to judge, flagged: %q", w)
	}
}

// Each second carries its worst time, exactly (not a bucket's bound), and
// none when nothing completed in it.
func TestWindowsCarryTheWorstTimePerSecond(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0)}
	var w0, w2 load.Window
	w0.Counts[load.ClassOK], w0.LatMaxNs = 10, 12_345_678
	w2.Counts[load.ClassOK], w2.LatMaxNs = 1, 1_000_000
	res.Windows = []load.Window{w0, {Sent: 3}, w2}
	ws := windows(res, nil)
	if len(ws) != 3 || ws[0].MaxMs == nil || *ws[0].MaxMs != 12.345678 || ws[1].MaxMs != nil || ws[2].MaxMs == nil || *ws[2].MaxMs != 1 {
		t.Fatalf("windows %+v", ws)
	}
}

// The breakdown's parts add up to the mean, and the instance's part splits
// into the way in and the way back when every success had both clocks.
func TestBreakdownSplitsTheInstanceTime(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0)}
	rec := func(ns int64) *hist.Histogram {
		h := hist.New()
		for range 10 {
			h.Record(ns)
		}
		return h
	}
	res.Latency[load.ClassOK] = rec(5_000_000)
	res.Closed = true
	res.GwQueue, res.GwUpstream, res.Handler = rec(1_000_000), rec(3_000_000), rec(1_000_000)
	b := breakdown(res)
	if b == nil || b.InstanceSetupMs != nil {
		t.Fatalf("without setup stamps: %+v", b)
	}
	res.GwSetup = rec(1_500_000)
	b = breakdown(res)
	if b == nil || b.InstanceSetupMs == nil || b.InstanceReplyMs == nil {
		t.Fatalf("with setup stamps: %+v", b)
	}
	near := func(a, want float64) bool { return a > want*0.99 && a < want*1.01 }
	if !near(b.InstanceMs, 2) || !near(*b.InstanceSetupMs, 1.5) || !near(*b.InstanceReplyMs, 0.5) || !near(b.OutsideMs+b.GatewayQueueMs+b.InstanceMs+b.HandlerMs, b.TotalMs) {
		t.Fatalf("breakdown %+v (setup %v reply %v): want instance 2 = 1.5 in + 0.5 back", b, *b.InstanceSetupMs, *b.InstanceReplyMs)
	}
}

// A latency over the histogram's ceiling (10 min) is counted at it, and the
// cell says so: its max and upper percentiles are then lower bounds (#61).
func TestCellFiguresSayWhatTheHistogramClamped(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	defer s.Close()
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	res, err := load.Closed{Concurrency: 1, Requests: 20}.Run(context.Background(), cl, load.Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := CellFigures(plan.Cell{ID: "x", Key: "x", Concurrency: 1, Repetition: 1}, "local", "closed", res, nil, 1)
	for _, w := range c.Warnings {
		if strings.Contains(w, "ceiling") {
			t.Fatalf("nothing was clamped, yet: %s", w)
		}
	}
	res.Latency[load.ClassOK].RecordDuration(20 * time.Minute)
	res.Latency[load.ClassOK].RecordDuration(11 * time.Minute)
	c = CellFigures(plan.Cell{ID: "x", Key: "x", Concurrency: 1, Repetition: 1}, "local", "closed", res, nil, 1)
	if c.LatencyMs.Clamped != 2 || c.SuccessLatencyMs.Clamped != 2 {
		t.Fatalf("clamped: all %d, successes %d; want 2", c.LatencyMs.Clamped, c.SuccessLatencyMs.Clamped)
	}
	found := false
	for _, w := range c.Warnings {
		found = found || strings.Contains(w, "2 of 22 latencies were over the histogram's ceiling (10 min)")
	}
	if !found {
		t.Fatalf("no warning of the clamped latencies: %q", c.Warnings)
	}
}

// A second's failed requests are those not ok, by class: succeeded +
// failed is what completed, and the errors name the classes.
func TestWindowsCountFailuresByClass(t *testing.T) {
	res := &load.Result{Recorder: load.NewRecorder(0)}
	var w load.Window
	w.Counts[load.ClassOK], w.Counts[load.Class503], w.Counts[load.ClassTimeout] = 7, 2, 1
	w.Sent = 10
	res.Windows = []load.Window{w}
	ws := windows(res, nil)
	if len(ws) != 1 || ws[0].Completed != 10 || ws[0].Succeeded != 7 || ws[0].Failed != 3 ||
		ws[0].Errors["http-503"] != 2 || ws[0].Errors["timeout"] != 1 || ws[0].InFlight != 0 {
		t.Fatalf("window %+v", ws)
	}
}
