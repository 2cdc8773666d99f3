package experiment

import (
	"fmt"
	"math"

	"github.com/faasbench/faasbench/results"
)

// searchStep is what the search knows of one step it ran.
type searchStep struct {
	Rate    float64
	Phase   string // search or validate
	Verdict string // results.Meets, Misses, Invalid
}

// searchConfig bounds a capacity search.
type searchConfig struct {
	Start, Max     float64
	Tolerance      float64
	MaxSteps       int
	InvalidRetries int
}

// minSearchRate is the lowest rate a search halves down to before it says
// that no rate meets the SLO.
const minSearchRate = 0.01

// searchNext decides what follows the steps run so far (in order): the next
// rate and phase, or done with the capacity found (0: none) and why.
//
// The search doubles the rate from Start while the SLO holds (never above
// Max), then bisects between the highest rate that met it (lo) and the
// lowest that missed (hi) until (hi − lo) ÷ lo ≤ Tolerance, and then runs
// a validation step at lo: met, lo is the capacity; missed, lo becomes the
// new hi and the search goes on below it. A step whose generator was
// starved is run again up to InvalidRetries times, then counts as missed
// (a rate the generator cannot offer is no rate the platform was shown to
// serve). MaxSteps bounds the whole search; reaching it ends the search
// with lo as an unvalidated lower bound, said as such.
func searchNext(steps []searchStep, c searchConfig) (rate float64, phase string, done bool, capacity float64, why string) {
	if len(steps) == 0 {
		return c.Start, "search", false, 0, fmt.Sprintf("start at %s req/s", fmtRate(c.Start))
	}
	last := steps[len(steps)-1]
	if last.Verdict == results.Invalid {
		again := 0
		for i := len(steps) - 1; i >= 0 && steps[i].Verdict == results.Invalid && steps[i].Rate == last.Rate; i-- {
			again++
		}
		if again <= c.InvalidRetries && len(steps) < c.MaxSteps {
			return last.Rate, last.Phase, false, 0, fmt.Sprintf("%s req/s was not a valid step (the generator was starved): again (%d of %d)",
				fmtRate(last.Rate), again, c.InvalidRetries)
		}
	}
	missed := func(s searchStep) bool { return s.Verdict != results.Meets }
	hi := math.Inf(1)
	for _, s := range steps {
		if missed(s) && s.Rate < hi && !retried(steps, s) {
			hi = s.Rate
		}
	}
	lo := 0.0
	for _, s := range steps {
		if s.Verdict == results.Meets && s.Rate > lo && s.Rate < hi {
			lo = s.Rate
		}
	}
	if last.Phase == "validate" && last.Verdict == results.Meets {
		return 0, "", true, last.Rate, fmt.Sprintf("capacity %s req/s: validated (the search bracketed it within %s req/s)",
			fmtRate(last.Rate), fmtRate(hi))
	}
	if len(steps) >= c.MaxSteps {
		if lo == 0 {
			return 0, "", true, 0, fmt.Sprintf("%d steps and no rate met the SLO", len(steps))
		}
		return 0, "", true, lo, fmt.Sprintf("%d steps, the most allowed: %s req/s met the SLO (not validated), %s missed",
			len(steps), fmtRate(lo), fmtRate(hi))
	}
	switch {
	case math.IsInf(hi, 1) && lo >= c.Max:
		return c.Max, "validate", false, 0, fmt.Sprintf("%s req/s, the most allowed (capacity.max), met the SLO: validate it", fmtRate(c.Max))
	case math.IsInf(hi, 1):
		next := math.Min(2*lo, c.Max)
		return next, "search", false, 0, fmt.Sprintf("%s req/s met the SLO: try %s", fmtRate(lo), fmtRate(next))
	case lo == 0:
		next := hi / 2
		if next < minSearchRate {
			return 0, "", true, 0, fmt.Sprintf("no rate meets the SLO: %s req/s missed it", fmtRate(hi))
		}
		return next, "search", false, 0, fmt.Sprintf("%s req/s missed the SLO: try %s", fmtRate(hi), fmtRate(next))
	case (hi-lo)/lo <= c.Tolerance:
		return lo, "validate", false, 0, fmt.Sprintf("between %s (met) and %s (missed), within %.0f %%: validate %s",
			fmtRate(lo), fmtRate(hi), 100*c.Tolerance, fmtRate(lo))
	}
	next := (lo + hi) / 2
	return next, "search", false, 0, fmt.Sprintf("between %s (met) and %s (missed): try %s", fmtRate(lo), fmtRate(hi), fmtRate(next))
}

// retried reports whether an invalid step s is followed by another try at
// its rate (then it bounds nothing: the retry decides).
func retried(steps []searchStep, s searchStep) bool {
	if s.Verdict != results.Invalid {
		return false
	}
	seen := false
	for _, x := range steps {
		if x == s {
			seen = true
			continue
		}
		if seen && x.Rate == s.Rate {
			return true
		}
	}
	return false
}

// fmtRate formats a rate with up to 4 significant digits (keyRate).
func fmtRate(r float64) string { return keyRate(r) }
