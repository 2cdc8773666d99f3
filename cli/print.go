package cli

import (
	"fmt"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

func pct(p *float64) string {
	if p == nil {
		return "n too small"
	}
	return fmt.Sprintf("%.3f ms", *p)
}

func line(name string, p stats.Percentiles) string {
	return fmt.Sprintf("%-22s p50 %s  p90 %s  p99 %s  max %.3f ms  (n=%d)", name, pct(p.P50), pct(p.P90), pct(p.P99), p.Max, p.Count)
}

func printLoad(a *app, c *results.Cell) {
	w := a.env.Stdout
	fmt.Fprintf(w, "model      %s\n", c.Model)
	fmt.Fprintf(w, "requests   %d (%d succeeded, %d failed, %d aborted) in %.3f s\n", c.Requests.Total, c.Requests.Succeeded, c.Requests.Failed, c.Requests.Aborted, c.ElapsedS)
	fmt.Fprintf(w, "throughput %.1f successful req/s\n", c.ThroughputRPS)
	if c.Model == "open" {
		fmt.Fprintf(w, "rate       offered %.1f req/s, sent %.1f req/s (on the wire; %d never sent: generator-lag)\n", c.OfferedRPS, c.SentRPS, c.Errors["generator-lag"])
	}
	fmt.Fprintln(w, line("latency (successes)", c.SuccessLatencyMs))
	fmt.Fprintln(w, line("latency (all)", c.LatencyMs))
	if c.Model == "open" {
		fmt.Fprintln(w, line("uncorrected (all)", c.ServiceLatencyMs))
		fmt.Fprintln(w, line("generator lag", c.GeneratorLagMs))
	}
	if c.HandlerMs.Count > 0 {
		fmt.Fprintln(w, line("handler (reported)", c.HandlerMs))
	}
	if len(c.Errors) == 0 {
		fmt.Fprintln(w, "errors     none")
	} else {
		for _, k := range results.SortedKeys(c.Errors) {
			fmt.Fprintf(w, "errors     %-14s %d of %d\n", k, c.Errors[k], c.Requests.Total)
		}
	}
	for _, g := range c.Generators {
		fmt.Fprintf(w, "generator  %d on %s: %d requests, clock %+.3f ± %.3f ms, began %.1f ms late, CPU ≤ %.2f of %d cores%s\n",
			g.Index, g.Host, g.Requests, g.ClockOffsetMs, g.ClockUncertaintyMs, g.LateMs, g.CPUMax, g.Cores, errSuffix(g.Error))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(a.env.Stderr, "warning: %s\n", warn)
	}
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}
