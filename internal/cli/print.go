package cli

import (
	"fmt"
	"sort"

	"github.com/faasbench/faasbench/stats"
)

func pct(p *float64) string {
	if p == nil {
		return "n too small"
	}
	return fmt.Sprintf("%.3f ms", *p)
}

func printLoad(a *app, total, ok int64, rps, elapsed float64, succ, all stats.Percentiles, errs map[string]int64) {
	w := a.env.Stdout
	fmt.Fprintf(w, "requests   %d (%d succeeded) in %.3f s\n", total, ok, elapsed)
	fmt.Fprintf(w, "throughput %.1f successful req/s\n", rps)
	fmt.Fprintf(w, "latency (successes)  p50 %s  p90 %s  p99 %s  max %.3f ms\n", pct(succ.P50), pct(succ.P90), pct(succ.P99), succ.Max)
	fmt.Fprintf(w, "latency (all)        p50 %s  p99 %s  max %.3f ms\n", pct(all.P50), pct(all.P99), all.Max)
	if len(errs) == 0 {
		fmt.Fprintln(w, "errors     none")
		return
	}
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "errors     %-14s %d\n", k, errs[k])
	}
}
