// Package experiment runs experiments: it deploys functions on a platform,
// drives each cell of the plan with the load engine, and records figures in
// the run directory as it goes.
package experiment

import (
	"fmt"
	"math"
	"strconv"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// CellFigures turns a load result, and what the generator saw of itself
// (cores is its CPU budget), into the summary figures of one cell.
func CellFigures(pc plan.Cell, platformName, model string, res *load.Result, gen []load.GeneratorWindow, cores int) results.Cell {
	c := results.Cell{
		Cell:     pc,
		Platform: platformName, Model: model,
		StartedAt: res.Start.UTC(),
		ElapsedS:  res.Elapsed.Seconds(),
		Requests: results.Requests{Total: res.Total(), Succeeded: res.Succeeded(),
			Failed: res.Total() - res.Succeeded(), Aborted: res.Aborted, CutAtEnd: res.CutAtEnd},
		Errors:           map[string]int64{},
		ThroughputRPS:    res.Throughput(),
		LatencyMs:        stats.Of(res.AllLatency()),
		LatencyByClassMs: map[string]stats.Percentiles{},
		HandlerMs:        stats.Of(res.HandlerHist()),
		OverheadMs:       stats.Of(res.OverheadHist()),
		ServiceLatencyMs: stats.Of(res.AllService()),
		GeneratorLagMs:   stats.Of(res.LagHist()),
		OfferedRPS:       res.OfferedRate,
		ColdStarts:       res.ColdStarts,
		ColdKinds:        res.ColdKinds,
		Instances:        res.Instances,
		BytesIn:          res.BytesIn,
		BytesOut:         res.BytesOut,
		Interrupted:      res.Interrupted,
		Behind:           res.Behind,
		Warnings:         []string{},
	}
	for cl := load.Class(0); cl < load.NumClasses; cl++ {
		if res.Latency[cl] == nil {
			continue
		}
		c.LatencyByClassMs[cl.String()] = stats.Of(res.Latency[cl])
		if cl != load.ClassOK {
			c.Errors[cl.String()] = res.Counts[cl]
		}
	}
	for st, n := range res.Statuses {
		if c.Statuses == nil {
			c.Statuses = map[string]int64{}
		}
		c.Statuses[strconv.Itoa(st)] = n
	}
	if ok := res.Latency[load.ClassOK]; ok != nil {
		c.SuccessLatencyMs = stats.Of(ok)
		c.SuccessLatencyMs.Intervals = stats.WithinRun(ok)
	}
	for name, h := range res.Phases {
		if c.ReportedMs == nil {
			c.ReportedMs = map[string]stats.Percentiles{}
		}
		c.ReportedMs[name] = stats.Of(h)
	}
	if res.ScheduleSpan > 0 {
		c.SentRPS = float64(res.Sent()) / res.ScheduleSpan.Seconds()
	} else if res.Elapsed > 0 {
		c.SentRPS = float64(res.Sent()) / res.Elapsed.Seconds()
	}
	if n := c.LatencyMs.Clamped; n > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d latencies were over the histogram's ceiling (10 min) and are counted at it: max and the upper percentiles are lower bounds", n, c.LatencyMs.Count))
	}
	c.Windows = windows(res, gen)
	c.Breakdown = breakdown(res)
	if model == "closed" || model == "open" {
		if w := steadyState(c.Windows); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
	}
	verdict := load.Judge(res, gen, cores, load.DefaultThresholds)
	c.Valid, c.Stolen = verdict.Valid, verdict.Stolen
	for _, r := range verdict.Reasons {
		c.Warnings = append(c.Warnings, "invalid: "+r)
	}
	c.Warnings = append(c.Warnings, verdict.Warnings...)
	if res.CutAtEnd > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d request(s) were still in flight when the grace after the cell's duration was over: each is counted as a timeout with the latency it had reached, so the upper percentiles of all requests are lower bounds (load.grace, default %v)", res.CutAtEnd, load.DefaultGrace))
	}
	if res.Unsolicited > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("protocol error: the server sent %d response(s) nobody asked for; each connection was dropped, and no such response was taken as a request's reply", res.Unsolicited))
	}
	switch {
	case res.Behind != "":
		c.Valid = false
		c.Warnings = append(c.Warnings, "invalid: stopped itself, "+res.Behind+": figures cover what was measured up to there")
	case res.Interrupted:
		c.Valid = false
		c.Warnings = append(c.Warnings, "interrupted before its stop condition: figures cover what was measured")
	}
	if c.Requests.Total == 0 {
		c.Valid = false
		c.Warnings = append(c.Warnings, "no request completed")
	} else if c.Requests.Succeeded == 0 {
		c.Valid = false
		c.Warnings = append(c.Warnings, noSuccessWarning)
	}
	if c.Requests.Failed > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d requests failed (%.2f%%)", c.Requests.Failed, c.Requests.Total,
			100*float64(c.Requests.Failed)/float64(c.Requests.Total)))
	}
	return c
}

