package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// RankTest is the distribution-free companion of Welch's test in a
// comparison: the Mann-Whitney U test of B against A (two-sided), and the
// Hodges-Lehmann estimate of B's shift over A on the log scale (the median
// of every pairwise log ratio, as a relative difference) with its Moses
// interval. Neither assumes normal repetitions; both have a floor set by
// the repetitions alone (3 against 3 can never reach p < 0.05: the
// smallest two-sided p is 0.1), which Note says.
type RankTest struct {
	U float64 `json:"u"`
	// P is the two-sided p-value: exact (every split of the pooled values)
	// when the runs have 20 repetitions together or fewer, the normal
	// approximation with its tie correction above.
	P     float64 `json:"p"`
	Exact bool    `json:"exact"`
	// RelShift is exp(Hodges-Lehmann shift of the logs) − 1; Lo/Hi its 95 %
	// Moses interval (nil when the repetitions are too few for one).
	RelShift float64  `json:"rel_shift"`
	Lo       *float64 `json:"lo,omitempty"`
	Hi       *float64 `json:"hi,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// exactRankLimit is the most repetitions (both runs together) for which the
// U test's p-value is computed from every split: C(20, 10) = 184,756.
const exactRankLimit = 20

// MannWhitney tests b against a (positive values; nil when either has no
// repetition or a value is not positive).
func MannWhitney(a, b []float64, alpha float64) *RankTest {
	la, lb := logs(a), logs(b)
	if len(la) == 0 || len(lb) == 0 || la == nil || lb == nil {
		return nil
	}
	m, n := len(la), len(lb)
	rt := &RankTest{U: uStat(la, lb)}
	if m+n <= exactRankLimit {
		rt.P, rt.Exact = exactP(la, lb, rt.U), true
	} else {
		rt.P = normalP(la, lb, rt.U)
	}
	// Hodges-Lehmann: the median of the m·n differences of logs (b − a).
	d := make([]float64, 0, m*n)
	for _, x := range la {
		for _, y := range lb {
			d = append(d, y-x)
		}
	}
	sort.Float64s(d)
	rt.RelShift = math.Exp(median(d)) - 1
	// Moses: the interval [d(k), d(mn+1−k)], k the largest count with
	// P(U < k) ≤ α/2 under the null (exact without ties, normal above).
	if k := mosesRank(m, n, alpha); k >= 1 {
		lo, hi := math.Exp(d[k-1])-1, math.Exp(d[m*n-k])-1
		rt.Lo, rt.Hi = &lo, &hi
	} else {
		rt.Note = "too few repetitions for a 95 % rank interval"
	}
	if floor := minTwoSidedP(m, n); floor > alpha {
		rt.Note = fmt.Sprintf("with %d and %d repetitions the rank test cannot reach p < %.2g (its smallest p is %.3g)", m, n, alpha, floor)
	}
	return rt
}

// uStat counts the pairs in which b's value is the larger, ties a half.
func uStat(a, b []float64) float64 {
	u := 0.0
	for _, x := range a {
		for _, y := range b {
			switch {
			case y > x:
				u++
			case y == x:
				u += 0.5
			}
		}
	}
	return u
}

// exactP is the two-sided p-value of u over every way of splitting the
// pooled values into groups of len(a) and len(b) (ties kept as they are).
func exactP(a, b []float64, u float64) float64 {
	all := append(append([]float64{}, a...), b...)
	m, mn := len(a), float64(len(a)*len(b))
	dev := math.Abs(u - mn/2)
	var total, extreme float64
	pick := make([]bool, len(all))
	var walk func(i, left int)
	walk = func(i, left int) {
		if left == 0 {
			var ga, gb []float64
			for j, v := range all {
				if pick[j] {
					ga = append(ga, v)
				} else {
					gb = append(gb, v)
				}
			}
			total++
			if math.Abs(uStat(ga, gb)-mn/2) >= dev-1e-9 {
				extreme++
			}
			return
		}
		if len(all)-i < left {
			return
		}
		pick[i] = true
		walk(i+1, left-1)
		pick[i] = false
		walk(i+1, left)
	}
	walk(0, m)
	return extreme / total
}

// normalP is the normal approximation with the tie correction.
func normalP(a, b []float64, u float64) float64 {
	m, n := float64(len(a)), float64(len(b))
	all := append(append([]float64{}, a...), b...)
	sort.Float64s(all)
	ties := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j] == all[i] {
			j++
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	N := m + n
	sd := math.Sqrt(m * n / 12 * ((N + 1) - ties/(N*(N-1))))
	if sd == 0 {
		return 1
	}
	z := (math.Abs(u-m*n/2) - 0.5) / sd
	return math.Min(1, 2*(1-distuv.UnitNormal.CDF(math.Max(z, 0))))
}

// uCounts is the null distribution of U without ties: counts[u] ways out of
// C(m+n, m) (the recurrence f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u)).
func uCounts(m, n int) []float64 {
	f := make([][][]float64, m+1)
	for i := range f {
		f[i] = make([][]float64, n+1)
		for j := range f[i] {
			f[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				f[i][j][0] = 1
				continue
			}
			for u := 0; u <= i*j; u++ {
				if u-j >= 0 && u-j < len(f[i-1][j]) {
					f[i][j][u] += f[i-1][j][u-j]
				}
				if u < len(f[i][j-1]) {
					f[i][j][u] += f[i][j-1][u]
				}
			}
		}
	}
	return f[m][n]
}

// mosesRank is the largest k ≥ 0 with P(U ≤ k−1) ≤ α/2 under the null.
func mosesRank(m, n int, alpha float64) int {
	if m+n > 2*exactRankLimit {
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		k := int(math.Floor(float64(m*n)/2 - z*math.Sqrt(float64(m*n*(m+n+1))/12)))
		return max(k, 0)
	}
	c := uCounts(m, n)
	var total float64
	for _, v := range c {
		total += v
	}
	k, cum := 0, 0.0
	for u := 0; u < len(c); u++ {
		if (cum+c[u])/total > alpha/2 {
			break
		}
		cum += c[u]
		k = u + 1
	}
	return k
}

// minTwoSidedP is the smallest two-sided p-value m against n can give
// (all of one group above all of the other).
func minTwoSidedP(m, n int) float64 {
	if m+n > 2*exactRankLimit {
		return 0
	}
	c := uCounts(m, n)
	var total float64
	for _, v := range c {
		total += v
	}
	return math.Min(1, 2*c[0]/total)
}
