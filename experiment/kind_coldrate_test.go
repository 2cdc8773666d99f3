package experiment

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// After each step the curve adds the next rate, or ends: past the knee
// (unless keep_going), after the last rate, or with no step to decide
// from; the added cell has its rate, step and ID.
func TestColdRateNext(t *testing.T) {
	step := func(rate float64, n int, ok bool) results.Cell {
		key := "f/replicas=1" + coldRateSuffix(rate, n)
		return results.Cell{Cell: plan.Cell{ID: key + "/r=2", Key: key, Repetition: 2, Rate: rate, Kind: spec.KindColdRate,
			Params: plan.Params{{Name: "replicas", Value: "1"}, {Name: "step", Value: "1"}}},
			ColdRate: &results.ColdRateStep{Step: n, RatePerS: rate, Sustained: ok, Why: "falling behind"}}
	}
	k := coldRate{c: spec.ColdRateSpec{Rates: []float64{0.5, 2, 8}}}
	d, err := k.Next(step(0.5, 1, true), nil)
	if err != nil || len(d.Add) != 1 {
		t.Fatalf("after a sustained step: %+v %v", d, err)
	}
	next := d.Add[0]
	if n, _ := next.Params.Int("step"); n != 2 || next.Rate != 2 || next.ID != "f/replicas=1/coldrate=2/step=2/r=2" || next.Key != "f/replicas=1/coldrate=2/step=2" {
		t.Errorf("next cell %+v", next)
	}
	if r, _ := next.Params.Get("replicas"); r != "1" {
		t.Errorf("the grid point lost: %+v", next.Params)
	}
	for _, tc := range []struct {
		name string
		k    coldRate
		done results.Cell
		want string
	}{
		{"past the knee", k, step(2, 2, false), "past the knee"},
		{"the last rate", k, step(8, 3, true), "every rate measured"},
		{"no step", k, results.Cell{Cell: plan.Cell{Key: "f"}}, "no coldrate step"},
	} {
		d, err := tc.k.Next(tc.done, nil)
		if err != nil || len(d.Add) != 0 || !strings.Contains(d.Reason, tc.want) {
			t.Errorf("%s: %+v %v", tc.name, d, err)
		}
	}
	k.c.KeepGoing = true
	if d, _ := k.Next(step(2, 2, false), nil); len(d.Add) != 1 || d.Add[0].Rate != 8 || !strings.Contains(d.Reason, "keep_going") {
		t.Errorf("keep_going: %+v", d)
	}
}
