package livedash

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// fakeRun drives d as a run of one cell does: the load engine's real
// closed loop for dur against a loopback function that takes 1 ms and says
// says its first reply was a cold start, a timeline of one function whose ready replicas grow, then the kept
// cell. It returns the cell (it may run off the test's goroutine).
func fakeRun(d *Dashboard, dur time.Duration) (results.Cell, error) {
	var first atomic.Bool
	fn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			w.Header().Set(load.HeaderCold, "1")
			w.Header().Set(load.HeaderColdKind, "process")
		}
		time.Sleep(time.Millisecond)
		_, _ = w.Write([]byte("pong"))
	}))
	defer fn.Close()
	began := time.Now()
	timeline := func() []observe.TimelineSample {
		return []observe.TimelineSample{{Function: "hello-go", Ready: 1 + int(time.Since(began)/(dur/3)), Desired: 3, CPUCores: 0.4, MemoryMiB: 11}}
	}
	d.RunStarted("live-1", "live", "local", 1, timeline)
	pc := plan.Cell{ID: "hello-go/c=2/r=1", Function: "hello-go", Concurrency: 2, Repetition: 1}
	live := &load.Live{}
	d.CellStarted(pc, live)
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	res, err := load.Closed{Concurrency: 2, Duration: dur, Live: live}.Run(context.Background(), cl, load.Target{URL: fn.URL})
	if err != nil {
		return results.Cell{}, err
	}
	c := results.Cell{Cell: pc, ThroughputRPS: res.Throughput(), SuccessLatencyMs: stats.Of(res.Latency[load.ClassOK]),
		Requests: results.Requests{Total: res.Total(), Succeeded: res.Succeeded(), Failed: res.Total() - res.Succeeded()}, ColdStarts: res.ColdStarts, Valid: true}
	d.CellEnded(&c, 1, 1)
	return c, nil
}

func fakeCell() plan.Cell {
	return plan.Cell{ID: "f/c=1/r=1", Function: "f", Concurrency: 1}
}
