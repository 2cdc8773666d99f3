package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scipyReps answers what SummariseReps reports for each list of repetitions: NumPy's median, mean, min and
// max; the 95 % t interval of the mean (SciPy's ttest_1samp(...).confidence_interval); the distribution-free
// interval of the median [x(k), x(n-k+1)], k the largest in [1, n/2] with P(Binomial(n, 1/2) <= k-1) <= 2.5 %
// (SciPy's binom.cdf, scanned), none when no such k.
const scipyReps = `
import json, sys
import numpy as np
from scipy import stats
out = []
for vs in json.load(sys.stdin):
    s = np.sort(np.array(vs, dtype=float))
    n = len(s)
    r = {"median": float(np.median(s)), "mean": float(s.mean()), "min": float(s[0]), "max": float(s[-1])}
    if n >= 2:
        ci = stats.ttest_1samp(s, 0).confidence_interval(0.95)
        r["mean_lo"], r["mean_hi"] = float(ci.low), float(ci.high)
    ks = [k for k in range(1, n // 2 + 1) if stats.binom.cdf(k - 1, n, 0.5) <= 0.025]
    if ks:
        r["median_lo"], r["median_hi"] = float(s[ks[-1] - 1]), float(s[n - ks[-1]])
    out.append(r)
json.dump(out, sys.stdout)
`

func TestSummariseRepsAgainstSciPy(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	var lists [][]float64
	for _, n := range []int{1, 2, 3, 5, 6, 7, 8, 9, 12, 17, 25, 40} {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = 1000 * math.Exp(0.2*rng.NormFloat64())
		}
		lists = append(lists, vs)
	}
	var want []struct {
		Median, Mean, Min, Max float64
		MeanLo                 *float64 `json:"mean_lo"`
		MeanHi                 *float64 `json:"mean_hi"`
		MedianLo               *float64 `json:"median_lo"`
		MedianHi               *float64 `json:"median_hi"`
	}
	runSciPy(t, scipyReps, lists, &want)
	if len(want) != len(lists) {
		t.Fatalf("SciPy answered %d lists of %d", len(want), len(lists))
	}
	near := func(g, w float64) bool { return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) }
	same := func(g, w *float64) bool { return (g == nil) == (w == nil) && (g == nil || near(*g, *w)) }
	for i, vs := range lists {
		r, w := SummariseReps(vs), want[i]
		if r.N != len(vs) || !near(r.Median, w.Median) || !near(r.Mean, w.Mean) || !near(r.Min, w.Min) || !near(r.Max, w.Max) {
			t.Errorf("%d repetitions: %+v; SciPy %+v", len(vs), r, w)
		}
		if !same(r.MeanLo, w.MeanLo) || !same(r.MeanHi, w.MeanHi) {
			t.Errorf("%d repetitions: the mean's interval %v, %v; SciPy %v, %v", len(vs), r.MeanLo, r.MeanHi, w.MeanLo, w.MeanHi)
		}
		if !same(r.MedianLo, w.MedianLo) || !same(r.MedianHi, w.MedianHi) {
			t.Errorf("%d repetitions: the median's interval %v, %v; SciPy %v, %v", len(vs), r.MedianLo, r.MedianHi, w.MedianLo, w.MedianHi)
		}
		wantNote := ""
		switch {
		case len(vs) < 2:
			wantNote = "one repetition: no spread, no interval"
		case w.MedianLo == nil:
			wantNote = "fewer than 6 repetitions: no 95 % interval for the median (min–max shown instead)"
		}
		if r.Note != wantNote {
			t.Errorf("%d repetitions: note %q, want %q", len(vs), r.Note, wantNote)
		}
	}
}
