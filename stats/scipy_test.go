package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"testing"
)

// scipyReference computes, with SciPy on the same data, what Compare reports
// for each pair: Welch's t on the logarithms (p, and the 95 % interval of
// the difference of the mean logs, as B/A − 1), Holm's adjustment over the
// pairs, and Mann-Whitney's U of B against A with its two-sided p over every
// split of the pooled values (ties kept: SciPy's own method="exact" ignores
// ties, and gave 0.548 where the splits give 0.444 for the second pair).
// scripts/setup.sh installs SciPy; without it the test fails (it is the
// independent answer, not an option).
const scipyReference = `
import json, sys
import numpy as np
from scipy import stats
from math import ceil
from scipy.stats import norm
req = json.load(sys.stdin)
margin, alpha = req["margin"], req["alpha"]
out = []
for a, b in req["pairs"]:
    la, lb = np.log(a), np.log(b)
    t = stats.ttest_ind(lb, la, equal_var=False)
    ci = t.confidence_interval(0.95)
    u = stats.mannwhitneyu(b, a).statistic
    # The two-sided p of every split of the pooled values, ties kept (SciPy's method="exact" ignores ties):
    # P(|U - mn/2| >= |u - mn/2|), enumerated by SciPy's permutation test.
    dev = lambda x, y: abs(stats.mannwhitneyu(x, y).statistic - len(x) * len(y) / 2)
    pu = stats.permutation_test((b, a), dev, permutation_type="independent", vectorized=False,
                                n_resamples=np.inf, alternative="greater").pvalue
    # Repetitions per run for 80 % power at the larger of the observed effect and the margin: the two-sample
    # normal approximation n = 2 (z(1-alpha/2) + z(0.8))^2 s^2 / delta^2, s^2 the pooled variance of the logs.
    z = norm.ppf(1 - alpha / 2) + norm.ppf(0.8)
    s2 = ((len(la) - 1) * la.var(ddof=1) + (len(lb) - 1) * lb.var(ddof=1)) / (len(la) + len(lb) - 2)
    delta = max(abs(lb.mean() - la.mean()), np.log1p(margin))
    out.append({"p": float(t.pvalue), "lo": float(np.expm1(ci.low)), "hi": float(np.expm1(ci.high)),
                "rel": float(np.expm1(lb.mean() - la.mean())), "u": float(u), "pu": float(pu),
                "need": ceil(2 * z * z * s2 / delta ** 2)})
ps = [o["p"] for o in out]
order = sorted(range(len(ps)), key=lambda i: ps[i])
running = 0.0
for rank, i in enumerate(order):
    running = max(running, min(1.0, ps[i] * (len(ps) - rank)))
    out[i]["holm"] = running
json.dump(out, sys.stdout)
`

type scipyAnswer struct {
	P, Lo, Hi, Rel, U, PU, Holm float64
	Need                        int
}

// runSciPy runs script with python3 (SciPy installed by scripts/setup.sh), in as JSON on its standard input,
// and decodes its standard output into out. Without SciPy the test fails: it is the independent answer, not an option.
func runSciPy(t *testing.T, script string, in, out any) {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("SciPy's answer (python3 with scipy, installed by scripts/setup.sh): %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(got, out); err != nil {
		t.Fatalf("SciPy's answer: %v: %s", err, got)
	}
}

