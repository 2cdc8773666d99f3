package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Trend is the Mann-Kendall test of a series for a monotone trend, with
// its variance inflated for the series' lag-1 autocorrelation (per-second
// figures of one run are autocorrelated; uncorrected, the test finds
// trends in stationary noise far more often than it says), and Sen's
// slope.
type Trend struct {
	N int
	// P is the two-sided p-value of "no trend".
	P float64
	// Slope is Sen's slope (the median of pairwise slopes) per step;
	// Relative is Slope × (N − 1) ÷ the series' median: how much the trend
	// moves the series over its length.
	Slope, Relative float64
	// Rho is the lag-1 autocorrelation of the detrended series, corrected
	// for its small-sample bias, used to inflate the variance (clamped to
	// [0, 0.9]).
	Rho float64
}

// MannKendall tests xs (at least 4 values) for a trend.
func MannKendall(xs []float64) (Trend, bool) {
	n := len(xs)
	if n < 4 {
		return Trend{N: n}, false
	}
	s := 0.0
	var slopes []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := xs[j] - xs[i]
			switch {
			case d > 0:
				s++
			case d < 0:
				s--
			}
			slopes = append(slopes, d/float64(j-i))
		}
	}
	sort.Float64s(slopes)
	t := Trend{N: n, Slope: median(slopes)}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	if m := median(sorted); m != 0 {
		t.Relative = t.Slope * float64(n-1) / m
	}
	// Ties shrink the variance: Σ t(t−1)(2t+5) over groups of equal values.
	ties := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		k := float64(j - i)
		ties += k * (k - 1) * (2*k + 5)
		i = j
	}
	nf := float64(n)
	v := (nf*(nf-1)*(2*nf+5) - ties) / 18
	// The lag-1 autocorrelation of the series less its Sen trend.
	res := make([]float64, n)
	for i, x := range xs {
		res[i] = x - t.Slope*float64(i)
	}
	// The sample lag-1 autocorrelation is biased low by about (1 + 3ρ)/n
	// (Kendall); corrected, the test keeps its level on short series.
	r1 := lag1(res)
	t.Rho = math.Min(math.Max((nf*r1+1)/(nf-3), 0), 0.9)
	v *= (1 + t.Rho) / (1 - t.Rho)
	if v <= 0 {
		t.P = 1
		return t, true
	}
	var z float64
	switch {
	case s > 0:
		z = (s - 1) / math.Sqrt(v)
	case s < 0:
		z = (s + 1) / math.Sqrt(v)
	}
	t.P = 2 * (1 - distuv.UnitNormal.CDF(math.Abs(z)))
	return t, true
}

func lag1(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var num, den float64
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (x - m) * (xs[i-1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// SteadyAlpha and SteadyShift decide steadiness: a series is not steady when
// its trend is significant at SteadyAlpha and moves it by more than
// SteadyShift of its median over its length (a tiny but significant drift
// of a long run is no reason to distrust it).
const (
	SteadyAlpha = 0.01
	SteadyShift = 0.10
)

// Steady judges a per-second series (throughput, a median latency): the
// warm-up it still holds is found by MSER, the Marginal Standard Error
// Rule (the cut d ≤ n/2 that minimises the standard error of the rest's
// mean: White 1997), and counts when the part cut differs from the rest
// by more than SteadyShift; the rest is then tested for a trend
// (MannKendall, corrected for autocorrelation). steady is false when
// either is found; from is where the series became steady (the warm-up
// it needed, in steps), -1 when it drifts throughout.
func Steady(xs []float64) (steady bool, from int, t Trend) {
	if len(xs) < 4 {
		return true, 0, Trend{N: len(xs)}
	}
	d := mserCut(xs)
	rest := xs[d:]
	t, _ = MannKendall(rest)
	if drifts(t) {
		return false, -1, t
	}
	if d > 0 {
		head, tail := mean(xs[:d]), mean(rest)
		if tail != 0 && math.Abs(head-tail)/math.Abs(tail) > SteadyShift {
			return false, d, t
		}
	}
	return true, 0, t
}

// mserCut is the MSER truncation point: argmin over d ≤ n/2 of
// Σ(x − mean)² / (n − d)² over xs[d:].
func mserCut(xs []float64) int {
	best, bestD := math.Inf(1), 0
	for d := 0; d <= len(xs)/2; d++ {
		rest := xs[d:]
		m := mean(rest)
		ss := 0.0
		for _, x := range rest {
			ss += (x - m) * (x - m)
		}
		k := float64(len(rest))
		if v := ss / (k * k); v < best-1e-12 {
			best, bestD = v, d
		}
	}
	return bestD
}

func drifts(t Trend) bool { return t.N >= 4 && t.P < SteadyAlpha && math.Abs(t.Relative) > SteadyShift }
