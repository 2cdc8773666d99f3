package kube

import (
	"context"
	"time"
)

// Poll calls done at once and then every interval until it reports true,
// returns an error (which Poll returns), or timeout passes (ErrTimeout)
// or ctx ends (ctx's error). done gets the context bounded by timeout, for
// the API calls it makes. Every wait of the adapters (replicas, pods gone,
// a platform's Ready status) goes through it; the caller words the
// timeout from the last state it saw. A call of done that fails because
// the timeout cut it short is ErrTimeout too, so the caller's words about
// the last state are what the user reads, not the cut call's: client-go's
// rate limiter refuses a call whose wait would pass the deadline before the
// deadline passes ("client rate limiter Wait returned an error: rate:
// Wait(n=1) would exceed context deadline").
func Poll(ctx context.Context, timeout, interval time.Duration, done func(context.Context) (bool, error)) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ok, err := done(ctx)
		if err != nil {
			if parent.Err() == nil && timeUp(ctx, timeout) {
				return ErrTimeout
			}
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return ErrTimeout
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// timeUp says whether ctx's deadline has passed or is near: less than a
// quarter of timeout away, and at most a second (a call that failed then
// was cut short by it).
func timeUp(ctx context.Context, timeout time.Duration) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < min(time.Second, timeout/4)
}