func TestCompareAgainstSciPy(t *testing.T) {
	// Repetitions as faasbench compares them (throughputs, latencies): few,
	// positive, some pairs clearly apart, some not, unequal counts and
	// spreads (where Welch differs from Student).
	pairs := [][2][]float64{
		{{1020, 998, 1011}, {1105, 1093, 1120}},
		{{5.1, 5.4, 4.9, 5.2, 5.0}, {5.3, 5.0, 5.6, 5.1, 5.2}},
		{{200, 260, 180, 240}, {150, 151, 149, 152, 150, 148}},
		{{0.81, 0.95, 0.88, 1.02, 0.79, 0.9, 0.85}, {1.4, 1.1, 1.7, 1.25}},
		{{3029, 2950, 3101}, {2666, 2701, 2655}},
		{{500, 502, 498, 501, 499}, {400, 401, 399, 400, 402}},
		// Inside the margin (equivalent), and two too noisy to decide (their repetitions needed are kept).
		{{100, 101, 99, 100.5}, {100.2, 100.9, 99.4, 100.1}},
		{{40, 55, 47}, {52, 41, 60}},
		{{12, 19, 15, 11, 16}, {13, 18, 21}},
	}
	const margin, alpha = 0.05, 0.05
	var want []scipyAnswer
	runSciPy(t, scipyReference, map[string]any{"pairs": pairs, "margin": margin, "alpha": alpha}, &want)
	if len(want) != len(pairs) {
		t.Fatalf("SciPy answered %d pairs of %d", len(want), len(pairs))
	}
	var tests []Test
	for i, p := range pairs {
		tests = append(tests, Test{Key: string(rune('a' + i)), Metric: "x", HigherIsBetter: true, A: p[0], B: p[1]})
	}
	got := Compare(tests, margin, alpha)
	close := func(what string, i int, g *float64, w float64) {
		t.Helper()
		if g == nil {
			t.Errorf("pair %d: %s missing (SciPy %.6g)", i, what, w)
			return
		}
		if math.Abs(*g-w) > 1e-6*math.Max(1, math.Abs(w)) {
			t.Errorf("pair %d: %s = %.9g, SciPy %.9g", i, what, *g, w)
		}
	}
	verdicts := map[string]int{}
	for i, w := range want {
		c := got[i]
		close("Welch p", i, c.P, w.P)
		close("Holm p", i, c.PHolm, w.Holm)
		close("B/A − 1", i, c.RelDiff, w.Rel)
		close("interval low", i, c.Lo, w.Lo)
		close("interval high", i, c.Hi, w.Hi)
		if c.Rank == nil {
			t.Errorf("pair %d: no rank test", i)
			continue
		}
		close("Mann-Whitney U", i, &c.Rank.U, w.U)
		close("Mann-Whitney p (exact)", i, &c.Rank.P, w.PU)
		verdicts[c.Verdict]++
		checkVerdictAgainstSciPy(t, i, c, w, margin, alpha)
	}
	for _, v := range []string{Better, Worse, Equivalent, Inconclusive} {
		if verdicts[v] == 0 {
			t.Errorf("no pair was %s: the data no longer tests that verdict's figures (%v)", v, verdicts)
		}
	}
}

// checkVerdictAgainstSciPy checks c's verdict, its reason's figures and the repetitions it asks for against
// SciPy's answer for the same pair: equivalent when SciPy's interval lies inside ±margin; better (B higher, as
// these figures are) or worse when Holm's p is under alpha and the interval leaves out 0; else inconclusive.
func checkVerdictAgainstSciPy(t *testing.T, i int, c Comparison, w scipyAnswer, margin, alpha float64) {
	t.Helper()
	diff := fmt.Sprintf("B/A − 1 = %+.1f%% [%+.1f%%, %+.1f%%]", 100*w.Rel, 100*w.Lo, 100*w.Hi)
	var want string
	var need int
	switch {
	case w.Lo >= -margin && w.Hi <= margin:
		want = fmt.Sprintf("the 95%% interval [%+.1f%%, %+.1f%%] lies inside ±%.0f%%", 100*w.Lo, 100*w.Hi, 100*margin)
	case w.Holm < alpha && w.Rel > 0 && w.Lo > 0:
		want = fmt.Sprintf("%s, p = %.3g after Holm's correction", diff, w.Holm)
	case w.Holm < alpha && w.Hi < 0:
		want = fmt.Sprintf("%s, p = %.3g after Holm's correction", diff, w.Holm)
	default:
		need = w.Need
		want = fmt.Sprintf("%s: neither a difference beyond chance nor inside ±%.0f%%; about %d repetitions per run would decide",
			diff, 100*margin, max(w.Need, 2))
	}
	if c.Reason != want {
		t.Errorf("pair %d (%s): reason %q, from SciPy's figures %q", i, c.Verdict, c.Reason, want)
	}
	if c.NeedReps != need {
		t.Errorf("pair %d (%s): %d repetitions needed, from SciPy's figures %d", i, c.Verdict, c.NeedReps, need)
	}
	wantVerdict := map[bool]string{true: Better, false: Worse}[w.Rel > 0]
	if need != 0 {
		wantVerdict = Inconclusive
	} else if w.Lo >= -margin && w.Hi <= margin {
		wantVerdict = Equivalent
	}
	if c.Verdict != wantVerdict {
		t.Errorf("pair %d: %s, from SciPy's figures %s", i, c.Verdict, wantVerdict)
	}
}
