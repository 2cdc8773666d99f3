package platform

import (
	"context"
	"time"
)

// Drainer is an optional capability: a platform that goes on running the
// invocations its callers stopped waiting for (OpenWhisk: a blocking call
// answered 202 once the controller's wait is over, or a gateway's 504,
// leaves the activation queued, and it runs) waits, after a cell, until
// the function's invocations accepted since the cell began have finished:
// the next cell must not measure this one's backlog.
type Drainer interface {
	// Drain returns once name's invocations since since have finished, or
	// its own bound passed, or ctx ended: ok of them (the replies that
	// carried the function's answer) and open (the replies that did not
	// say the invocation ended: accepted and not ready, a gateway's
	// timeout, no reply at all) all finished, or none more finished for the
	// platform's quiet period. An error is the platform's API failing, not
	// the bound.
	Drain(ctx context.Context, name string, since time.Time, ok, open int64) (Drained, error)
}

// Drained is what a drain waited for.
type Drained struct {
	// AtEnd is how many of the cell's invocations had finished when the
	// drain began, Finished how many when it ended: the difference ran
	// after the cell's last reply.
	AtEnd, Finished int64
	// Waited is how long the drain took.
	Waited time.Duration
	// Done is false when the bound passed first: the platform may still be
	// running the cell's invocations (Why says how many it saw).
	Done bool
	Why  string
}
