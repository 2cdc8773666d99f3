package load

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Closed is the closed-loop model: Concurrency workers, each sending its
// next request when the previous reply has arrived (what wrk and hey do).
// The run stops after Duration, after Requests requests, or at whichever
// comes first when both are set. A request's intended time is its actual send
// time: a closed loop has no schedule to fall behind.
type Closed struct {
	Concurrency int
	Duration    time.Duration
	Requests    int64
	// Records, when set, receives every request of this run as a row.
	Records *RecordSink
	// Live, when set, counts requests as they complete, for a watcher.
	Live *Live
	// Workers, when set, varies the number of active workers over time (a
	// stepped, ramped or bursty closed loop: seed 003's autoscaling loads);
	// Concurrency is then at least its maximum, and Duration defaults to its
	// length. A worker above the level finishes its request and waits.
	Workers *WorkerLevels
	// StartAt, when set, is the instant the load starts (a coordinator's
	// synchronised start over several generators): Run waits for it, and
	// offsets count from it even when Run begins late (a late generator's
	// requests then show as lag, never shifted).
	StartAt time.Time
	// Grace bounds how long requests in flight at Duration's end may take
	// (0: DefaultGrace; negative: none, they are cut at the end): grace.go.
	Grace time.Duration
}

// Validate checks the configuration.
func (c Closed) Validate() error {
	switch {
	case c.Concurrency <= 0:
		return errors.New("concurrency must be at least 1")
	case c.Duration < 0:
		return errors.New("duration must not be negative")
	case c.Requests < 0:
		return errors.New("requests must not be negative")
	case c.Duration == 0 && c.Requests == 0 && c.Workers == nil:
		return errors.New("set a duration or a request count")
	case c.Workers != nil && c.Concurrency < c.Workers.Max():
		return fmt.Errorf("concurrency %d is under the workers' maximum level %d", c.Concurrency, c.Workers.Max())
	}
	return nil
}

// Run drives the target until the stop condition or ctx is done.
func (c Closed) Run(ctx context.Context, cl *Client, t Target) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Workers != nil && c.Duration == 0 {
		c.Duration = c.Workers.Length()
	}
	start, err := begin(ctx, c.StartAt)
	if err != nil {
		return nil, err
	}
	expected := c.Duration
	if expected == 0 {
		expected = 10 * time.Second
	}
	wctx, endGrace := graceCtx(ctx, start, c.Duration, c.Grace)
	defer endGrace()
	ws, err := newWorkers(wctx, cl, &t, start, expected, c.Records, c.Concurrency, true, c.Live)
	if err != nil {
		return nil, err
	}
	var issued atomic.Int64
	runAll(ws, func(w *worker) {
		for ctx.Err() == nil {
			if c.Requests > 0 && issued.Add(1) > c.Requests {
				return
			}
			if c.Duration > 0 && time.Since(start) >= c.Duration {
				return
			}
			if c.Workers != nil && !c.Workers.wait(ctx, w.index, start, c.Duration) {
				return
			}
			if !w.hit(-1, 1) {
				return
			}
		}
	})
	return mergeWorkers(ws, start, ctx.Err() != nil)
}
