package report

import (
	"fmt"
	"strings"

	"github.com/faasbench/faasbench/results"
)

// coldRateDetail is the detail of a coldrate step's cells (one per
// repetition): what each step's cold starts did, and whether it was
// sustained.
func coldRateDetail(cs []results.Cell) string {
	var reps []string
	for _, c := range cs {
		st := c.ColdRate
		verdict := "sustained"
		if !st.Sustained {
			verdict = "not sustained: " + st.Why
		}
		reps = append(reps, fmt.Sprintf("r=%d: %d of %d calls cold, %.4g completed a second, latency growth %.0f ms a second, deploys %.3g s; %s",
			c.Repetition, st.Cold, st.Calls, st.CompletedPerS, 1000*st.LatencyGrowth, st.DeployS, verdict))
	}
	c0 := cs[0].ColdRate
	return fmt.Sprintf("cold starts offered at %v a second (step %d; each call a fresh function at zero instances; p99 bound %.0f ms): %s",
		c0.RatePerS, c0.Step, c0.BoundMs, strings.Join(reps, " | "))
}

// traceDetail is the detail of a trace replay's cells: per repetition, the
// functions replayed, the gap between intended and sent, cold starts, the
// slowdown over the functions, and the work offered against the cores.
func traceDetail(cs []results.Cell) string {
	var reps []string
	for _, c := range cs {
		tr := c.Trace
		reps = append(reps, fmt.Sprintf("r=%d: %d invocations intended, %d sent (gap %.2f %%, worst function %.2f %%, in a minute %.2f %%), %d ok, %d cold starts; %d functions called and never answered; slowdown of the others p50 %.3g, p90 %.3g, p99 %.3g; %.3g cores of work offered on %.3g (%s); deploys %.3g s",
			c.Repetition, tr.Intended, tr.Sent, 100*tr.Gap, 100*tr.WorstGap, 100*tr.WorstMinuteGap, tr.OK, tr.ColdStarts, tr.NoSuccess, tr.SlowdownP50, tr.SlowdownP90, tr.SlowdownP99,
			tr.OfferedCores, tr.Cores, tr.CoresFrom, tr.DeployS))
	}
	t0 := cs[0].Trace
	return fmt.Sprintf("trace replay of %d functions (of %d, %s; per function: %s): %s", t0.Replayed, t0.TraceFunctions, t0.Format, t0.File, strings.Join(reps, " | "))
}

// capacityDetail is the detail of a capacity search step's cells: each
// repetition's verdict, why, and goodput.
func capacityDetail(cs []results.Cell) string {
	var steps []string
	for _, c := range cs {
		st := c.Capacity
		steps = append(steps, fmt.Sprintf("r=%d step %d (%s): %s, %s; goodput %.4g req/s", c.Repetition, st.Step, st.Phase, st.Verdict, st.Reason, st.GoodputRPS))
	}
	return strings.Join(steps, " | ")
}
