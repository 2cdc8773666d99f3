package report

import (
	"sort"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Metric is a figure compared across runs, one value per repetition.
type Metric struct {
	Name           string
	HigherIsBetter bool
	Of             func(results.Cell) (float64, bool)
	// Optional figures (efficiency, cost, elasticity) are tested only where
	// a run has them.
	Optional bool
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
	// Efficiency and cost per million successful invocations (used), where
	// the platform reported resources over the cell.
	{Name: "cpu_s_per_M", Optional: true, Of: func(c results.Cell) (float64, bool) {
		e, ok := efficient(c)
		return e.PerMillion.CPUSecondsUsed, ok && e.PerMillion.CPUSecondsUsed > 0
	}},
	{Name: "gb_s_per_M", Optional: true, Of: func(c results.Cell) (float64, bool) {
		e, ok := efficient(c)
		return e.PerMillion.GBSecondsUsed, ok && e.PerMillion.GBSecondsUsed > 0
	}},
	{Name: "cost_per_M", Optional: true, Of: func(c results.Cell) (float64, bool) {
		e, ok := efficient(c)
		if !ok || e.Cost == nil {
			return 0, false
		}
		return e.Cost.PerMillionUsed, e.Cost.PerMillionUsed > 0
	}},
	// The platform's own components' CPU per million invocations (its footprint under the load).
	{Name: "platform_cpu_s_per_M", Optional: true, Of: func(c results.Cell) (float64, bool) {
		if f := c.PlatformFootprint; f != nil && f.PerMillionCPUSeconds != nil {
			return *f.PerMillionCPUSeconds, *f.PerMillionCPUSeconds > 0
		}
		return 0, false
	}},
	// Elasticity (BUNGEE's accuracy, autoscale cells): compared as 1 + the
	// mean shortfall (excess) share of the required instances, so that a run
	// that never under-provisions still has a ratio.
	{Name: "under_provisioning", Optional: true, Of: func(c results.Cell) (float64, bool) {
		if c.Scaling == nil || c.Scaling.Elasticity == nil {
			return 0, false
		}
		return 1 + c.Scaling.Elasticity.AccuracyUnder/100, true
	}},
	{Name: "over_provisioning", Optional: true, Of: func(c results.Cell) (float64, bool) {
		if c.Scaling == nil || c.Scaling.Elasticity == nil {
			return 0, false
		}
		return 1 + c.Scaling.Elasticity.AccuracyOver/100, true
	}},
}

// efficient is c's efficiency when it has figures per million.
func efficient(c results.Cell) (results.Efficiency, bool) {
	if c.Efficiency == nil || c.Efficiency.Samples == 0 || c.Requests.Succeeded == 0 {
		return results.Efficiency{}, false
	}
	return *c.Efficiency, true
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
		if capacityStep(ka[k]) {
			continue // a search step: compared as the search's outcome (CapacityTests)
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
			if m.Optional && len(t.A) == 0 && len(t.B) == 0 {
				continue // a figure neither run has for this cell (cost without a price model)
			}
			tests = append(tests, t)
		}
	}
	tests = append(tests, CapacityTests(a, b)...)
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

// capacityStep says whether cs are kind capacity's search steps.
func capacityStep(cs []results.Cell) bool { return len(cs) > 0 && cs[0].Capacity != nil }

// Capacities are kind capacity's outcomes: for each search (function and
// grid point, without the rate), the validated capacity of each repetition
// (the highest rate whose validation run met the SLO; a repetition whose
// search validated none has no value), in the order the searches appear.
func Capacities(r Run) (map[string]map[int]float64, []string) {
	out := map[string]map[int]float64{}
	var order []string
	for _, c := range r.Summary.Cells {
		st := c.Capacity
		if st == nil {
			continue
		}
		base := results.CapacityBase(c.Key)
		if out[base] == nil {
			out[base] = map[int]float64{}
			order = append(order, base)
		}
		if st.Phase == "validate" && st.Verdict == results.Meets && !c.Interrupted {
			out[base][c.Repetition] = max(out[base][c.Repetition], st.RateRPS)
		}
	}
	return out, order
}

// CapacityTests compares the searches two runs share by their validated
// capacity, one value per repetition (higher is better).
func CapacityTests(a, b Run) []stats.Test {
	ca, order := Capacities(a)
	cb, _ := Capacities(b)
	var tests []stats.Test
	for _, k := range order {
		rb, ok := cb[k]
		if !ok {
			continue
		}
		t := stats.Test{Key: k, Metric: "capacity_rps", HigherIsBetter: true, A: values(ca[k]), B: values(rb)}
		tests = append(tests, t)
	}
	return tests
}

// values are a repetition map's values in repetition order.
func values(m map[int]float64) []float64 {
	reps := make([]int, 0, len(m))
	for r := range m {
		reps = append(reps, r)
	}
	sort.Ints(reps)
	out := make([]float64, len(reps))
	for i, r := range reps {
		out[i] = m[r]
	}
	return out
}
