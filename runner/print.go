package runner

import (
	"fmt"
	"io"

	"github.com/faasbench/faasbench/results"
)

func fmtMs(p *float64) string {
	if p == nil {
		return "n<min"
	}
	return fmt.Sprintf("%.3f", *p)
}

// printRow writes a cell's line of the run's table.
func printRow(w io.Writer, c *results.Cell) {
	errs := "none"
	if len(c.Errors) > 0 {
		errs = results.FormatCounts(c.Errors, " ")
	}
	mark := ""
	if c.Interrupted {
		mark = " (interrupted)"
	}
	switch {
	case c.Batch != nil:
		b := c.Batch
		fmt.Fprintf(w, "%-28s batch of %d in %.2f s: %.2f items/s, %.2f MiB/s, K=%d, %d retries, %d failed%s\n", c.ID, b.Items, b.DurationS,
			b.ItemsPerS, b.MiBPerS, b.InFlight, b.Retries, b.Failed, mark)
		return
	case c.Cold != nil && c.Cold.ColdShare != nil:
		fmt.Fprintf(w, "%-28s after %.1f s idle: %d of %d calls flagged cold by the function%s\n", c.ID, c.Cold.IdleS, c.Cold.FlaggedCold, c.Cold.Iterations, mark)
		return
	case c.Cold != nil:
		cr := c.Cold
		fmt.Fprintf(w, "%-28s cold mean %.2f ms (%d verified of %d), warm mean %.3f ms, waiting for the instance %.2f ms%s\n", c.ID,
			cr.ColdMs.Mean, cr.Verified, cr.Iterations, cr.WarmMs.Mean, cr.WaitMs.Mean, mark)
		return
	}
	fmt.Fprintf(w, "%-28s %10.1f %9s %9s %9s %9.3f  %s%s\n", c.ID, c.ThroughputRPS, fmtMs(c.SuccessLatencyMs.P50),
		fmtMs(c.SuccessLatencyMs.P90), fmtMs(c.SuccessLatencyMs.P99), c.LatencyMs.Max, errs, mark)
	if s := c.Scaling; s != nil {
		fmt.Fprintf(w, "%-28s replicas: max %d (first scale-up %s s, max at %s s), back down %s s after the load, %d errors while scaling\n", "",
			s.MaxReplicas, fmtS(s.FirstScaleUpS), fmtS(s.TimeToMaxS), fmtS(s.ScaleDownS), s.ErrorsScaling)
	}
}

func fmtS(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *p)
}
