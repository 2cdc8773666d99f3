// Package livemetrics serves a run's figures while it goes, on /metrics in
// Prometheus' text format (through client_golang): the current cell's
// requests by class, its successful requests' latency as a histogram, cold
// starts and elapsed time; the run's requests by class over every cell; the
// plan's progress; and each function's replicas, CPU, memory and queue from
// the run's timeline. It reads the load engine's live counters at scrape
// time: nothing is added to the hot path beyond those counters' atomic adds.
package livemetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/faasbench/faasbench/internal/listen"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// DefaultAddr is where the exporter listens when given a port alone.
const DefaultAddr = "127.0.0.1:9464"

// Exporter follows one run and serves it (runner.Watcher).
type Exporter struct {
	mu         sync.Mutex
	run        string
	name       string
	platform   string
	cellsTotal int
	cellsDone  int
	cell       *plan.Cell
	cellStart  time.Time
	live       *load.Live
	finished   map[string]int64 // the kept cells' requests by class (their summaries': exact whatever the driver)
	timeline   func() []observe.TimelineSample
	ln         net.Listener
	srv        *http.Server
	served     chan error
	now        func() time.Time
}

// New is an exporter that serves nothing yet (Listen, or Handler in tests).
func New() *Exporter { return &Exporter{now: time.Now, finished: map[string]int64{}} }

// Listen serves e on addr (host:port; ":port" or "port" alone listen on
// loopback). The error names the address when it cannot be taken.
func (e *Exporter) Listen(addr string) error {
	ln, err := listen.On("--metrics-listen", addr, DefaultAddr)
	if err != nil {
		return err
	}
	e.ln = ln
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	e.served = make(chan error, 1)
	go func() { e.served <- e.srv.Serve(ln) }()
	return nil
}

// Address is addr with loopback for an empty host.
func Address(addr string) (string, error) {
	return listen.Address("--metrics-listen", addr, DefaultAddr)
}

// Exposed says whether the address the exporter took is off loopback (the
// caller warns: the figures name the run's functions and cells).
func (e *Exporter) Exposed() bool { return listen.Exposed(e.ln) }

// Addr is the address the exporter listens on ("" before Listen).
func (e *Exporter) Addr() string {
	if e.ln == nil {
		return ""
	}
	return e.ln.Addr().String()
}

// Close stops serving.
func (e *Exporter) Close() error {
	if e.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if serr := <-e.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Handler is /metrics for e (a registry of its own: no process metrics of
// faasbench's, which would say nothing of the run).
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(registryOf(e), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// RunStarted says which run this is, its cells, and where its timeline is.
func (e *Exporter) RunStarted(runID, name, platform string, cells int, timeline func() []observe.TimelineSample) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run, e.name, e.platform, e.cellsTotal, e.timeline = runID, name, platform, cells, timeline
}

// CellStarted says a cell's load began, counted in live (a cell of steps,
// kind capacity's, starts a live per step: its series start again).
func (e *Exporter) CellStarted(pc plan.Cell, live *load.Live) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := pc
	e.cell, e.live, e.cellStart = &c, live, e.now()
}

// CellEnded says a cell was kept (done of total cells): its summary's counts
// join the run's.
func (e *Exporter) CellEnded(c *results.Cell, done, total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c != nil {
		e.finished[load.ClassOK.String()] += c.Requests.Succeeded
		for class, n := range c.Errors {
			e.finished[class] += n
		}
	}
	e.cell, e.live = nil, nil
	e.cellsDone, e.cellsTotal = done, total
}

// Progress says how many cells are done of how many (a skipped one, a plan that grew).
func (e *Exporter) Progress(done, total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cellsDone, e.cellsTotal = done, total
}
