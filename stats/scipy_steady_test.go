package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// pythonSteady answers what MannKendall and Steady report, from SciPy and NumPy: S as the sum of the signs of
// every later-minus-earlier difference; Sen's slope from SciPy's theilslopes; the tie term from NumPy's unique
// counts; the lag-1 autocorrelation of the series less its trend (NumPy), corrected (n·r1 + 1)/(n − 3) and clamped
// to [0, 0.9]; z with the continuity correction and p = 2·sf(|z|); MSER's cut as the argmin over d ≤ n/2 of
// var(rest)·(k−1)/k² (NumPy's var, ddof 0, times k, over k²); then the verdict as Steady documents it.
const pythonSteady = `
import json, sys
import numpy as np
from scipy import stats

def mk(x):
    n = len(x)
    i, j = np.triu_indices(n, 1)
    s = float(np.sign(x[j] - x[i]).sum())
    slope = float(stats.theilslopes(x).slope)
    med = float(np.median(x))
    rel = slope * (n - 1) / med if med != 0 else 0.0
    _, t = np.unique(x, return_counts=True)
    v = (n * (n - 1) * (2 * n + 5) - float((t * (t - 1) * (2 * t + 5)).sum())) / 18
    r = x - slope * np.arange(n)
    d = r - r.mean()
    den = float((d * d).sum())
    r1 = float((d[1:] * d[:-1]).sum()) / den if den != 0 else 0.0
    rho = min(max((n * r1 + 1) / (n - 3), 0.0), 0.9)
    v *= (1 + rho) / (1 - rho)
    if v <= 0:
        return {"p": 1.0, "slope": slope, "rel": rel, "rho": rho, "n": n}
    z = (s - np.sign(s)) / np.sqrt(v)
    return {"p": float(2 * stats.norm.sf(abs(z))), "slope": slope, "rel": rel, "rho": rho, "n": n}

out = []
for xs in json.load(sys.stdin):
    x = np.array(xs, dtype=float)
    n = len(x)
    best, cut = np.inf, 0
    for d in range(n // 2 + 1):
        rest = x[d:]
        v = rest.var() * len(rest) / len(rest) ** 2
        if v < best - 1e-12:
            best, cut = v, d
    t = mk(x[cut:])
    if t["n"] >= 4 and t["p"] < 0.01 and abs(t["rel"]) > 0.10:
        verdict = [False, -1]
    elif cut > 0 and x[cut:].mean() != 0 and abs(x[:cut].mean() - x[cut:].mean()) / abs(x[cut:].mean()) > 0.10:
        verdict = [False, cut]
    else:
        verdict = [True, 0]
    whole = mk(x)
    out.append({"whole": whole, "cut": cut, "rest": t, "steady": verdict[0], "from": verdict[1]})
json.dump(out, sys.stdout)
`

func TestMannKendallAndSteadyAgainstSciPy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	series := map[string][]float64{}
	noise := func(n int, f func(i int) float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = f(i) + rng.NormFloat64()
		}
		return xs
	}
	ar := 0.0
	series["stationary"] = noise(60, func(int) float64 { return 100 })
	series["drifting"] = noise(60, func(i int) float64 { return 100 + 0.6*float64(i) })
	series["warm-up"] = noise(60, func(i int) float64 { return 100 + 60*math.Exp(-float64(i)/3) })
	series["falling"] = noise(30, func(i int) float64 { return 200 - 2*float64(i) })
	series["autocorrelated"] = noise(80, func(int) float64 { ar = 0.8*ar + 3*rng.NormFloat64(); return 100 + ar })
	series["ties"] = []float64{5, 5, 6, 5, 7, 7, 6, 8, 8, 8, 9, 8, 10, 10, 9}
	series["short"] = []float64{3, 1, 4, 1, 5}
	series["a small but significant drift"] = noise(200, func(i int) float64 { return 1000 + 0.05*float64(i) })
	var names []string
	var in [][]float64
	for name, xs := range series {
		names = append(names, name)
		in = append(in, xs)
	}
	type mk struct {
		P, Slope, Rel, Rho float64
		N                  int
	}
	var want []struct {
		Whole, Rest mk
		Cut         int
		Steady      bool
		From        int
	}
	runSciPy(t, pythonSteady, in, &want)
	if len(want) != len(in) {
		t.Fatalf("Python answered %d series of %d", len(want), len(in))
	}
	near := func(g, w float64) bool { return math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) }
	verdicts := map[string]int{}
	for i, xs := range in {
		w, name := want[i], names[i]
		tr, ok := MannKendall(xs)
		if !ok || tr.N != w.Whole.N || !near(tr.P, w.Whole.P) || !near(tr.Slope, w.Whole.Slope) || !near(tr.Relative, w.Whole.Rel) || !near(tr.Rho, w.Whole.Rho) {
			t.Errorf("%s: Mann-Kendall %+v; SciPy %+v", name, tr, w.Whole)
		}
		if c := mserCut(xs); c != w.Cut {
			t.Errorf("%s: MSER cut %d; NumPy %d", name, c, w.Cut)
		}
		steady, from, rest := Steady(xs)
		if steady != w.Steady || from != w.From || !near(rest.P, w.Rest.P) || !near(rest.Relative, w.Rest.Rel) {
			t.Errorf("%s: steady %v from %d (rest %+v); from SciPy's figures %v from %d (rest %+v)", name, steady, from, rest, w.Steady, w.From, w.Rest)
		}
		verdicts[fmt.Sprint(w.Steady, w.From > 0, w.From < 0)]++
	}
	// Each of the three verdicts occurs: steady, a warm-up still held, a drift.
	if len(verdicts) != 3 {
		t.Errorf("verdicts %v: the series no longer test each of steady, warm-up and drift", verdicts)
	}
}
