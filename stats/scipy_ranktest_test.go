package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// scipyRankTest answers, for each pair, what MannWhitney reports, by means independent of its code: U and the
// normal approximation's p with the tie correction and continuity (SciPy's mannwhitneyu, method "asymptotic");
// the Hodges-Lehmann shift as the median of every difference of logs (NumPy); the Moses interval's rank k from
// the null distribution of U without ties, as the coefficients of the Gaussian binomial [m+n choose m] (exact
// integers) when m+n ≤ 40, and from the normal quantile above; the smallest two-sided p, 2 / C(m+n, m).
const scipyRankTest = `
import json, sys
from math import comb, floor, sqrt
import numpy as np
from scipy import stats
from scipy.stats import norm

def null_counts(m, n):
    # the number of splits with U = u: the coefficients of prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)
    poly = [1]
    for i in range(1, m + 1):
        num = [0] * (len(poly) + n + i)
        for d, c in enumerate(poly):
            num[d] += c
            num[d + n + i] -= c
        # divide by (1 - q^i): out[d] = num[d] + out[d - i]
        out = [0] * (len(num) - i)
        for d in range(len(out)):
            out[d] = num[d] + (out[d - i] if d >= i else 0)
        poly = out
    return poly[: m * n + 1]

res = []
for a, b, alpha in json.load(sys.stdin):
    la, lb = np.log(a), np.log(b)
    m, n = len(la), len(lb)
    r = {"u": float(stats.mannwhitneyu(lb, la).statistic)}
    r["p_normal"] = float(stats.mannwhitneyu(lb, la, method="asymptotic", use_continuity=True).pvalue)
    d = np.sort(np.subtract.outer(lb, la).ravel())
    r["shift"] = float(np.expm1(np.median(d)))
    if m + n > 40:
        k = max(floor(m * n / 2 - norm.ppf(1 - alpha / 2) * sqrt(m * n * (m + n + 1) / 12)), 0)
        r["floor"] = 0.0
    else:
        c = null_counts(m, n)
        total = comb(m + n, m)
        assert sum(c) == total
        k, cum = 0, 0
        while k < len(c) and (cum + c[k]) / total <= alpha / 2:
            cum += c[k]
            k += 1
        r["floor"] = min(1.0, 2 / total)
    r["k"] = k
    if k >= 1:
        r["lo"], r["hi"] = float(np.expm1(d[k - 1])), float(np.expm1(d[m * n - k]))
    res.append(r)
json.dump(res, sys.stdout)
`

type scipyRank struct {
	U       float64
	PNormal float64 `json:"p_normal"`
	Shift   float64
	K       int
	Lo, Hi  *float64
	Floor   float64
}

func TestMannWhitneyAgainstSciPy(t *testing.T) {
	// Repetition counts on each side of the exact p's limit (20 together) and of the exact Moses rank's (40),
	// with and without ties (values rounded), shifted, unshifted and at two levels.
	rng := rand.New(rand.NewPCG(5, 9))
	draw := func(n int, centre, round float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = centre * math.Exp(0.1*rng.NormFloat64())
			if round > 0 {
				out[i] = math.Round(out[i]/round) * round
			}
		}
		return out
	}
	type pair struct {
		A, B  []float64
		Alpha float64
	}
	pairs := []pair{
		{draw(3, 100, 0), draw(3, 130, 0), 0.05},
		{draw(3, 100, 0), draw(3, 130, 0), 0.1},  // the floor, 2/20, exactly at alpha: reachable, no note
		{draw(4, 100, 0), draw(4, 125, 0), 0.05}, // Moses rank 1
		{draw(4, 100, 0), draw(5, 110, 0), 0.05},
		{draw(7, 100, 0), draw(6, 104, 0), 0.05},
		{draw(10, 100, 0), draw(10, 108, 0), 0.05},
		{draw(8, 100, 0), draw(9, 100, 0), 0.2},
		{draw(12, 100, 0), draw(15, 103, 0), 0.05},
		{draw(12, 100, 5), draw(14, 104, 5), 0.05},
		{draw(20, 100, 0), draw(20, 95, 0), 0.05},
		{draw(25, 100, 0), draw(30, 106, 0), 0.05},
		{draw(22, 100, 4), draw(27, 102, 4), 0.1},
		{draw(2, 100, 0), draw(50, 103, 0), 0.05}, // over 40: the normal Moses rank (8), where the exact one is 10
		{draw(1, 100, 0), draw(39, 103, 0), 0.05}, // 40: the exact null's first tail, 1/40, is alpha/2 itself
	}
	in := make([][3]any, len(pairs))
	for i, p := range pairs {
		in[i] = [3]any{p.A, p.B, p.Alpha}
	}
	var want []scipyRank
	runSciPy(t, scipyRankTest, in, &want)
	if len(want) != len(pairs) {
		t.Fatalf("SciPy answered %d pairs of %d", len(want), len(pairs))
	}
	near := func(g, w float64) bool { return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) }
	for i, p := range pairs {
		w, what := want[i], fmt.Sprintf("pair %d (%d vs %d, alpha %v)", i, len(p.A), len(p.B), p.Alpha)
		rt := MannWhitney(p.A, p.B, p.Alpha)
		if rt == nil {
			t.Fatalf("%s: no rank test", what)
		}
		if !near(rt.U, w.U) || !near(rt.RelShift, w.Shift) {
			t.Errorf("%s: U %v shift %v; SciPy %v, %v", what, rt.U, rt.RelShift, w.U, w.Shift)
		}
		if k := mosesRank(len(p.A), len(p.B), p.Alpha); k != w.K {
			t.Errorf("%s: Moses rank %d; from the null distribution %d", what, k, w.K)
		}
		if (rt.Lo == nil) != (w.Lo == nil) || (rt.Lo != nil && (!near(*rt.Lo, *w.Lo) || !near(*rt.Hi, *w.Hi))) {
			t.Errorf("%s: interval %v, %v; SciPy %v, %v", what, rt.Lo, rt.Hi, w.Lo, w.Hi)
		}
		if f := minTwoSidedP(len(p.A), len(p.B)); !near(f, w.Floor) {
			t.Errorf("%s: smallest p %v; 2 / C(m+n, m) %v", what, f, w.Floor)
		}
		if rt.Exact != (len(p.A)+len(p.B) <= exactRankLimit) {
			t.Errorf("%s: exact %v, want exact up to %d repetitions together", what, rt.Exact, exactRankLimit)
		}
		if len(p.A)+len(p.B) > exactRankLimit {
			if rt.Exact || !near(rt.P, w.PNormal) {
				t.Errorf("%s: p %v (exact %v); SciPy's normal approximation %v", what, rt.P, rt.Exact, w.PNormal)
			}
		}
		wantNote := ""
		if w.Floor > p.Alpha {
			wantNote = fmt.Sprintf("with %d and %d repetitions the rank test cannot reach p < %.2g (its smallest p is %.3g)",
				len(p.A), len(p.B), p.Alpha, w.Floor)
		} else if w.Lo == nil {
			wantNote = "too few repetitions for a 95 % rank interval"
		}
		if rt.Note != wantNote {
			t.Errorf("%s: note %q, want %q", what, rt.Note, wantNote)
		}
	}
}
