package replay

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
}
