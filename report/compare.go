package report

import (
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Metric is a figure compared across runs, one value per repetition.
type Metric struct {
	Name           string
	HigherIsBetter bool
	Of             func(results.Cell) (float64, bool)
}

// Metrics are the figures faasbench compare tests by default.
var Metrics = []Metric{
	{Name: "throughput", HigherIsBetter: true, Of: func(c results.Cell) (float64, bool) { return c.ThroughputRPS, c.Requests.Succeeded > 0 }},
	{Name: "p50", Of: func(c results.Cell) (float64, bool) { return deref(c.SuccessLatencyMs.P50) }},
	{Name: "p99", Of: func(c results.Cell) (float64, bool) { return deref(c.SuccessLatencyMs.P99) }},
	{Name: "error_rate", Of: func(c results.Cell) (float64, bool) {
		if c.Requests.Total == 0 {
			return 0, false
		}
		// +1 request in both: a rate of zero still has a ratio.
		return float64(c.Requests.Failed+1) / float64(c.Requests.Total+1), true
	}},
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Tests pairs the cells of two runs by key (the cell without its
// repetition) and makes a test per metric; keys in only one run are listed.
func Tests(a, b Run, metrics []Metric) (tests []stats.Test, onlyA, onlyB []string) {
	ka, order := byKey(a)
	kb, orderB := byKey(b)
	for _, k := range order {
		cb, ok := kb[k]
		if !ok {
			onlyA = append(onlyA, k)
			continue
		}
		for _, m := range metrics {
			t := stats.Test{Key: k, Metric: m.Name, HigherIsBetter: m.HigherIsBetter}
			for _, c := range ka[k] {
				if v, ok := m.Of(c); ok && !c.Interrupted {
					t.A = append(t.A, v)
				}
			}
			for _, c := range cb {
				if v, ok := m.Of(c); ok && !c.Interrupted {
					t.B = append(t.B, v)
				}
			}
			tests = append(tests, t)
		}
	}
	for _, k := range orderB {
		if _, ok := ka[k]; !ok {
			onlyB = append(onlyB, k)
		}
	}
	return tests, onlyA, onlyB
}

func byKey(r Run) (map[string][]results.Cell, []string) {
	m := map[string][]results.Cell{}
	var order []string
	for _, c := range r.Summary.Cells {
		if _, ok := m[c.Key]; !ok {
			order = append(order, c.Key)
		}
		m[c.Key] = append(m[c.Key], c)
	}
	return m, order
}
