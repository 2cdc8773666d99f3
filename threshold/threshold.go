// Package threshold is faasbench run's pass/fail criteria (--threshold), in
// the manner of k6's thresholds: an expression over a cell's figures, such
// as p99<100ms, errors<0.1% or rps>=500, held by every cell of a run, or
// over every window of N seconds of a cell (p99[10s]<100ms). A threshold may
// abort the run when a cell breaks it (p99<100ms:abort, k6's abortOnFail).
package threshold

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Metrics a threshold can read, with the unit its value is in.
var Metrics = map[string]string{
	"p50": "ms", "p90": "ms", "p95": "ms", "p99": "ms", "p99.9": "ms", "max": "ms", "mean": "ms",
	"errors": "share", "rps": "req/s",
}

// Threshold is one parsed --threshold.
type Threshold struct {
	// Expr is the flag's text, as given.
	Expr   string `json:"expr"`
	Metric string `json:"metric"`
	// WindowS is the window in seconds (0: the whole cell).
	WindowS int    `json:"window_s,omitempty"`
	Op      string `json:"op"`
	// Value is in the metric's unit: ms for latencies, a share (0..1) for
	// errors, requests per second for rps.
	Value float64 `json:"value"`
	// Abort stops the run when a cell breaks the threshold.
	Abort bool `json:"abort,omitempty"`
}

var grammar = regexp.MustCompile(`^\s*([a-z0-9.]+)\s*(?:\[\s*([0-9]+)\s*s\s*\])?\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ms|s|us|µs|%)?\s*(:abort)?\s*$`)

// Parse reads one threshold: METRIC[ [Ns] ] OP VALUE[UNIT][:abort].
func Parse(s string) (Threshold, error) {
	m := grammar.FindStringSubmatch(s)
	if m == nil {
		return Threshold{}, fmt.Errorf("--threshold %q: want METRIC[[Ns]]OP VALUE[UNIT][:abort], e.g. p99<100ms, p99[10s]<250ms, errors<0.1%%, rps>=500 (metrics: %s)", s, names())
	}
	t := Threshold{Expr: strings.TrimSpace(s), Metric: m[1], Op: m[3], Abort: m[6] != ""}
	unit, ok := Metrics[t.Metric]
	if !ok {
		return Threshold{}, fmt.Errorf("--threshold %q: no metric %q (metrics: %s)", s, t.Metric, names())
	}
	if m[2] != "" && t.Metric == "mean" {
		return Threshold{}, fmt.Errorf("--threshold %q: mean has no window (a window's latencies are kept in buckets): use a percentile", s)
	}
	if m[2] != "" {
		w, err := strconv.Atoi(m[2])
		if err != nil || w < 1 || w > 3600 {
			return Threshold{}, fmt.Errorf("--threshold %q: window %ss: want 1 to 3600 seconds", s, m[2])
		}
		t.WindowS = w
	}
	v, err := strconv.ParseFloat(m[4], 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("--threshold %q: value %q: %w", s, m[4], err)
	}
	switch u := m[5]; {
	case unit == "ms" && (u == "" || u == "ms"):
	case unit == "ms" && u == "s":
		v *= 1000
	case unit == "ms" && (u == "us" || u == "µs"):
		v /= 1000
	case unit == "share" && u == "%":
		v /= 100
	case unit == "share" && u == "":
		if v > 1 {
			return Threshold{}, fmt.Errorf("--threshold %q: errors is a share: %v is over 1 (write %v%%)", s, v, v)
		}
	case unit == "req/s" && u == "":
	default:
		return Threshold{}, fmt.Errorf("--threshold %q: %s is in %s, not %q", s, t.Metric, unit, u)
	}
	t.Value = v
	return t, nil
}

// ParseAll parses every --threshold.
func ParseAll(ss []string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(ss))
	for _, s := range ss {
		t, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// holds says whether v satisfies the threshold's comparison.
func (t Threshold) holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	default:
		return v >= t.Value
	}
}

// worse says whether a is worse than b for this threshold (the window to report).
func (t Threshold) worse(a, b float64) bool {
	if t.Op == "<" || t.Op == "<=" {
		return a > b
	}
	return a < b
}

func names() string {
	return "p50, p90, p95, p99, p99.9, max, mean (ms, s or us), errors (a share, or %), rps"
}
