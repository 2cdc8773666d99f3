package load

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A timed run ends its grace after its duration whatever the server does
// (issue 60: against a server that stopped answering, `--rate 1e7 -d 2s`
// waited for the client timeout, 62 s): what is still in flight is cut and
// counted as a timeout with the latency it had reached, in CutAtEnd; an
// interrupt is still an abort, no outcome.
func TestAGraceBoundsATimedRunsEnd(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		select { // never answers within the test
		case <-release:
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	ms := time.Millisecond
	for _, c := range []struct {
		name  string
		ex    Executor
		n     int64
		grace time.Duration
	}{
		{"open, 300 ms grace", Open{Schedule: Limit{S: Constant{Rate: 20}, Duration: 200 * ms}, MaxInFlight: 8, Deadline: 200 * ms, Grace: 300 * ms}, 4, 300 * ms},
		{"open, none", Open{Schedule: Limit{S: Constant{Rate: 20}, Duration: 200 * ms}, MaxInFlight: 8, Deadline: 200 * ms, Grace: -1}, 4, 0},
		{"closed, 300 ms grace", Closed{Concurrency: 3, Duration: 200 * ms, Grace: 300 * ms}, 3, 300 * ms},
	} {
		for _, netHTTP := range []bool{false, true} {
			cl := NewClient(Options{NetHTTP: netHTTP, Timeout: time.Minute})
			began := time.Now()
			res, err := c.ex.Run(context.Background(), cl, Target{URL: s.URL})
			took := time.Since(began)
			cl.Close()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if took > 200*ms+c.grace+2*time.Second {
				t.Errorf("%s (net/http %v): took %v, want about its duration and grace", c.name, netHTTP, took)
			}
			if res.CutAtEnd != c.n || res.Counts[ClassTimeout] != c.n || res.Aborted != 0 || res.Interrupted {
				t.Errorf("%s (net/http %v): cut %d, timeouts %d, aborted %d, interrupted %v; want %d cut as timeouts", c.name, netHTTP, res.CutAtEnd, res.Counts[ClassTimeout], res.Aborted, res.Interrupted, c.n)
			}
			if h := res.Latency[ClassTimeout]; h == nil || time.Duration(h.Min()) < c.grace+40*ms {
				t.Errorf("%s (net/http %v): a cut request's latency is its time so far, at least the grace and the 50 ms from the last send to the end", c.name, netHTTP)
			}
		}
	}
	// An interrupt within the grace is an abort, as before.
	ctx, cancel := context.WithTimeout(context.Background(), 300*ms)
	defer cancel()
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 2, Duration: 100 * ms, Grace: time.Minute}.Run(ctx, cl, Target{URL: s.URL})
	if err != nil || res.Aborted != 2 || res.CutAtEnd != 0 || !res.Interrupted {
		t.Errorf("interrupted in its grace: %v, aborted %d, cut %d, interrupted %v; want 2 aborted", err, res.Aborted, res.CutAtEnd, res.Interrupted)
	}
}

// The grace's context: none for a run without a duration (a request
// count may take as long as it takes), DefaultGrace (30 s) by default, the
// end itself for a negative grace.
func TestGraceContextDeadlines(t *testing.T) {
	start := time.Now()
	if ctx, stop := graceCtx(context.Background(), start, 0, time.Second); ctx != context.Background() {
		stop()
		t.Error("a run without a duration got a grace deadline")
	}
	if DefaultGrace != 30*time.Second {
		t.Errorf("DefaultGrace %v, want k6's 30 s", DefaultGrace)
	}
	for _, c := range []struct{ grace, want time.Duration }{{0, 2*time.Second + DefaultGrace}, {-1, 2 * time.Second}, {5 * time.Second, 7 * time.Second}} {
		ctx, stop := graceCtx(context.Background(), start, 2*time.Second, c.grace)
		dl, ok := ctx.Deadline()
		stop()
		if !ok || dl.Sub(start) != c.want {
			t.Errorf("grace %v: deadline %v after the start (%v), want %v", c.grace, dl.Sub(start), ok, c.want)
		}
	}
}
