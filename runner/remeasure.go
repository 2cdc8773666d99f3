package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// remeasure measures a cell again while the hypervisor's stealing made it
// invalid, up to spec steal_retries times: a starved machine's figures are
// not the platform's. A fresh-start kind gets its function deployed afresh
// (ensure), as for any cell. The reasons of every measurement dropped stay
// in the cell kept (discarded); if measuring again fails, or the run is
// interrupted, the last measurement is kept as it was, invalid.
func (c *cells) remeasure(ctx context.Context, pc plan.Cell, prog *progress, out *results.Cell) *results.Cell {
	n := spec.DefaultStealRetries
	if c.sp.StealRetries != nil {
		n = *c.sp.StealRetries
	}
	var dropped []string
	for try := 1; out != nil && out.Stolen && !out.Valid && !out.Interrupted && try <= n && ctx.Err() == nil; try++ {
		why := fmt.Sprintf("measurement %d: %s", try, strings.Join(invalidReasons(out.Warnings), "; "))
		fmt.Fprintf(c.o.Log, "cell %s: measuring again (%d of at most %d): the hypervisor stole CPU time (%s)\n", pc.ID, try, n, why)
		prog.again(pc, try+1)
		next, err := c.again(ctx, pc, prog)
		if err != nil || next == nil || ctx.Err() != nil {
			msg := "interrupted"
			if err != nil {
				msg = err.Error()
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("measuring again after the hypervisor stole CPU time failed (%s): this measurement is kept", msg))
			break
		}
		dropped = append(dropped, why)
		out = next
	}
	if out != nil && len(dropped) > 0 {
		out.Discarded = append(out.Discarded, dropped...)
		out.Warnings = append(out.Warnings, fmt.Sprintf("measured %d times: the hypervisor stole CPU time in the %d before this one (discarded)", len(dropped)+1, len(dropped)))
	}
	return out
}

// again measures a cell once more, its function made as the cell wants it.
func (c *cells) again(ctx context.Context, pc plan.Cell, prog *progress) (*results.Cell, error) {
	if err := c.ensure(ctx, pc); err != nil {
		return nil, err
	}
	out, err := c.runCell(ctx, pc, prog)
	if err == nil {
		err = c.lost()
	}
	return out, err
}

// invalidReasons are a cell's warnings that say why it is invalid.
func invalidReasons(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(w, "invalid: ") {
			out = append(out, strings.TrimPrefix(w, "invalid: "))
		}
	}
	return out
}
