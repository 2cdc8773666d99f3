package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/stats"
)

// CapacityMetric is the name of kind capacity's compared figure (CapacityTests).
const CapacityMetric = "capacity_rps"

// Gate is faasbench compare's CI gate (--fail-on): it fails when a watched
// metric of some cell is worse in B, beyond the equivalence margin, and by
// more than chance (the comparison's verdict: Holm-corrected, its interval
// excluding no change). A difference inside the margin, or one the
// repetitions cannot tell from noise, never fails it.
type Gate struct {
	// Metrics are the watched metrics; empty: every one compared.
	Metrics []string
}

// MetricNames are the metrics compare can test, in its order: each cell's
// (CellMetricNames), then kind capacity's outcome.
func MetricNames() []string { return append(CellMetricNames(), CapacityMetric) }

// CellMetricNames are the names of Metrics, the figures each cell's
// repetitions give.
func CellMetricNames() []string {
	out := make([]string, 0, len(Metrics)+1)
	for _, m := range Metrics {
		out = append(out, m.Name)
	}
	return out
}

// ParseFailOn reads --fail-on: "worse" (every metric) or
// "worse:METRIC[,METRIC...]".
func ParseFailOn(s string) (Gate, error) {
	what, list, hasList := strings.Cut(strings.TrimSpace(s), ":")
	if what != "worse" {
		return Gate{}, fmt.Errorf("--fail-on %q: want worse or worse:METRIC[,METRIC...] (metrics: %s)", s, strings.Join(MetricNames(), ", "))
	}
	if !hasList {
		return Gate{}, nil
	}
	known := map[string]bool{}
	for _, n := range MetricNames() {
		known[n] = true
	}
	var g Gate
	seen := map[string]bool{}
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		if !known[m] {
			return Gate{}, fmt.Errorf("--fail-on %q: no metric %q (metrics: %s)", s, m, strings.Join(MetricNames(), ", "))
		}
		if !seen[m] {
			seen[m] = true
			g.Metrics = append(g.Metrics, m)
		}
	}
	return g, nil
}

// watches says whether the gate watches metric.
func (g Gate) watches(metric string) bool {
	if len(g.Metrics) == 0 {
		return true
	}
	for _, m := range g.Metrics {
		if m == metric {
			return true
		}
	}
	return false
}

// GateResult is what a gate found: the comparisons that fail it, and the
// watched ones that are worse but within the margin (they do not fail it).
type GateResult struct {
	Failed       []stats.Comparison `json:"failed"`
	WithinMargin []stats.Comparison `json:"worse_within_margin"`
	Metrics      []string           `json:"metrics"`
	Margin       float64            `json:"margin"`
}

// Passed is true when no comparison fails the gate.
func (r GateResult) Passed() bool { return len(r.Failed) == 0 }

// Check applies the gate to comparisons made with margin.
func (g Gate) Check(cs []stats.Comparison, margin float64) GateResult {
	r := GateResult{Failed: []stats.Comparison{}, WithinMargin: []stats.Comparison{}, Metrics: g.Metrics, Margin: margin}
	if len(r.Metrics) == 0 {
		r.Metrics = MetricNames()
	}
	for _, c := range cs {
		if c.Verdict != stats.Worse || c.RelDiff == nil || !g.watches(c.Metric) {
			continue
		}
		if math.Abs(*c.RelDiff) > margin {
			r.Failed = append(r.Failed, c)
		} else {
			r.WithinMargin = append(r.WithinMargin, c)
		}
	}
	sort.SliceStable(r.Failed, func(i, j int) bool { return math.Abs(*r.Failed[i].RelDiff) > math.Abs(*r.Failed[j].RelDiff) })
	return r
}

// Lines words the result for people: a line per failing comparison, or why
// the gate passed.
func (r GateResult) Lines() []string {
	var out []string
	for _, c := range r.Failed {
		out = append(out, fmt.Sprintf("gate: FAILED: %s %s worse by %+.1f%% [%+.1f%%, %+.1f%%], beyond ±%.0f%%, p = %.3g after Holm's correction",
			c.Key, c.Metric, 100**c.RelDiff, 100**c.Lo, 100**c.Hi, 100*r.Margin, *c.PHolm))
	}
	if r.Passed() {
		out = append(out, fmt.Sprintf("gate: passed: no cell's %s is worse beyond ±%.0f%% by more than chance", strings.Join(r.Metrics, ", "), 100*r.Margin))
	}
	if n := len(r.WithinMargin); n > 0 {
		out = append(out, fmt.Sprintf("gate: %d worse within ±%.0f%% (not failing it)", n, 100*r.Margin))
	}
	return out
}
