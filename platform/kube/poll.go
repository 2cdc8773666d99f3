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
// timeout from the last state it saw.
func Poll(ctx context.Context, timeout, interval time.Duration, done func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ok, err := done(ctx)
		if err != nil {
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
