// Package livedash serves a live web dashboard of a run while it goes
// (faasbench run --dashboard-listen): the plan's progress, the current
// cell's rate and latency second by second, each function's replicas, and
// cold starts as they come, streamed to the browser as server-sent events,
// and the final summary when the run ends. Every asset is embedded: the
// page makes no request but to the server that served it. The dashboard
// reads the load engine's live counters once a tick, off the hot path.
package livedash

import (
	"context"
	"embed"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/faasbench/faasbench/internal/listen"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// DefaultAddr is where the dashboard listens when given a port alone.
const DefaultAddr = "127.0.0.1:9465"

//go:embed assets
var assets embed.FS

// Dashboard follows one run (runner.Watcher) and serves it.
type Dashboard struct {
	// Period is the time between frames (default one second).
	Period time.Duration
	// WriteWait bounds one write to a browser (default 10 s).
	WriteWait time.Duration

	mu         sync.Mutex
	started    time.Time
	run        string
	name       string
	platform   string
	cellsDone  int
	cellsTotal int
	cell       *plan.Cell
	cellStart  time.Time
	// measurement counts the cell's measurements: a cell measured again
	// (the hypervisor stole CPU time) starts again from zero.
	measurement int
	live        *load.Live
	prev        load.LiveView
	prevAt      time.Time
	timeline    func() []observe.TimelineSample

	hub    *hub
	ln     net.Listener
	srv    *http.Server
	served chan error
	stopc  chan struct{}
	ticker sync.WaitGroup
	once   sync.Once
}

// New is a dashboard that serves nothing yet (Listen, or Handler in tests).
func New() *Dashboard {
	return &Dashboard{Period: time.Second, WriteWait: 10 * time.Second, hub: newHub(), stopc: make(chan struct{})}
}

// Listen serves d on addr (host:port; ":port" or "port" alone listen on
// loopback) and starts its frames. The error names the flag and address.
func (d *Dashboard) Listen(addr string) error {
	ln, err := listen.On("--dashboard-listen", addr, DefaultAddr)
	if err != nil {
		return err
	}
	d.ln = ln
	d.srv = &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 5 * time.Second}
	d.served = make(chan error, 1)
	go func() { d.served <- d.srv.Serve(ln) }()
	d.Start()
	return nil
}

// Start makes a frame every Period until Close (Listen calls it).
func (d *Dashboard) Start() {
	d.ticker.Add(1)
	go func() {
		defer d.ticker.Done()
		t := time.NewTicker(d.Period)
		defer t.Stop()
		for {
			select {
			case <-d.stopc:
				return
			case <-t.C:
				d.Tick()
			}
		}
	}()
}

// Addr is the address the dashboard listens on ("" before Listen).
func (d *Dashboard) Addr() string {
	if d.ln == nil {
		return ""
	}
	return d.ln.Addr().String()
}

// Exposed says whether the dashboard listens off loopback (the caller
// warns: the page names the run's functions and cells).
func (d *Dashboard) Exposed() bool { return listen.Exposed(d.ln) }

// RunStarted says which run this is, its cells, and where its timeline is.
func (d *Dashboard) RunStarted(runID, name, platform string, cells int, timeline func() []observe.TimelineSample) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.started, d.run, d.name, d.platform, d.cellsTotal, d.timeline = time.Now(), runID, name, platform, cells, timeline
}

// CellStarted says a cell's load began, counted in live.
func (d *Dashboard) CellStarted(pc plan.Cell, live *load.Live) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cell == nil || d.cell.ID != pc.ID {
		d.measurement = 1 // a new cell; the same one's load again is a warm-up's end or MeasuringAgain's
	}
	c := pc
	d.cell, d.live, d.cellStart, d.prevAt = &c, live, time.Now(), time.Now()
	d.prev = load.LiveView{}
}

// MeasuringAgain says pc is measured again (runner.AgainWatcher): its
// next CellStarted's counts are of measurement n, from zero.
func (d *Dashboard) MeasuringAgain(pc plan.Cell, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cell != nil && d.cell.ID == pc.ID {
		d.measurement = n
	}
}

// CellEnded sends the kept cell's figures.
func (d *Dashboard) CellEnded(c *results.Cell, done, total int) {
	d.mu.Lock()
	d.cell, d.live = nil, nil
	d.cellsDone, d.cellsTotal = done, total
	d.mu.Unlock()
	if c == nil {
		return
	}
	cd := cellDone(c)
	cd.CellsDone, cd.Total = done, total
	if ev, err := event("cell", cd); err == nil {
		d.hub.publish("cell", ev)
	}
}

// Progress says how many cells are done of how many.
func (d *Dashboard) Progress(done, total int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cellsDone, d.cellsTotal = done, total
}

// Tick makes and sends a frame (nothing before the run began).
func (d *Dashboard) Tick() {
	f, ok := d.frame(time.Now())
	if !ok {
		return
	}
	if ev, err := event("frame", f); err == nil {
		d.hub.publish("frame", ev)
	}
}

// frame is the run at t.
func (d *Dashboard) frame(t time.Time) (Frame, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.run == "" {
		return Frame{}, false
	}
	f := Frame{TMs: t.Sub(d.started).Milliseconds(), Run: d.run, Name: d.name, Platform: d.platform, CellsDone: d.cellsDone, CellsTotal: d.cellsTotal}
	if d.cell != nil {
		var v load.LiveView
		d.live.Read(&v) // a nil live reads zeros
		f.Cell = now(*d.cell, v, d.prev, t.Sub(d.cellStart), t.Sub(d.prevAt))
		f.Cell.Measurement = d.measurement
		d.prev, d.prevAt = v, t
	}
	if d.timeline != nil {
		f.Functions = functions(d.timeline())
	}
	return f, true
}

// Finish sends how the run ended and every cell it kept: the page shows
// the final summary (it keeps it after the server is gone).
func (d *Dashboard) Finish(status string, runErr error, cells []results.Cell) {
	d.Tick()
	fin := Final{Status: status, Cells: make([]CellDone, 0, len(cells))}
	if runErr != nil {
		fin.Error = runErr.Error()
	}
	for i := range cells {
		fin.Cells = append(fin.Cells, cellDone(&cells[i]))
	}
	if ev, err := event("done", fin); err == nil {
		d.hub.publish("done", ev)
	}
}

// Close stops the frames, ends every stream once it has sent what it
// holds (the final summary with it), and stops serving.
func (d *Dashboard) Close() error {
	var err error
	d.once.Do(func() {
		close(d.stopc)
		d.ticker.Wait()
		d.hub.close()
		if d.srv == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		err = d.srv.Shutdown(ctx)
		if serr := <-d.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	})
	return err
}
