package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// Watcher follows a run as it goes (the Prometheus exporter, livemetrics):
// the run, each cell's live counters as its load begins, each cell kept.
type Watcher interface {
	RunStarted(runID, name, platform string, cells int, timeline func() []observe.TimelineSample)
	CellStarted(pc plan.Cell, live *load.Live)
	CellEnded(c *results.Cell, done, total int)
	Progress(done, total int)
}

// AgainWatcher is a Watcher that also hears when a cell is measured again
// (the hypervisor stole CPU time: remeasure), before its next measurement's
// CellStarted: that measurement's live counters start from zero. A kind may
// start its load more than once in one measurement (a warm-up, then the
// measured load), so CellStarted alone does not say it.
type AgainWatcher interface {
	MeasuringAgain(pc plan.Cell, measurement int)
}

// progress draws a status line (cell i/N, elapsed, ETA, req/s over the
// last half second, errors, the last cell's p99) on a terminal, redrawn
// in place. A nil writer draws nothing.
type progress struct {
	w       io.Writer
	total   int
	start   time.Time
	mu      sync.Mutex
	i       int
	done    int // cells finished or skipped
	cell    string
	lastP99 string
	counter *load.Live
	stopc   chan struct{}
	wg      sync.WaitGroup
	// watch, if set, follows the cells too (Options.Watch).
	watch Watcher
	pc    plan.Cell
}

func newProgress(w io.Writer, total int, start time.Time) *progress {
	p := &progress{w: w, total: total, start: start, stopc: make(chan struct{})}
	if w == nil {
		return p
	}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.wg.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	var lastDone int64
	last := time.Now()
	for {
		select {
		case <-p.stopc:
			fmt.Fprint(p.w, "\r\033[K")
			return
		case now := <-t.C:
			p.mu.Lock()
			live, cell, i, done, p99, total := p.counter, p.cell, p.i, p.done, p.lastP99, p.total
			p.mu.Unlock()
			n, failed := live.Snapshot()
			rate := float64(n-lastDone) / now.Sub(last).Seconds()
			if n < lastDone {
				rate = float64(n) / now.Sub(last).Seconds()
			}
			lastDone, last = n, now
			el := now.Sub(p.start)
			eta := "?"
			if done > 0 {
				eta = (time.Duration(float64(el) / float64(done) * float64(total-done))).Round(time.Second).String()
			}
			fmt.Fprintf(p.w, "\r\033[Kcell %d/%d %s | %s elapsed, ETA %s | %.0f req/s, %d errors | last p99 %s ms",
				i, total, cell, el.Round(time.Second), eta, rate, failed, p99)
		}
	}
}

// live returns a counter for the cell starting now (nil without a writer).
func (p *progress) live() *load.Live {
	if p == nil || (p.w == nil && p.watch == nil) {
		return nil
	}
	l := &load.Live{}
	p.mu.Lock()
	p.counter = l
	pc := p.pc
	p.mu.Unlock()
	if p.watch != nil {
		p.watch.CellStarted(pc, l)
	}
	return l
}

func (p *progress) begin(pc plan.Cell) {
	p.mu.Lock()
	p.i, p.cell, p.pc = p.done+1, pc.ID, pc
	p.mu.Unlock()
}

// grow sets the number of cells (an adaptive kind added some).
func (p *progress) grow(total int) {
	p.mu.Lock()
	p.total = total
	done := p.done
	p.mu.Unlock()
	if p.watch != nil {
		p.watch.Progress(done, total)
	}
}

// again tells a watcher that hears it (AgainWatcher) that pc is measured
// again, measurement n, before that measurement's load starts.
func (p *progress) again(pc plan.Cell, n int) {
	if p == nil {
		return
	}
	if a, ok := p.watch.(AgainWatcher); ok {
		a.MeasuringAgain(pc, n)
	}
}

func (p *progress) skip(plan.Cell) {
	p.mu.Lock()
	p.done++
	done, total := p.done, p.total
	p.mu.Unlock()
	if p.watch != nil {
		p.watch.Progress(done, total)
	}
}

func (p *progress) end(c *results.Cell) {
	p.mu.Lock()
	p.done++
	p.lastP99 = fmtMs(c.SuccessLatencyMs.P99)
	done, total := p.done, p.total
	p.mu.Unlock()
	if p.watch != nil {
		p.watch.CellEnded(c, done, total)
	}
}

func (p *progress) stop() {
	if p.w == nil {
		return
	}
	close(p.stopc)
	p.wg.Wait()
}
