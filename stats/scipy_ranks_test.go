package stats

import "testing"

// scipyRanks finds, by a linear scan of SciPy's binomial CDF, the order-statistic ranks that
// OrderStatisticRanks finds by bisection: with B ~ Binomial(n, q) and a = (1 - conf)/2, lo is the largest l in
// [1, n] with P(B <= l-1) <= a, hi the smallest u in [1, n] with P(B <= u-1) >= 1 - a; no interval when either
// is missing.
const scipyRanks = `
import json, sys
import numpy as np
from scipy.stats import binom
out = []
for n, q, conf in json.load(sys.stdin):
    a = (1 - conf) / 2
    cdf = binom.cdf(np.arange(n), n, q) if 0 < q < 1 and n >= 1 else None
    los = [l for l in range(1, n + 1) if cdf is not None and cdf[l - 1] <= a]
    his = [u for u in range(1, n + 1) if cdf is not None and cdf[u - 1] >= 1 - a]
    ok = bool(los) and bool(his)
    out.append({"lo": los[-1] if ok else 0, "hi": his[0] if ok else 0, "ok": ok})
json.dump(out, sys.stdout)
`

func TestOrderStatisticRanksAgainstSciPy(t *testing.T) {
	// The percentiles faasbench bounds, at sample counts around where each first gets an interval, a few
	// confidence levels, and the degenerate cases (q at 0 or 1, a single sample, one where P(B = 0) > a).
	type c struct {
		N    int64
		Q    float64
		Conf float64
	}
	var cases []c
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99, 0.999} {
		for _, n := range []int64{1, 2, 5, 6, 7, 20, 59, 100, 299, 300, 459, 1000, 2999, 4603, 10000} {
			cases = append(cases, c{n, q, 0.95})
		}
	}
	cases = append(cases, c{20, 0.1, 0.95}, c{200, 0.5, 0.99}, c{200, 0.5, 0.8}, c{50, 0, 0.95}, c{50, 1, 0.95})
	in := make([][3]float64, len(cases))
	for i, x := range cases {
		in[i] = [3]float64{float64(x.N), x.Q, x.Conf}
	}
	var want []struct {
		Lo, Hi int64
		OK     bool
	}
	runSciPy(t, scipyRanks, in, &want)
	if len(want) != len(cases) {
		t.Fatalf("SciPy answered %d cases of %d", len(want), len(cases))
	}
	oks := 0
	for i, x := range cases {
		lo, hi, ok := OrderStatisticRanks(x.N, x.Q, x.Conf)
		if ok != want[i].OK || (ok && (lo != want[i].Lo || hi != want[i].Hi)) {
			t.Errorf("n %d, q %v, %v: ranks %d, %d (%v); SciPy %d, %d (%v)", x.N, x.Q, x.Conf, lo, hi, ok, want[i].Lo, want[i].Hi, want[i].OK)
		}
		if ok {
			oks++
		}
	}
	if oks < len(cases)/3 || oks == len(cases) {
		t.Errorf("%d of %d cases have an interval: the grid no longer tests both outcomes", oks, len(cases))
	}
}
