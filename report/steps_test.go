package report

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// A coldrate step's detail says, per repetition, its cold calls, the rate
// completed, the latency's growth and the verdict with its reason.
func TestColdRateDetail(t *testing.T) {
	cs := []results.Cell{
		{Cell: plan.Cell{Repetition: 1}, ColdRate: &results.ColdRateStep{Step: 4, RatePerS: 0.5, Calls: 20, Cold: 20, CompletedPerS: 0.49, LatencyGrowth: 0.01, DeployS: 40, BoundMs: 10000, Sustained: true}},
		{Cell: plan.Cell{Repetition: 2}, ColdRate: &results.ColdRateStep{Step: 4, RatePerS: 0.5, Calls: 20, Cold: 13, CompletedPerS: 0.44, LatencyGrowth: 0.142, DeployS: 34, BoundMs: 10000, Why: "13 of 20 calls succeeded"}},
	}
	got := detail(cs)
	for _, want := range []string{"cold starts offered at 0.5 a second (step 4;", "p99 bound 10000 ms", "r=1: 20 of 20 calls cold, 0.49 completed a second, latency growth 10 ms a second, deploys 40 s; sustained",
		"r=2: 13 of 20 calls cold, 0.44 completed a second, latency growth 142 ms a second, deploys 34 s; not sustained: 13 of 20 calls succeeded"} {
		if !strings.Contains(got, want) {
			t.Errorf("detail lacks %q:\n%s", want, got)
		}
	}
}
