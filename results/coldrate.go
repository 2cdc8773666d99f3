package results

import (
	"fmt"
	"sort"
	"strings"
)

// ColdRateStep is one step of kind coldrate's curve (package coldrate):
// fresh functions deployed at zero instances, each called once at the
// step's rate, so every call is a cold start.
type ColdRateStep struct {
	// Step numbers the curve's steps from 1; RatePerS is the cold starts a
	// second offered.
	Step     int     `json:"step"`
	RatePerS float64 `json:"rate_per_s"`
	// Calls is how many functions were deployed and called once each; Cold
	// how many successes the functions said were cold starts.
	Calls int   `json:"calls"`
	Cold  int64 `json:"cold"`
	// NotSent: calls the generator was too late to send.
	NotSent int64 `json:"not_sent"`
	// DeployS is how long the step's deploys took, before its calls.
	DeployS float64 `json:"deploy_s"`
	// CompletedPerS is cold starts completed a second, from the first cold
	// reply to the last.
	CompletedPerS float64 `json:"completed_per_s"`
	// LatencyGrowth is the least-squares slope of the cold calls' latency
	// on their intended send, seconds a second: a queue that grows (the
	// platform completes fewer than offered) shows as growth; a sustained
	// step has at most 1/coldrate.KeepUp - 1 (0.11).
	LatencyGrowth float64 `json:"latency_growth"`
	// BoundMs is the p99 a sustained step keeps within.
	BoundMs float64 `json:"bound_ms"`
	// Sustained: every call sent, succeeded and cold, p99 within the bound,
	// no latency growth past coldrate.KeepUp; Why says why not.
	Sustained bool   `json:"sustained"`
	Why       string `json:"why,omitempty"`
}

// Knee is one curve's knee: the highest rate sustained with every lower
// rate of the curve sustained too (0: not even the first).
type Knee struct {
	// Curve is the cells' key without the step (function and grid point).
	Curve      string
	Repetition int
	KneePerS   float64
	// Steps is how many steps the curve measured; Past says why the step
	// after the knee was not sustained ("" when every step was).
	Steps   int
	BoundMs float64
	Past    string
}

// ColdRateBase is a coldrate cell's key without its rate and step: the
// curve it belongs to.
func ColdRateBase(key string) string {
	if i := strings.LastIndex(key, "/coldrate="); i >= 0 {
		return key[:i]
	}
	return key
}

// ColdRateKnees are the knees of the coldrate curves among cells, one per
// curve and repetition, in the order the curves first appear.
func ColdRateKnees(cells []Cell) []Knee {
	var out []Knee
	at := map[string]int{}
	var steps = map[string][]*ColdRateStep{}
	for _, c := range cells {
		if c.ColdRate == nil {
			continue
		}
		id := fmt.Sprintf("%s\x00%d", ColdRateBase(c.Key), c.Repetition)
		if _, ok := at[id]; !ok {
			at[id] = len(out)
			out = append(out, Knee{Curve: ColdRateBase(c.Key), Repetition: c.Repetition, BoundMs: c.ColdRate.BoundMs})
		}
		steps[id] = append(steps[id], c.ColdRate)
	}
	for id, i := range at {
		ss := steps[id]
		sort.Slice(ss, func(a, b int) bool { return ss[a].Step < ss[b].Step })
		k := &out[i]
		k.Steps = len(ss)
		for j, s := range ss {
			if !s.Sustained || s.Step != j+1 {
				k.Past = fmt.Sprintf("%v a second: %s", s.RatePerS, s.Why)
				if s.Step != j+1 {
					k.Past = fmt.Sprintf("step %d is missing", j+1)
				}
				break
			}
			k.KneePerS = s.RatePerS
		}
	}
	return out
}
