package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdicts of a comparison.
const (
	Better       = "better"
	Worse        = "worse"
	Equivalent   = "equivalent"
	Inconclusive = "inconclusive"
)

// Test is one figure of one cell in two runs, a value per repetition.
type Test struct {
	Key, Metric    string
	HigherIsBetter bool
	A, B           []float64
}

// Comparison is a Test's outcome: B relative to A.
type Comparison struct {
	Key    string `json:"key"`
	Metric string `json:"metric"`
	A      Reps   `json:"a"`
	B      Reps   `json:"b"`
	// RelDiff is B/A − 1 of the geometric means of the repetitions;
	// Lo/Hi its 95 % interval (Welch's t on the logarithms).
	RelDiff *float64 `json:"rel_diff"`
	Lo      *float64 `json:"lo"`
	Hi      *float64 `json:"hi"`
	P       *float64 `json:"p"`
	// PHolm is P adjusted for every test of the comparison (Holm).
	PHolm   *float64 `json:"p_holm"`
	Verdict string   `json:"verdict"`
	Reason  string   `json:"reason"`
	// NeedReps estimates the repetitions per run that would decide an
	// inconclusive test (80 % power at the observed or the margin's effect).
	NeedReps int `json:"need_reps,omitempty"`
	// Rank is the distribution-free test beside Welch's: Mann-Whitney's U
	// and the Hodges-Lehmann shift with its interval. The verdict is
	// Welch's (with Holm); a reader sees whether the rank test agrees.
	Rank *RankTest `json:"rank,omitempty"`
}

// Compare tests every Test: equivalent when the whole 95 % interval of the
// difference lies inside ±margin (a real but smaller difference does not
// matter); better or worse when B differs from A beyond chance after
// Holm's correction for the number of tests; inconclusive otherwise (with
// too few repetitions, never "no difference").
func Compare(tests []Test, margin, alpha float64) []Comparison {
	out := make([]Comparison, len(tests))
	var ps []int
	for i, t := range tests {
		c := Comparison{Key: t.Key, Metric: t.Metric, A: SummariseReps(t.A), B: SummariseReps(t.B), Verdict: Inconclusive,
			Rank: MannWhitney(t.A, t.B, alpha)}
		welch(&c, t, margin, alpha)
		if c.P != nil {
			ps = append(ps, i)
		}
		out[i] = c
	}
	// Holm: the k-th smallest of m p-values is multiplied by m−k+1, and the
	// adjusted values are made monotone.
	sort.Slice(ps, func(i, j int) bool { return *out[ps[i]].P < *out[ps[j]].P })
	running := 0.0
	for rank, i := range ps {
		adj := math.Min(1, *out[i].P*float64(len(ps)-rank))
		running = math.Max(running, adj)
		v := running
		out[i].PHolm = &v
	}
	for i := range out {
		decide(&out[i], tests[i], margin, alpha)
	}
	return out
}

func welch(c *Comparison, t Test, margin, alpha float64) {
	if len(t.A) < 2 || len(t.B) < 2 {
		c.Reason = fmt.Sprintf("%d and %d repetitions: at least 2 each are needed to see the noise", len(t.A), len(t.B))
		c.NeedReps = 5
		return
	}
	la, lb := logs(t.A), logs(t.B)
	if la == nil || lb == nil {
		c.Reason = "a repetition's figure is zero or missing: no ratio"
		return
	}
	ma, mb := mean(la), mean(lb)
	va, vb := variance(la, ma), variance(lb, mb)
	na, nb := float64(len(la)), float64(len(lb))
	se := math.Sqrt(va/na + vb/nb)
	d := mb - ma
	rel := math.Exp(d) - 1
	c.RelDiff = &rel
	if se == 0 {
		lo, hi := rel, rel
		c.Lo, c.Hi = &lo, &hi
		p := 0.0
		if d == 0 {
			p = 1
		}
		c.P = &p
		return
	}
	df := math.Pow(va/na+vb/nb, 2) / (math.Pow(va/na, 2)/(na-1) + math.Pow(vb/nb, 2)/(nb-1))
	td := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := td.Quantile(1 - alpha/2)
	lo, hi := math.Exp(d-q*se)-1, math.Exp(d+q*se)-1
	c.Lo, c.Hi = &lo, &hi
	p := 2 * (1 - td.CDF(math.Abs(d)/se))
	c.P = &p
	// Repetitions per run for 80 % power at the larger of the observed
	// effect and the margin (normal approximation).
	delta := math.Max(math.Abs(d), math.Log1p(margin))
	z := distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(0.8)
	s2 := (va*(na-1) + vb*(nb-1)) / (na + nb - 2)
	c.NeedReps = int(math.Ceil(2 * z * z * s2 / (delta * delta)))
}

func decide(c *Comparison, t Test, margin, alpha float64) {
	if c.RelDiff == nil {
		return
	}
	switch {
	case *c.Lo >= -margin && *c.Hi <= margin:
		c.Verdict = Equivalent
		c.Reason = fmt.Sprintf("the 95%% interval [%+.1f%%, %+.1f%%] lies inside ±%.0f%%", 100**c.Lo, 100**c.Hi, 100*margin)
		c.NeedReps = 0
	case c.PHolm != nil && *c.PHolm < alpha && (*c.Lo > 0 || *c.Hi < 0):
		up := *c.RelDiff > 0
		if up == t.HigherIsBetter {
			c.Verdict = Better
		} else {
			c.Verdict = Worse
		}
		c.Reason = fmt.Sprintf("B/A − 1 = %+.1f%% [%+.1f%%, %+.1f%%], p = %.3g after Holm's correction", 100**c.RelDiff, 100**c.Lo, 100**c.Hi, *c.PHolm)
		c.NeedReps = 0
	default:
		c.Verdict = Inconclusive
		c.Reason = fmt.Sprintf("B/A − 1 = %+.1f%% [%+.1f%%, %+.1f%%]: neither a difference beyond chance nor inside ±%.0f%%; about %d repetitions per run would decide",
			100**c.RelDiff, 100**c.Lo, 100**c.Hi, 100*margin, max(c.NeedReps, 2))
	}
}

func logs(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		if !(v > 0) {
			return nil
		}
		out[i] = math.Log(v)
	}
	return out
}

func mean(vs []float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

func variance(vs []float64, m float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += (v - m) * (v - m)
	}
	return s / float64(len(vs)-1)
}
