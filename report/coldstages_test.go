package report

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
)

// One repetition: each stage's mean with its interval, then the sum against the latency; two: the
// repetitions' median [range] per stage; none without stages.
func TestStagesDetail(t *testing.T) {
	stages := func(created, ready float64) *results.ColdStages {
		return &results.ColdStages{Samples: 200, SumMs: created + ready, LatencyMs: created + ready + 10, Gap: 10 / (created + ready + 10),
			Stages: []results.ColdStage{{From: "sent", To: "created", MeanMs: created, CILoMs: f(created - 1), CIHiMs: f(created + 1)},
				{From: "created", To: "first_byte", MeanMs: ready}}}
	}
	one := []results.Cell{{Cold: &results.ColdResult{Stages: stages(20, 70)}}}
	got := stagesDetail(one)
	for _, want := range []string{"over 200 cold starts", "sent→created 20 (95 % CI 19–21)", "created→first byte 70;", "add up to 90 of the mean latency 100 ms (10 % left"} {
		if !strings.Contains(got, want) {
			t.Errorf("one repetition: %q lacks %q", got, want)
		}
	}
	two := append(one, results.Cell{Cold: &results.ColdResult{Stages: stages(30, 70)}})
	got = stagesDetail(two)
	for _, want := range []string{"over 400 cold starts", "sent→created 25 [20–30]", "created→first byte 70"} {
		if !strings.Contains(got, want) {
			t.Errorf("two repetitions: %q lacks %q", got, want)
		}
	}
	if got := stagesDetail([]results.Cell{{Cold: &results.ColdResult{}}}); got != "" {
		t.Errorf("no stages: %q", got)
	}
}

// A coldstart row's detail carries the stages after the phases.
func TestColdstartDetailHasStages(t *testing.T) {
	c := results.Cell{Cold: &results.ColdResult{Verified: 1, Iterations: 1, Stages: &results.ColdStages{Samples: 1, SumMs: 5, LatencyMs: 6,
		Stages: []results.ColdStage{{From: "sent", To: "ready", MeanMs: 5}}}}}
	if got := detail([]results.Cell{c}); !strings.Contains(got, "its stages, mean ms over 1 cold starts: sent→ready 5") {
		t.Errorf("%q: want the stages", got)
	}
}
