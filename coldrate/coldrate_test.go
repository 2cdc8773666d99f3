package coldrate

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

// fake is a platform whose functions start an instance on their first call
// through starters slots, each start taking startTime: it completes at most
// starters/startTime cold starts a second, and a faster rate queues.
type fake struct {
	mu       sync.Mutex
	deployed map[string]bool
	removed  []string
	started  map[string]bool
	slots    chan struct{}
	start    time.Duration
	warm     bool // answers without the cold flag
	// startOf, if set, is the cold start of a step's call j (its name ends
	// in -j) instead of start.
	startOf func(j int) time.Duration
	srv     *httptest.Server
	// via: a cold call must come through the route MakeCold names (its
	// header X-Via the function's name); straight to the function it is
	// answered 503, as Nuclio's function at zero is without its DLX.
	via bool
}

func newFake(t *testing.T, starters int, startTime time.Duration) *fake {
	f := &fake{deployed: map[string]bool{}, started: map[string]bool{}, slots: make(chan struct{}, starters), start: startTime}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/fn/")
		f.mu.Lock()
		ok, cold := f.deployed[name], !f.started[name]
		f.started[name] = true
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if cold && f.via && r.Header.Get("X-Via") != name {
			f.mu.Lock()
			delete(f.started, name)
			f.mu.Unlock()
			http.Error(w, "no instance", http.StatusServiceUnavailable)
			return
		}
		if cold {
			f.slots <- struct{}{}
			d := f.start
			if f.startOf != nil {
				j, _ := strconv.Atoi(name[strings.LastIndex(name, "-")+1:])
				d = f.startOf(j)
			}
			time.Sleep(d)
			<-f.slots
			if !f.warm {
				w.Header().Set("X-Fb-Cold", "1")
			}
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) Name() string                             { return "fake" }
func (f *fake) Scale(context.Context, string, int) error { return nil }
func (f *fake) Close(context.Context) error              { return nil }
func (f *fake) Endpoint(_ context.Context, n string) (string, error) {
	return f.srv.URL + "/fn/" + n, nil
}
func (f *fake) Deploy(_ context.Context, fn platform.Function) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deployed[fn.Name] = true
	return nil
}
func (f *fake) Remove(_ context.Context, n string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.deployed, n)
	f.removed = append(f.removed, n)
	return nil
}

