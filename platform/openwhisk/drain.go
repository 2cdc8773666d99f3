package openwhisk

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// Drain waits until the activations of name that started since since have
// finished: OpenWhisk goes on running an activation whose blocking call was
// answered 202 ("Response not yet ready", after the controller's 60 s) or
// whose caller's gateway gave up (nginx's 504), and a burst larger than its
// containers can serve leaves a queue that outlives the cell (seed 004's
// memory quotas on the real node: the next functions' cells measured it).
// It polls the records' count (records appear late: a batched store, a
// stale view) until ok+open are there, or none came for DrainQuiet; bounded
// by DrainTimeout (0: it returns at once).
func (p *Platform) Drain(ctx context.Context, name string, since time.Time, ok, open int64) (platform.Drained, error) {
	start := time.Now()
	var d platform.Drained
	if p.cfg.DrainTimeout == 0 {
		d.Done, d.Why = true, "not waited for (platform.options.drain_timeout 0s)"
		return d, nil
	}
	count := func() (int64, error) { return p.c.CountActivations(ctx, name, since.UnixMilli()) }
	n, err := count()
	if err != nil {
		return d, fmt.Errorf("draining %s: %w", name, err)
	}
	d.AtEnd, d.Finished = n, n
	poll := min(time.Second, max(p.cfg.DrainQuiet/4, 10*time.Millisecond))
	changed := start
	for {
		// Every one has a record, or none came for the quiet period (a backlog's records keep coming
		// while it runs; a record can also go missing: the count would never reach ok+open).
		if d.Finished >= ok+open || time.Since(changed) >= p.cfg.DrainQuiet {
			d.Done = true
			break
		}
		if time.Since(start) >= p.cfg.DrainTimeout {
			d.Why = fmt.Sprintf("after %s, %d of the cell's activations had records (%d answered, %d open), the last %s before: OpenWhisk may still be running more",
				p.cfg.DrainTimeout, d.Finished, ok, open, time.Since(changed).Round(time.Second))
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
		n, err := count() // with ctx done, at once (no request goes out)
		if ctx.Err() != nil {
			d.Why = "interrupted"
			break
		}
		if err != nil {
			return d, fmt.Errorf("draining %s: %w", name, err)
		}
		if n != d.Finished {
			d.Finished, changed = n, time.Now()
		}
	}
	d.Waited = time.Since(start)
	return d, nil
}
