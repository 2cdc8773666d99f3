package load

import (
	"context"
	"errors"
	"time"
)

// DefaultGrace is how long requests still in flight when a timed run ends
// may take to complete (k6's gracefulStop): the run's duration is then a
// bound on its wall time, give or take this, whatever a server does. A
// request cut at its end is counted as a timeout (class timeout) with the
// latency it had reached, a lower bound, and counted in Result.CutAtEnd.
// Before (issue 60), they waited for the client timeout: `--rate 1e7 -d 2s`
// took 62 s against a server that stopped answering.
const DefaultGrace = 30 * time.Second

// errRunEnd is the cause of a worker context that ended with its run's
// grace, not with an interrupt.
var errRunEnd = errors.New("the run's duration and its grace are over")

// graceCtx is the context a timed run's requests are sent under: it ends
// grace after the run's end (end from start; 0: untimed, ctx itself).
// grace 0 is DefaultGrace; a negative grace cuts at the end itself.
func graceCtx(ctx context.Context, start time.Time, end, grace time.Duration) (context.Context, context.CancelFunc) {
	if end <= 0 {
		return ctx, func() {}
	}
	switch {
	case grace == 0:
		grace = DefaultGrace
	case grace < 0:
		grace = 0
	}
	return context.WithDeadlineCause(ctx, start.Add(end+grace), errRunEnd)
}

// cutAtEnd says whether a request failed because its run's grace was over
// (not an interrupt of the run).
func (w *worker) cutAtEnd() bool {
	return errors.Is(context.Cause(w.ctx), errRunEnd)
}
