package stats

import (
	"fmt"
	"math"
)

// WarmupMinSteps is the fewest warm-up steps (seconds) judged, and the
// fewest steady ones after a transient, before a warm-up may end.
const WarmupMinSteps = 6

// WarmedUp decides an adaptive warm-up from its per-second series so far
// (throughput and median latency, one value per second of warm-up): done
// when, for every series, the last two windows of WarmupMinSteps/2 seconds
// are within SteadyShift of each other (a transient has passed: MSER's
// question, asked of the warm-up's end) and Mann-Kendall finds no drift
// over the last WarmupMinSteps seconds (the steady-state test's trend
// part, corrected for autocorrelation). why says which, or what still moves.
func WarmedUp(series map[string][]float64) (done bool, why string) {
	k := WarmupMinSteps / 2
	for _, name := range []string{"throughput", "median latency"} {
		xs, ok := series[name]
		if !ok {
			continue
		}
		n := len(xs)
		if n < 2*k {
			return false, fmt.Sprintf("%d of the %d seconds a warm-up is judged on", n, 2*k)
		}
		last, prev := mean(xs[n-k:]), mean(xs[n-2*k:n-k])
		if last != 0 && math.Abs(last-prev)/math.Abs(last) > SteadyShift {
			return false, fmt.Sprintf("%s moved by %+.0f %% between the last two %d s windows", name, 100*(last-prev)/math.Abs(prev), k)
		}
		if t, _ := MannKendall(xs[n-2*k:]); drifts(t) {
			return false, fmt.Sprintf("%s still drifts (%+.0f %% over the last %d s, Mann-Kendall p = %.2g)", name, 100*t.Relative, 2*k, t.P)
		}
	}
	return true, fmt.Sprintf("steady: throughput and median latency within %.0f %% over the last two %d s windows, no drift", 100*SteadyShift, k)
}
