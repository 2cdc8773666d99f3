package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

// drain waits, after a measurement of pc that began at began, for a
// platform that goes on running invocations after their replies
// (platform.Drainer: OpenWhisk) to finish the cell's, and records the wait
// in out. When its bound passed first, the next measurement is marked
// (c.undrained): it began beside this one's backlog. A platform API's
// failure is a warning, not the run's end: the next measurement is marked
// the same way, since nothing says the backlog was gone.
func (c *cells) drain(ctx context.Context, pc plan.Cell, began time.Time, out *results.Cell) {
	dr, ok := c.p.(platform.Drainer)
	if !ok || out == nil || pastThePlatform(pc) {
		return
	}
	okN := out.Requests.Succeeded
	open := max(out.Requests.Total-okN, 0)
	d, err := dr.Drain(ctx, pc.Function, began, okN, open)
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("not drained: %v", err))
		c.undrained = fmt.Sprintf("cell %s's invocations may still have been running (%v)", pc.ID, err)
		return
	}
	out.Drain = &results.Drain{AtEnd: d.AtEnd, Finished: d.Finished, WaitedS: d.Waited.Seconds(), Done: d.Done, Why: d.Why}
	if d.Finished > d.AtEnd {
		fmt.Fprintf(c.o.Log, "cell %s: %d of its invocations finished after its last reply (waited %s for them)\n", pc.ID, d.Finished-d.AtEnd, d.Waited.Round(time.Millisecond))
	}
	if !d.Done && ctx.Err() == nil {
		out.Warnings = append(out.Warnings, "not drained: "+d.Why)
		c.undrained = fmt.Sprintf("cell %s's invocations were still running: %s", pc.ID, d.Why)
	}
}

// pastThePlatform says whether pc's calls went past the platform (baseline.via direct or server, batch.native):
// none of them ran in it, so nothing of theirs is left to drain (a drain would wait its quiet time for nothing).
func pastThePlatform(pc plan.Cell) bool {
	via, _ := pc.Params.Get("via")
	return pastGateway(via) || via == "native"
}

// besideBacklog marks out invalid when the measurement before it left the
// platform running its invocations (drain), and forgets that.
func (c *cells) besideBacklog(out *results.Cell) {
	if c.undrained == "" || out == nil {
		return
	}
	out.Valid = false
	out.Warnings = append(out.Warnings, "invalid: began beside the previous measurement's backlog: "+c.undrained)
	c.undrained = ""
}