// A platform that completes 20 cold starts a second (2 at once, 100 ms
// each) sustains 5 and 10 a second within a 1 s bound, not 80 (its last
// call waits 3 s): the knee is 10, the curve stops past it, and every
// function deployed is removed.
func TestCurveFindsTheKnee(t *testing.T) {
	f := newFake(t, 2, 100*time.Millisecond)
	cl := load.NewClient(load.Options{Timeout: 10 * time.Second})
	defer cl.Close()
	c, err := Run(context.Background(), f, cl, Options{Function: platform.Function{Name: "c", Workload: "hello", Language: "go"},
		Rates: []float64{5, 10, 80, 160}, Step: time.Second, Bound: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 3 || c.Knee != 10 {
		t.Fatalf("steps %+v, knee %v: want 3 steps and the knee at 10", c.Steps, c.Knee)
	}
	for _, s := range c.Steps[:2] {
		if !s.Sustained || s.Cold != int64(s.Calls) || s.P99Ms < 100 || s.Completed <= 0 {
			t.Errorf("rate %v: %+v: want every call a cold start of at least 100 ms", s.Rate, s)
		}
	}
	if over := c.Steps[2]; over.Sustained || over.Calls != 80 || over.P99Ms <= 1000 || !strings.Contains(over.Why, "p99") {
		t.Errorf("rate 80: %+v: want a p99 over the bound", over)
	}
	// 80 cold starts a second offered, 20 completed at most.
	if got := c.Steps[2].Completed; got > 21 || got < 10 {
		t.Errorf("rate 80: %.1f cold starts completed a second, the platform does 20", got)
	}
	if len(f.removed) != 5+10+80 || len(f.deployed) != 0 {
		t.Errorf("removed %d, still deployed %d", len(f.removed), len(f.deployed))
	}
}

// Replies that are not cold starts sustain nothing.
func TestCurveNeedsColdStarts(t *testing.T) {
	f := newFake(t, 4, time.Millisecond)
	f.warm = true
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	c, err := Run(context.Background(), f, cl, Options{Function: platform.Function{Name: "w"}, Rates: []float64{5}, Step: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c.Knee != 0 || c.Steps[0].Sustained || !strings.Contains(c.Steps[0].Why, "not cold starts") {
		t.Errorf("%+v", c)
	}
}

// Bad options name their field.
func TestOptionsValidate(t *testing.T) {
	good := Options{Function: platform.Function{Name: "c"}, Rates: []float64{1, 2}, Step: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for want, o := range map[string]Options{
		"function: no name": {Rates: []float64{1}, Step: time.Second},
		"replicas 1":        {Function: platform.Function{Name: "c", Replicas: 1}, Rates: []float64{1}, Step: time.Second},
		"rates: none":       {Function: platform.Function{Name: "c"}, Step: time.Second},
		"rates[1] 1":        {Function: platform.Function{Name: "c"}, Rates: []float64{1, 1}, Step: time.Second},
		"rates[0] -1":       {Function: platform.Function{Name: "c"}, Rates: []float64{-1}, Step: time.Second},
		"step 0s":           {Function: platform.Function{Name: "c"}, Rates: []float64{1}},
		"at most 5000":      {Function: platform.Function{Name: "c"}, Rates: []float64{1000}, Step: 10 * time.Second},
		"bound -1s":         {Function: platform.Function{Name: "c"}, Rates: []float64{1}, Step: time.Second, Bound: -time.Second},
	} {
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", want, err)
		}
	}
}

// A rate past the platform's capacity whose queue still fits its p99
// under the bound for one step is not sustained: it completes 20 a second
// of 40 offered.
func TestCurveFallingBehindIsNotSustained(t *testing.T) {
	f := newFake(t, 2, 100*time.Millisecond)
	cl := load.NewClient(load.Options{Timeout: 10 * time.Second})
	defer cl.Close()
	c, err := Run(context.Background(), f, cl, Options{Function: platform.Function{Name: "b"}, Rates: []float64{40}, Step: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Steps[0]
	if s.Sustained || c.Knee != 0 || !strings.Contains(s.Why, "falling behind") || s.P99Ms > float64(DefaultBound/time.Millisecond) {
		t.Errorf("%+v: want a p99 within 5 s and falling behind", s)
	}
	if s.Completed < 15 || s.Completed > 21 {
		t.Errorf("completed %.1f a second; the platform does 20", s.Completed)
	}
}

// Cold starts of 50 and 700 ms in no order, with no queue (8 at once),
// keep up at 4 a second: the slow first and last calls stretch the span
// from the first reply to the last past the calls' span ÷ 0.9 + 100 ms
// (2.15 s of 2.04 s allowed), but the latency does not grow over the step.
func TestCurveJitterIsNotFallingBehind(t *testing.T) {
	f := newFake(t, 8, 0)
	slow := map[int]bool{0: true, 2: true, 5: true, 7: true}
	f.startOf = func(j int) time.Duration {
		if slow[j] {
			return 700 * time.Millisecond
		}
		return 50 * time.Millisecond
	}
	cl := load.NewClient(load.Options{Timeout: 10 * time.Second})
	defer cl.Close()
	c, err := Run(context.Background(), f, cl, Options{Function: platform.Function{Name: "j"}, Rates: []float64{4}, Step: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Steps[0]; !s.Sustained || s.Cold != 8 || s.Growth > 0.05 || s.Growth < -0.05 {
		t.Errorf("%+v: want sustained, the latency's growth near 0", s)
	}
}

// The least-squares slope: a line's own, 0 for too few points or one x.
func TestSlope(t *testing.T) {
	for _, tc := range []struct {
		xs, ys []float64
		want   float64
	}{
		{[]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}, 2},
		{[]float64{0, 1, 2}, []float64{5, 5, 5}, 0},
		{[]float64{0, 1, 2, 3}, []float64{0, 1, 0, 1}, 0.2},
		{[]float64{0, 1}, []float64{0, 9}, 0},
		{[]float64{1, 1, 1}, []float64{0, 1, 2}, 0},
	} {
		if got := slope(tc.xs, tc.ys); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("slope(%v, %v) = %v, want %v", tc.xs, tc.ys, got, tc.want)
		}
	}
}

// A curve interrupted mid-step keeps the step, marked, never as the knee,
// and removes its functions.
func TestCurveInterrupted(t *testing.T) {
	f := newFake(t, 1, 50*time.Millisecond)
	cl := load.NewClient(load.Options{Timeout: 10 * time.Second})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	c, err := Run(ctx, f, cl, Options{Function: platform.Function{Name: "i"}, Rates: []float64{4}, Step: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Interrupted || c.Knee != 0 || len(c.Steps) != 1 || c.Steps[0].Sustained || !strings.Contains(c.Steps[0].Why, "interrupted") {
		t.Errorf("%+v", c)
	}
	if len(f.deployed) != 0 || len(f.removed) != 12 {
		t.Errorf("removed %d, still deployed %d", len(f.removed), len(f.deployed))
	}
}
