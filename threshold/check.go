package threshold

import (
	"fmt"
	"math"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Outcome is a threshold on one cell.
type Outcome struct {
	Threshold string `json:"threshold"`
	Cell      string `json:"cell"`
	Held      bool   `json:"held"`
	// Observed is the cell's figure, or its worst window's (nil: none).
	Observed *float64 `json:"observed"`
	// WindowStartS is the worst window's first second (windowed thresholds).
	WindowStartS *int `json:"window_start_s,omitempty"`
	// Note says why there is no figure, or what was left out.
	Note string `json:"note,omitempty"`
}

var quantiles = map[string]float64{"p50": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99, "p99.9": 0.999}

// Check evaluates t on a cell; b is the cell's per-second latency buckets
// (the run directory's windows/<cell>.json), needed only by a windowed
// latency threshold. A figure the cell does not have (no successful
// request, fewer requests than the percentile needs) breaks the threshold:
// a gate passes only on what was measured.
func (t Threshold) Check(c results.Cell, b *stats.Buckets) Outcome {
	o := Outcome{Threshold: t.Expr, Cell: c.ID}
	if t.WindowS > 0 {
		t.checkWindows(c, b, &o)
		return o
	}
	v, note := t.whole(c)
	o.Note = note
	if note == "" {
		o.Observed = &v
		o.Held = t.holds(v)
	}
	return o
}

func (t Threshold) whole(c results.Cell) (float64, string) {
	l := c.SuccessLatencyMs
	switch t.Metric {
	case "errors":
		if c.Requests.Total == 0 {
			return 0, "no request completed"
		}
		return float64(c.Requests.Failed) / float64(c.Requests.Total), ""
	case "rps":
		return c.ThroughputRPS, ""
	case "max", "mean":
		if l.Count == 0 {
			return 0, "no successful request"
		}
		if t.Metric == "max" {
			return l.Max, ""
		}
		return l.Mean, ""
	}
	p := map[string]*float64{"p50": l.P50, "p90": l.P90, "p95": l.P95, "p99": l.P99, "p99.9": l.P999}[t.Metric]
	if p == nil {
		return 0, fmt.Sprintf("%d successful requests: %s needs at least %d", l.Count, t.Metric, stats.MinSamples(quantiles[t.Metric]))
	}
	return *p, ""
}

// checkWindows evaluates t on every window of t.WindowS seconds of the cell
// (from its first second; the last may be shorter, and is left out of a
// rate), and keeps the worst.
func (t Threshold) checkWindows(c results.Cell, b *stats.Buckets, o *Outcome) {
	if len(c.Windows) == 0 {
		o.Note = "the cell has no per-second windows"
		return
	}
	// The buckets hold the seconds in which a request completed, in order.
	var perSecond map[int][]uint32
	if _, latency := quantiles[t.Metric]; latency {
		if b == nil {
			o.Note = "no per-second latency buckets for the cell (windows/<cell>.json)"
			return
		}
		perSecond = map[int][]uint32{}
		k := 0
		for _, w := range c.Windows {
			if w.Completed > 0 {
				if k >= len(b.Seconds) {
					o.Note = "the cell's latency buckets do not match its windows"
					return
				}
				perSecond[w.Second] = b.Seconds[k]
				k++
			}
		}
	}
	last := c.Windows[len(c.Windows)-1].Second
	held, skipped, seen := true, 0, 0
	for start := 0; start <= last; start += t.WindowS {
		end := min(start+t.WindowS, last+1) // exclusive
		v, ok := t.window(c.Windows, perSecond, b, start, end)
		// A rate needs the whole window: the cell's last seconds are cut short by its end (its elapsed time).
		if t.Metric == "rps" && (end-start < t.WindowS || (c.ElapsedS > 0 && float64(end) > c.ElapsedS)) {
			ok = false
		}
		if !ok {
			skipped++
			continue
		}
		seen++
		if !t.holds(v) {
			held = false
		}
		if o.Observed == nil || t.worse(v, *o.Observed) {
			v, s := v, start
			o.Observed, o.WindowStartS = &v, &s
		}
	}
	o.Held = held && seen > 0
	switch {
	case seen == 0:
		o.Note = fmt.Sprintf("no window of %d s had enough requests for %s", t.WindowS, t.Metric)
	case skipped > 0:
		o.Note = fmt.Sprintf("%d of %d windows were left out (too few requests for %s, or a rate's window cut short by the cell's end)", skipped, skipped+seen, t.Metric)
	}
}

// window is the figure of seconds [start, end): false when it has none.
func (t Threshold) window(ws []results.Window, perSecond map[int][]uint32, b *stats.Buckets, start, end int) (float64, bool) {
	var done, failed, ok int64
	maxMs := math.Inf(-1)
	var counts []uint64
	for _, w := range ws {
		if w.Second < start || w.Second >= end {
			continue
		}
		done += w.Completed
		failed += w.Failed
		ok += w.Succeeded
		if w.MaxMs != nil {
			maxMs = math.Max(maxMs, *w.MaxMs)
		}
		for i, n := range perSecond[w.Second] {
			for len(counts) <= i {
				counts = append(counts, 0)
			}
			counts[i] += uint64(n)
		}
	}
	switch t.Metric {
	case "rps":
		return float64(ok) / float64(end-start), true
	case "errors":
		return float64(failed) / float64(done), done > 0
	case "max":
		return maxMs, !math.IsInf(maxMs, -1)
	}
	q := quantiles[t.Metric]
	var total uint64
	for _, n := range counts {
		total += n
	}
	if total == 0 || int64(total) < stats.MinSamples(q) {
		return 0, false
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var cum uint64
	for i, n := range counts {
		cum += n
		if cum >= max(rank, 1) {
			// The bucket's upper edge: within one bucket (2^(1/PerOctave)) of the true value.
			upper := b.UpperNs(i) / 1e6
			if math.IsInf(maxMs, -1) {
				return upper, true
			}
			return math.Min(upper, maxMs), true
		}
	}
	return maxMs, true
}

// Lines words outcomes for people: a line per broken threshold and cell, and
// a count of those held.
func Lines(outs []Outcome) []string {
	var out []string
	held := 0
	for _, o := range outs {
		if o.Held {
			held++
			continue
		}
		what := "no figure"
		if o.Observed != nil {
			what = fmt.Sprintf("%.4g", *o.Observed)
			if o.WindowStartS != nil {
				what += fmt.Sprintf(" in the window from second %d", *o.WindowStartS)
			}
		}
		line := fmt.Sprintf("threshold %s: BROKEN in cell %s: %s", o.Threshold, o.Cell, what)
		if o.Note != "" {
			line += " (" + o.Note + ")"
		}
		out = append(out, line)
	}
	return append(out, fmt.Sprintf("thresholds: %d of %d held (threshold × cell)", held, len(outs)))
}

// Broken counts the outcomes that did not hold.
func Broken(outs []Outcome) int {
	n := 0
	for _, o := range outs {
		if !o.Held {
			n++
		}
	}
	return n
}