func windows(res *load.Result, gen []load.GeneratorWindow) []results.Window {
	out := make([]results.Window, 0, len(res.Windows))
	last := -1
	for i := range res.Windows {
		if res.Windows[i].Completed() > 0 || res.Windows[i].Sent > 0 {
			last = i
		}
	}
	byS := map[int]load.GeneratorWindow{}
	for _, g := range gen {
		byS[g.Second] = g
	}
	var sentSoFar, doneSoFar int64
	for i := 0; i <= last; i++ {
		w := &res.Windows[i]
		done := w.Completed()
		sentSoFar += w.Sent
		// A request dropped for lag completes without being sent: not in flight.
		doneSoFar += done - w.Counts[load.ClassGeneratorLag]
		rw := results.Window{Second: i, Sent: w.Sent, Completed: done, Succeeded: w.Counts[load.ClassOK], Failed: done - w.Counts[load.ClassOK],
			InFlight: max(sentSoFar-doneSoFar, 0), Errors: map[string]int64{}, GeneratorCPU: byS[i].CPU, Steal: byS[i].Steal}
		if i < len(res.OfferedWindows) {
			rw.Offered = res.OfferedWindows[i]
		}
		for c := load.Class(1); c < load.NumClasses; c++ {
			if w.Counts[c] > 0 {
				rw.Errors[c.String()] = w.Counts[c]
			}
		}
		if done > 0 {
			v := float64(w.LatMaxNs) / 1e6
			rw.MaxMs = &v
		}
		if done >= stats.MinSamples(0.5) {
			v := float64(w.QuantileNs(0.5)) / 1e6
			rw.P50Ms = &v
		}
		if done >= stats.MinSamples(0.99) {
			v := float64(w.QuantileNs(0.99)) / 1e6
			rw.P99Ms = &v
		}
		out = append(out, rw)
	}
	return out
}

// steadyState compares a cell's first windows (its first fifth, at least
// one second) with the rest: a throughput or median latency more than 25 %
// apart says the cell was still warming up (or something changed) and the
// whole-cell figures mix two regimes.
func steadyState(ws []results.Window) string {
	// the last window is usually partial: leave it out
	if len(ws) < 5 {
		return ""
	}
	ws = ws[:len(ws)-1]
	rate := make([]float64, len(ws))
	var p50 []float64
	for i, w := range ws {
		rate[i] = float64(w.Succeeded)
		if w.P50Ms != nil {
			p50 = append(p50, *w.P50Ms)
		}
	}
	for _, x := range []struct {
		what string
		xs   []float64
	}{{"throughput", rate}, {"median latency", p50}} {
		if len(x.xs) < len(ws) {
			continue // seconds without a median: not judged
		}
		ok, from, t := stats.Steady(x.xs)
		switch {
		case ok:
		case from < 0:
			return fmt.Sprintf("not steady: %s drifts by %+.0f %% over the cell (Mann-Kendall p = %.2g, corrected for autocorrelation ρ = %.2f): no warm-up would make it steady",
				x.what, 100*t.Relative, t.P, t.Rho)
		default:
			return fmt.Sprintf("not steady: %s settled only after %d s (MSER; the first %d s differ by more than %.0f %%): a warm-up %d s longer would do",
				x.what, from, from, 100*stats.SteadyShift, from)
		}
	}
	return ""
}

// breakdown splits the successes' mean service latency with the gateway's
// and the handler's times (nil without gateway stamps).
func breakdown(res *load.Result) *results.Breakdown {
	ok := res.Service[load.ClassOK]
	if ok == nil || res.Closed {
		ok = res.Latency[load.ClassOK] // a closed loop keeps no separate service histogram
	}
	if ok == nil || res.GwUpstream == nil || res.Handler == nil || res.GwUpstream.Count() == 0 {
		return nil
	}
	ms := func(v float64) float64 { return v / 1e6 }
	total, up, q, h := ms(ok.Mean()), ms(res.GwUpstream.Mean()), ms(res.GwQueue.Mean()), ms(res.Handler.Mean())
	b := &results.Breakdown{TotalMs: total, HandlerMs: h, InstanceMs: math.Max(0, up-h), GatewayQueueMs: q, OutsideMs: math.Max(0, total-up-q)}
	if res.GwSetup != nil && res.GwSetup.Count() == res.GwUpstream.Count() {
		setup := math.Min(ms(res.GwSetup.Mean()), b.InstanceMs)
		reply := b.InstanceMs - setup
		b.InstanceSetupMs, b.InstanceReplyMs = &setup, &reply
	}
	return b
}
