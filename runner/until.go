package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/stats"
)

// untilRound decides, after the last cell of the plan, whether spec.until
// wants another round of repetitions: every key's headline interval of the
// percentile within ±within of its pooled value ends the run, and so does
// the budget; otherwise a round of every cell at the next repetition
// follows (a decision, so a resumed run replays it). It returns the
// decision (nil: the run ends) and the outcome to record.
func untilRound(u spec.UntilSpec, sp spec.Spec, planned []plan.Cell, keys []results.Key, after string) (*experiment.Decision, results.UntilOutcome) {
	reps := 0
	for _, c := range planned {
		reps = max(reps, c.Repetition)
	}
	q := u.P / 100
	var wide []string
	for _, k := range keys {
		if w, ok := relHalfWidth(k.SuccessLatencyMs, q); !ok || w > u.Within {
			if ok {
				wide = append(wide, fmt.Sprintf("%s ±%.1f %%", k.Key, 100*w))
			} else {
				wide = append(wide, k.Key+" (no interval yet)")
			}
		}
	}
	out := results.UntilOutcome{Repetitions: reps}
	switch {
	case len(wide) == 0:
		out.Met = true
		out.Reason = fmt.Sprintf("p%v within ±%.0f %% for every key after %d repetitions", u.P, 100*u.Within, reps)
		return nil, out
	case reps >= u.Max:
		out.Reason = fmt.Sprintf("the budget (%d repetitions) is spent; still wider than ±%.0f %%: %s", u.Max, 100*u.Within, strings.Join(wide, ", "))
		return nil, out
	}
	var round []plan.Cell
	for _, c := range planned {
		if c.Repetition != 1 {
			continue
		}
		c.Repetition = reps + 1
		c.ID = fmt.Sprintf("%s/r=%d", c.Key, c.Repetition)
		round = append(round, c)
	}
	if sp.Order == "shuffled" {
		rng := rand.New(rand.NewPCG(uint64(sp.Seed), uint64(reps+1)))
		rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
	}
	out.Reason = fmt.Sprintf("repetition %d: p%v still wider than ±%.0f %% for %s", reps+1, u.P, 100*u.Within, strings.Join(wide, ", "))
	return &experiment.Decision{After: after, Add: round, Reason: out.Reason}, out
}

// relHalfWidth is the larger distance from the pooled percentile to either
// end of its interval across repetitions, relative to the percentile.
func relHalfWidth(p stats.Percentiles, q float64) (float64, bool) {
	v, iv := p.At(q)
	if v == nil || iv == nil || *v <= 0 {
		return 0, false
	}
	return math.Max(*v-iv.Lo, iv.Hi-*v) / *v, true
}
