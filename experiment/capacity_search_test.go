package experiment

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/results"
)

// run drives the search against a server whose SLO holds up to limit
// (verdict can override a step), and returns the steps and the outcome.
func runSearch(t *testing.T, c searchConfig, verdict func(rate float64, phase string, n int) string) ([]searchStep, float64, string) {
	t.Helper()
	var steps []searchStep
	for range 100 {
		rate, phase, done, capacity, why := searchNext(steps, c)
		if done {
			return steps, capacity, why
		}
		if rate <= 0 || rate > c.Max {
			t.Fatalf("step %d: rate %v (%s)", len(steps)+1, rate, why)
		}
		steps = append(steps, searchStep{Rate: rate, Phase: phase, Verdict: verdict(rate, phase, len(steps))})
	}
	t.Fatal("the search did not end in 100 steps")
	return nil, 0, ""
}

func threshold(limit float64) func(float64, string, int) string {
	return func(r float64, _ string, _ int) string {
		if r <= limit {
			return results.Meets
		}
		return results.Misses
	}
}

var cfg = searchConfig{Start: 10, Max: 100000, Tolerance: 0.05, MaxSteps: 30, InvalidRetries: 2}

func TestCapacitySearchConvergesOnAKnownCapacity(t *testing.T) {
	for _, limit := range []float64{7, 237, 5000, 99999} {
		steps, capacity, why := runSearch(t, cfg, threshold(limit))
		if capacity > limit || capacity < limit/(1+cfg.Tolerance) {
			t.Errorf("capacity %v for a server that keeps its SLO up to %v (%s)", capacity, limit, why)
		}
		if last := steps[len(steps)-1]; last.Phase != "validate" || last.Verdict != results.Meets || !strings.Contains(why, "validated") {
			t.Errorf("limit %v: ended with %+v: %s", limit, last, why)
		}
		if len(steps) > 25 {
			t.Errorf("limit %v: %d steps", limit, len(steps))
		}
	}
	// Above capacity.max everything meets: the maximum is validated, and said to be the bound.
	steps, capacity, _ := runSearch(t, searchConfig{Start: 10, Max: 300, Tolerance: 0.05, MaxSteps: 30}, threshold(1e9))
	if capacity != 300 || steps[len(steps)-1].Phase != "validate" {
		t.Errorf("capped at 300: capacity %v, steps %+v", capacity, steps)
	}
}

func TestCapacitySearchRetriesInvalidStepsAndRevalidates(t *testing.T) {
	// The first try at every rate is invalid (the generator starved): each
	// rate is run again, and the answer is the same as without them.
	seen := map[float64]int{}
	steps, capacity, _ := runSearch(t, cfg, func(r float64, p string, n int) string {
		if seen[r]++; seen[r] == 1 {
			return results.Invalid
		}
		return threshold(237)(r, p, n)
	})
	if capacity > 237 || capacity < 237/1.05 {
		t.Errorf("capacity %v with invalid first tries (%d steps)", capacity, len(steps))
	}
	// A rate whose steps are always invalid counts as missed after the retries.
	_, capacity, _ = runSearch(t, cfg, func(r float64, p string, n int) string {
		if r > 100 {
			return results.Invalid
		}
		return results.Meets
	})
	if capacity > 100 || capacity < 100/1.05 {
		t.Errorf("capacity %v when every step above 100 req/s is invalid", capacity)
	}
	// A validation that misses once (a boundary that moved): the search goes on below it.
	failedOnce := false
	steps, capacity, _ = runSearch(t, cfg, func(r float64, p string, n int) string {
		if p == "validate" && !failedOnce {
			failedOnce = true
			return results.Misses
		}
		return threshold(237)(r, p, n)
	})
	validations := 0
	for _, s := range steps {
		if s.Phase == "validate" {
			validations++
		}
	}
	if validations != 2 || capacity >= 237/1.0 && capacity > 237 || capacity == 0 {
		t.Errorf("after a failed validation: %d validations, capacity %v", validations, capacity)
	}
}

func TestCapacitySearchSaysWhenNothingMeetsOrStepsRunOut(t *testing.T) {
	_, capacity, why := runSearch(t, cfg, threshold(0))
	if capacity != 0 || !strings.Contains(why, "no rate meets the SLO") {
		t.Errorf("a server that never meets: %v, %s", capacity, why)
	}
	steps, capacity, why := runSearch(t, searchConfig{Start: 10, Max: 1e6, Tolerance: 0.001, MaxSteps: 6}, threshold(237))
	if len(steps) != 6 || capacity != 160 || !strings.Contains(why, "not validated") {
		t.Errorf("6 steps at most: %d steps, capacity %v, %s", len(steps), capacity, why)
	}
}

func TestCapacityKeysNameEachStep(t *testing.T) {
	for rate, want := range map[float64]string{12800: "/rate=12800/step=7", 212.5: "/rate=212.5/step=7", 0.012345: "/rate=0.01235/step=7", 99999: "/rate=100000/step=7"} {
		if got := rateSuffix(rate, "search", 7); got != want {
			t.Errorf("%v: %q, want %q", rate, got, want)
		}
	}
	if got := rateSuffix(200, "validate", 3); got != "/rate=200/validate/step=3" {
		t.Errorf("validation: %q", got)
	}
	if results.CapacityBase("hello-go/workers=2/rate=200/validate/step=3") != "hello-go/workers=2" {
		t.Error("the base of a capacity key")
	}
}

// Known answers for the search's boundaries (issue 61's sweep): how often an invalid step is run again
// (counting the first), the last step allowed, a rate both met and missed, the lowest rate tried and the
// tolerance in the reason.
func TestSearchNextAtItsBoundaries(t *testing.T) {
	inv := func(rate float64) searchStep {
		return searchStep{Rate: rate, Phase: "search", Verdict: results.Invalid}
	}
	met := func(rate float64) searchStep { return searchStep{Rate: rate, Phase: "search", Verdict: results.Meets} }
	missed := func(rate float64) searchStep { return searchStep{Rate: rate, Phase: "search", Verdict: results.Misses} }
	c := searchConfig{Start: 10, Max: 1000, Tolerance: 0.1, MaxSteps: 10, InvalidRetries: 2}
	for _, x := range []struct {
		name  string
		steps []searchStep
		cfg   searchConfig
		rate  float64
		done  bool
		why   string
	}{
		{"a first invalid step is run again, counted", []searchStep{inv(10)}, c, 10, false, "again (1 of 2)"},
		{"as many tries again as allowed", []searchStep{inv(10), inv(10)}, c, 10, false, "again (2 of 2)"},
		{"the last step allowed is not run again", []searchStep{inv(10), inv(10)}, searchConfig{Start: 10, Max: 1000, Tolerance: 0.1, MaxSteps: 2, InvalidRetries: 5}, 0, true, "2 steps and no rate met the SLO"},
		{"a rate met and then missed is the bound above, not the capacity", []searchStep{met(10), missed(10)}, c, 5, false, "10 req/s missed the SLO: try 5"},
		{"the lowest rate is still tried", []searchStep{missed(2 * minSearchRate)}, c, minSearchRate, false, "try"},
		{"the tolerance in words", []searchStep{met(100), missed(105)}, c, 100, false, "within 10 %: validate 100"},
	} {
		rate, _, done, _, why := searchNext(x.steps, x.cfg)
		if rate != x.rate || done != x.done || !strings.Contains(why, x.why) {
			t.Errorf("%s: rate %v done %v %q; want %v %v %q", x.name, rate, done, why, x.rate, x.done, x.why)
		}
	}
}
