package experiment

import (
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// A cell with 7 of 20 requests failed breaks the default expectation,
// but the steps of a coldrate curve and of a capacity search are judged
// by their own verdicts (sustained; the SLO), not by it: only a capacity
// search's validation step is held to it.
func TestExpectLeavesCurveStepsToTheirOwnVerdict(t *testing.T) {
	var sp spec.Spec
	sp.ApplyDefaults()
	failing := func() *results.Cell {
		return &results.Cell{Cell: plan.Cell{ID: "f/x/r=1", Function: "f"}, Valid: true,
			Requests: results.Requests{Total: 20, Succeeded: 13, Failed: 7}, Errors: map[string]int64{"timeout": 7}}
	}
	sweep := failing()
	Expect(sp.Expect, sweep)
	if sweep.Expect == nil || sweep.Expect.Held {
		t.Fatalf("a sweep cell with 35 %% failed: %+v", sweep.Expect)
	}
	step := failing()
	step.ColdRate = &results.ColdRateStep{Step: 2, RatePerS: 0.5, Calls: 20, Cold: 13}
	search := failing()
	search.Capacity = &results.CapacityStep{Phase: "search"}
	for name, c := range map[string]*results.Cell{"coldrate step": step, "capacity search step": search} {
		Expect(sp.Expect, c)
		if c.Expect != nil {
			t.Errorf("%s judged by the expectation: %+v", name, c.Expect)
		}
	}
	validate := failing()
	validate.Capacity = &results.CapacityStep{Phase: "validate"}
	Expect(sp.Expect, validate)
	if validate.Expect == nil || validate.Expect.Held {
		t.Errorf("a capacity validation step not held to the expectation: %+v", validate.Expect)
	}
}
