package replay

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/trace"
)

// A server of many functions: each path counts its calls and answers after
// the ?ms the caller asks for.
type functions struct {
	mu    sync.Mutex
	calls map[string]int
}

func (f *functions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls[r.URL.Path]++
	f.mu.Unlock()
	if d, err := time.ParseDuration(r.URL.Query().Get("ms") + "ms"); err == nil {
		time.Sleep(d)
	}
	w.Write([]byte("ok"))
}

// Twenty functions of a synthetic trace, two minutes played in two seconds:
// every function gets exactly the requests its schedule has, at its own
// path, and the figures per function, per minute and over the functions add
// up to the schedule.
func TestReplayDrivesEachFunctionOnItsOwnSchedule(t *testing.T) {
	srv := &functions{calls: map[string]int{}}
	s := httptest.NewServer(srv)
	defer s.Close()
	tr, err := trace.Synthesize(trace.SynthOptions{Functions: 400, Minutes: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	sample, _, err := trace.Sample(tr, trace.SampleOptions{N: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Cap each function at 100 req/s of replayed time: the few busiest send what a test machine can.
	r, err := trace.Schedule(sample, trace.ArrivalOptions{Process: trace.Poisson, Compress: 60, MaxRate: 100, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	fns := FromTrace(sample, r, func(i int) string { return "fn-" + string(rune('a'+i)) }, func(i int, f *trace.Function) load.Target {
		return load.Target{Method: "GET", URL: s.URL + "/function/fn-" + string(rune('a'+i)) + "?ms=1"}
	})
	cl := load.NewClient(load.Options{Timeout: 5 * time.Second})
	defer cl.Close()
	out, err := Run(context.Background(), cl, fns, Options{Length: r.Length, MaxLag: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(out, time.Second)
	var intended int64
	for i, f := range sum.Functions {
		intended += int64(len(fns[i].Offsets))
		if f.Intended != int64(len(fns[i].Offsets)) || f.Sent+f.Dropped != f.Intended || f.OK+f.Failed != f.Sent {
			t.Errorf("%s: %+v", f.Name, f)
		}
		srv.mu.Lock()
		got := srv.calls["/function/"+f.Name]
		srv.mu.Unlock()
		if int64(got) != f.Sent {
			t.Errorf("%s: the server saw %d calls, the replay sent %d", f.Name, got, f.Sent)
		}
		if f.OK > 0 && (f.P50Ms < 1 || (f.ExecMs > 0 && f.Slowdown != f.P50Ms/f.ExecMs)) {
			t.Errorf("%s: p50 %v ms for a 1 ms function, slowdown %v", f.Name, f.P50Ms, f.Slowdown)
		}
	}
	var minuteIntended, minuteSent int64
	for _, m := range sum.Minutes {
		minuteIntended += m.Intended
		minuteSent += m.Sent
		// Each minute sends what it intended, but for a request late across its minute's end.
		if d := m.Sent - m.Intended; d > 3+m.Intended/10 || -d > 3+m.Intended/10 {
			t.Errorf("minute %d: %d intended, %d sent", m.Minute, m.Intended, m.Sent)
		}
	}
	if sum.Intended != intended || intended == 0 || minuteIntended != intended || minuteSent != sum.Sent || len(sum.Minutes) > 2 {
		t.Errorf("intended %d (schedule %d), by minute %d; sent %d, by minute %d; %d minutes", sum.Intended, intended, minuteIntended, sum.Sent, minuteSent, len(sum.Minutes))
	}
	t.Logf("%d functions, %d intended, %d sent, gap %.4f (worst %.4f), slowdown p50 %.2f; minutes %+v", len(fns), sum.Intended, sum.Sent, sum.Gap, sum.WorstGap, sum.SlowdownP50, sum.Minutes)
}

// Cancelled midway, every function's outcome is still there (interrupted),
// and what was not sent shows as the gap.
func TestReplayInterruptedKeepsEveryOutcome(t *testing.T) {
	s := httptest.NewServer(&functions{calls: map[string]int{}})
	defer s.Close()
	var fns []Function
	for i := 0; i < 3; i++ {
		var offs load.Offsets
		for j := 0; j < 100; j++ {
			offs = append(offs, time.Duration(j)*20*time.Millisecond) // 2 s of 50 req/s
		}
		fns = append(fns, Function{Name: "f" + string(rune('0'+i)), Target: load.Target{URL: s.URL + "/f"}, Offsets: offs})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	out, _ := Run(ctx, cl, fns, Options{Length: 2 * time.Second})
	sum := Summarize(out, time.Minute)
	if len(out) != 3 || sum.Intended != 300 || sum.Sent >= 300 || sum.Gap <= 0 {
		t.Fatalf("%d outcomes, intended %d, sent %d, gap %v", len(out), sum.Intended, sum.Sent, sum.Gap)
	}
	for _, o := range out {
		if o.Result == nil || !o.Result.Interrupted {
			t.Errorf("%s: not marked interrupted: %+v", o.Function.Name, o.Result)
		}
	}
}

func TestReplayRefusesBadInput(t *testing.T) {
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	if _, err := Run(context.Background(), cl, nil, Options{}); err == nil {
		t.Error("no functions accepted")
	}
	bad := []Function{{Name: "fn-7", Target: load.Target{URL: "http://127.0.0.1:1/a b"}, Offsets: load.Offsets{0}}}
	if _, err := Run(context.Background(), cl, bad, Options{}); err == nil || !strings.Contains(err.Error(), "function fn-7") {
		t.Errorf("a bad URL: %v", err)
	}
}

// The figures' arithmetic on a hand-made outcome.
func TestSummarizeFigures(t *testing.T) {
	rec := load.NewRecorder(time.Minute)
	rec.Counts[load.ClassOK] = 6
	rec.Counts[load.Class5xx] = 1
	rec.Counts[load.ClassGeneratorLag] = 3
	out := []Outcome{{Function: Function{Name: "a", Offsets: make(load.Offsets, 10), ExecMs: 2}, Result: &load.Result{Recorder: rec}},
		{Function: Function{Name: "b", Offsets: make(load.Offsets, 5)}}}
	s := Summarize(out, time.Minute)
	a, b := s.Functions[0], s.Functions[1]
	if a.Sent != 7 || a.OK != 6 || a.Failed != 1 || a.Dropped != 3 || math.Abs(a.Gap-0.3) > 1e-12 {
		t.Errorf("a: %+v", a)
	}
	if b.Sent != 0 || b.Gap != 1 || s.Intended != 15 || s.Sent != 7 || s.WorstGap != 1 || s.Minutes[0].Intended != 15 {
		t.Errorf("b: %+v, over all %+v", b, s)
	}
	if math.Abs(s.Gap-8.0/15) > 1e-12 {
		t.Errorf("gap over all %v, want 8/15 not sent", s.Gap)
	}
	// b was called and never answered; a function never called is not counted.
	out = append(out, Outcome{Function: Function{Name: "c"}})
	if s = Summarize(out, time.Minute); s.NoSuccess != 1 {
		t.Errorf("%d functions without a success, want 1 (b)", s.NoSuccess)
	}
}

// Latencies in ms, the slowdown against the function's own time, and
// over the functions the slowdown of those that have one only (a function
// without an execution time, or without a success, has none).
func TestSummarizeLatencyAndSlowdown(t *testing.T) {
	ok := func(ms ...int) *load.Result {
		rec := load.NewRecorder(time.Minute)
		for _, v := range ms {
			d := time.Duration(v) * time.Millisecond
			rec.Record(&load.Sample{Sent: 0, Done: d, FirstByte: d, Class: load.ClassOK, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1})
		}
		return &load.Result{Recorder: rec}
	}
	out := []Outcome{
		{Function: Function{Name: "a", Offsets: make(load.Offsets, 3), ExecMs: 5}, Result: ok(10, 10, 40)},
		{Function: Function{Name: "b", Offsets: make(load.Offsets, 1), ExecMs: 0}, Result: ok(30)},
		{Function: Function{Name: "c", Offsets: make(load.Offsets, 1), ExecMs: 4}, Result: ok()},
	}
	s := Summarize(out, time.Minute)
	a, b, c := s.Functions[0], s.Functions[1], s.Functions[2]
	near := func(got, want float64) bool { return math.Abs(got/want-1) < 0.01 }
	if !near(a.P50Ms, 10) || !near(a.P99Ms, 40) || !near(a.Slowdown, 2) {
		t.Errorf("a: p50 %v p99 %v slowdown %v; want 10, 40, 2", a.P50Ms, a.P99Ms, a.Slowdown)
	}
	if !near(b.P50Ms, 30) || b.Slowdown != 0 || c.Slowdown != 0 || c.P50Ms != 0 {
		t.Errorf("b: p50 %v slowdown %v; c: p50 %v slowdown %v", b.P50Ms, b.Slowdown, c.P50Ms, c.Slowdown)
	}
	if !near(s.SlowdownP50, 2) || !near(s.SlowdownP99, 2) {
		t.Errorf("slowdown over functions p50 %v p99 %v: want 2 (a's alone)", s.SlowdownP50, s.SlowdownP99)
	}
}

// FromTrace gives each function its trace's average execution time (0
// without one) and its arrivals' offsets.
func TestFromTrace(t *testing.T) {
	tr := &trace.Trace{Minutes: 1, Functions: []trace.Function{
		{App: "a", Name: "f", PerMinute: []int32{2}, Duration: &trace.Percentiles{Average: 7}},
		{App: "b", Name: "g", PerMinute: []int32{1}},
	}}
	r, err := trace.Schedule(tr, trace.ArrivalOptions{Process: trace.Even})
	if err != nil {
		t.Fatal(err)
	}
	fns := FromTrace(tr, r, func(i int) string { return fmt.Sprint("fn-", i) }, func(i int, _ *trace.Function) load.Target {
		return load.Target{URL: fmt.Sprint("http://127.0.0.1:1/", i)}
	})
	if len(fns) != 2 || fns[0].ExecMs != 7 || fns[1].ExecMs != 0 || len(fns[0].Offsets) != 2 || len(fns[1].Offsets) != 1 || fns[1].Name != "fn-1" {
		t.Errorf("functions %+v", fns)
	}
	if fns[0].Offsets[0] != 15*time.Second || fns[1].Offsets[0] != 30*time.Second {
		t.Errorf("offsets %v %v", fns[0].Offsets, fns[1].Offsets)
	}
}

// The options a caller sets are kept, not replaced by the defaults: at most
// MaxInFlight requests of a function at once, nothing sent before the
// StartDelay, and a Grace that lets a late request still go out.
func TestReplayHonoursItsOptions(t *testing.T) {
	var inFlight, most atomic.Int64
	var first atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		n := inFlight.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(400 * time.Millisecond)
		inFlight.Add(-1)
	}))
	defer s.Close()
	cl := load.NewClient(load.Options{Timeout: 5 * time.Second})
	defer cl.Close()
	fns := []Function{{Name: "f", Target: load.Target{Method: "GET", URL: s.URL}, Offsets: load.Offsets{0, 0, 0, 0}}}
	called := time.Now()
	// Four requests due at once, one at a time: the last goes out ~1.2 s
	// late, past a length of 10 ms and the default grace of 1 s; a grace of
	// 2 s still lets it out.
	out, err := Run(context.Background(), cl, fns, Options{MaxInFlight: 1, StartDelay: 300 * time.Millisecond, Length: 10 * time.Millisecond, Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := Summarize(out, time.Minute); got.OK != 4 {
		t.Errorf("%d of 4 answered within the grace: %+v", got.OK, got.Functions)
	}
	if most.Load() != 1 {
		t.Errorf("%d requests at once with MaxInFlight 1", most.Load())
	}
	if d := time.Duration(first.Load() - called.UnixNano()); d < 300*time.Millisecond {
		t.Errorf("first request %v after the call, before the 300 ms start delay", d)
	}
}

// The gap per function and minute: a function on time over its whole replay can be late in one minute (here a
// burst in the second minute, half of it sent in the third); each function keeps its minutes with a request,
// and the replay the worst of any function in any minute, which its per-function figure hides.
func TestSummarizeGapPerFunctionAndMinute(t *testing.T) {
	at := func(s ...float64) load.Offsets {
		var o load.Offsets
		for _, x := range s {
			o = append(o, time.Duration(x*float64(time.Second)))
		}
		return o
	}
	rec := load.NewRecorder(3 * time.Minute)
	rec.Windows = make([]load.Window, 180)
	rec.Windows[10].Sent = 2  // minute 0: both sent
	rec.Windows[65].Sent = 2  // minute 1: 2 of 4 sent in it
	rec.Windows[125].Sent = 2 // minute 2: the burst's other 2, late
	rec.Counts[load.ClassOK] = 6
	a := Outcome{Function: Function{Name: "a", Offsets: at(10, 11, 65, 65, 65, 65)}, Result: &load.Result{Recorder: rec}}
	b := Outcome{Function: Function{Name: "b", Offsets: at(130)}} // never sent
	s := Summarize([]Outcome{a, b}, time.Minute)
	fa, fb := s.Functions[0], s.Functions[1]
	want := []MinuteGap{{0, 2, 2}, {1, 4, 2}, {2, 0, 2}}
	if fmt.Sprint(fa.Minutes) != fmt.Sprint(want) || fa.Gap != 0 {
		t.Errorf("a's minutes %+v (gap %v), want %+v and no gap over its replay", fa.Minutes, fa.Gap, want)
	}
	if fmt.Sprint(fb.Minutes) != fmt.Sprint([]MinuteGap{{2, 1, 0}}) {
		t.Errorf("b's minutes %+v, want its one minute, none sent", fb.Minutes)
	}
	if s.WorstMinuteGap != 1 || fmt.Sprint(s.Minutes) != fmt.Sprint([]MinuteGap{{0, 2, 2}, {1, 4, 2}, {2, 1, 2}}) {
		t.Errorf("worst minute gap %v (want 1, b's), minutes %+v", s.WorstMinuteGap, s.Minutes)
	}
	if s = Summarize([]Outcome{a}, time.Minute); s.WorstMinuteGap != 0.5 {
		t.Errorf("a alone: worst minute gap %v, want 0.5 (its second minute), where its whole gap is %v", s.WorstMinuteGap, s.Functions[0].Gap)
	}
}
