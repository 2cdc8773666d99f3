package results

import (
	"testing"

	"github.com/faasbench/faasbench/plan"
)

// The knee is the highest rate of an unbroken run of sustained steps from
// the first, per curve and repetition: a later sustained step (keep_going)
// does not move it, a missing step ends it, and a curve whose first step
// failed has knee 0.
func TestColdRateKnees(t *testing.T) {
	cell := func(key string, rep, step int, rate float64, ok bool) Cell {
		return Cell{Cell: plan.Cell{Key: key, Repetition: rep}, ColdRate: &ColdRateStep{Step: step, RatePerS: rate, BoundMs: 5000, Sustained: ok, Why: map[bool]string{false: "falling behind"}[ok]}}
	}
	cells := []Cell{
		cell("f/coldrate=1/step=1", 1, 1, 1, true),
		cell("f/coldrate=2/step=2", 1, 2, 2, true),
		cell("f/coldrate=5/step=3", 1, 3, 5, false),
		cell("f/coldrate=10/step=4", 1, 4, 10, true), // keep_going: past the knee all the same
		cell("f/coldrate=1/step=1", 2, 1, 1, false),
		cell("g/coldrate=2/step=2", 1, 2, 2, true), // its step 1 is missing
		cell("h/coldrate=1/step=1", 1, 1, 1, true),
		{Cell: plan.Cell{Key: "f/c=1", Repetition: 1}}, // not a coldrate cell
	}
	got := ColdRateKnees(cells)
	want := []Knee{
		{Curve: "f", Repetition: 1, KneePerS: 2, Steps: 4, BoundMs: 5000, Past: "5 a second: falling behind"},
		{Curve: "f", Repetition: 2, KneePerS: 0, Steps: 1, BoundMs: 5000, Past: "1 a second: falling behind"},
		{Curve: "g", Repetition: 1, KneePerS: 0, Steps: 1, BoundMs: 5000, Past: "step 1 is missing"},
		{Curve: "h", Repetition: 1, KneePerS: 1, Steps: 1, BoundMs: 5000},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("curve %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
