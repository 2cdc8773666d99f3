package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// runOf is a run of 3 repetitions of a sweep cell with efficiency, cost and
// the platform's footprint scaled by k, an autoscale cell under-provisioning
// by under %, and a capacity search per repetition validated at capacity[r].
func runOf(k, under float64, capacity []float64) Run {
	var cells []results.Cell
	for r := 1; r <= 3; r++ {
		cpu, per := 10*k+float64(r), 2*k
		c := results.Cell{Cell: plan.Cell{ID: fmt.Sprintf("f/c=1/r=%d", r), Key: "f/c=1", Function: "f", Repetition: r},
			ThroughputRPS: 100, Requests: results.Requests{Total: 100, Succeeded: 100},
			Efficiency: &results.Efficiency{Samples: 3, PerMillion: results.EfficiencyPerMillion{CPUSecondsUsed: cpu, GBSecondsUsed: 1},
				Cost: &results.Cost{Currency: "USD", PerMillionUsed: cpu / 100}},
			PlatformFootprint: &results.Footprint{Samples: 3, PerMillionCPUSeconds: &per}}
		a := results.Cell{Cell: plan.Cell{ID: fmt.Sprintf("f/auto/r=%d", r), Key: "f/auto", Function: "f", Repetition: r},
			Requests: results.Requests{Total: 100, Succeeded: 100},
			Scaling:  &results.ScalingResult{Elasticity: &results.Elasticity{AccuracyUnder: under + float64(r), AccuracyOver: 0}}}
		cells = append(cells, c, a)
		for i, rate := range []float64{capacity[r-1] * 2, capacity[r-1]} {
			verdict := results.Misses
			if i == 1 {
				verdict = results.Meets
			}
			cells = append(cells, results.Cell{Cell: plan.Cell{ID: fmt.Sprintf("f/cap/rate=%g/r=%d", rate, r), Key: fmt.Sprintf("f/cap/rate=%g", rate), Function: "f", Repetition: r},
				Capacity: &results.CapacityStep{Phase: "validate", RateRPS: rate, Verdict: verdict}})
		}
	}
	return Run{Summary: results.Summary{Cells: cells}}
}

// compare pairs the runs and returns each (key, metric)'s comparison.
func compareRuns(t *testing.T, a, b Run) map[string]stats.Comparison {
	t.Helper()
	tests, _, _ := Tests(a, b, Metrics)
	out := map[string]stats.Comparison{}
	for _, c := range stats.Compare(tests, 0.05, 0.05) {
		out[c.Key+" "+c.Metric] = c
	}
	return out
}

// Cost, efficiency, the platform's footprint, elasticity and capacity are
// compared with the rest, each the right way up; capacity's search steps
// are not compared as cells, its validated capacity is.
func TestCompareCostElasticityAndCapacity(t *testing.T) {
	cheap := runOf(1, 0, []float64{100, 110, 105})
	dear := runOf(3, 50, []float64{200, 210, 205})
	got := compareRuns(t, cheap, dear)
	for key, want := range map[string]string{
		"f/c=1 cpu_s_per_M":          stats.Worse,
		"f/c=1 cost_per_M":           stats.Worse,
		"f/c=1 platform_cpu_s_per_M": stats.Worse,
		"f/c=1 gb_s_per_M":           stats.Equivalent,
		"f/auto under_provisioning":  stats.Worse,
		"f/cap capacity_rps":         stats.Better,
	} {
		c, ok := got[key]
		if !ok {
			t.Errorf("%s: not compared (have %v)", key, keysOf(got))
			continue
		}
		if c.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", key, c.Verdict, c.Reason, want)
		}
	}
	if c := got["f/cap capacity_rps"]; c.A.N != 3 || c.A.Median != 105 || c.B.Median != 205 {
		t.Errorf("capacity A %+v B %+v: want the validated rates 100-110 against 200-210", c.A, c.B)
	}
	for k := range got {
		if slices.Contains([]string{"f/cap/rate=200", "f/cap/rate=100"}, k[:len(k)-len(got[k].Metric)-1]) {
			t.Errorf("%s: a search step compared as a cell", k)
		}
	}
	if _, ok := got["f/auto cost_per_M"]; ok {
		t.Error("cost compared for a cell with no cost in either run")
	}
}

func keysOf(m map[string]stats.Comparison) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
