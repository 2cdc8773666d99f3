package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Reps summarises one figure over repetitions: the repetition, not the
// request, is the unit of inference (requests of one run are correlated).
type Reps struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	// MedianLo/Hi is a distribution-free 95 % interval for the median from
	// order statistics: it needs at least 6 repetitions (nil below).
	MedianLo *float64 `json:"median_lo"`
	MedianHi *float64 `json:"median_hi"`
	// MeanLo/Hi is a t interval for the mean (nil below 2 repetitions).
	MeanLo *float64 `json:"mean_lo"`
	MeanHi *float64 `json:"mean_hi"`
	// Note says why an interval is missing or wide.
	Note string `json:"note,omitempty"`
}

// MinRepsMedianCI is the fewest repetitions with a 95 % median interval.
const MinRepsMedianCI = 6

// SummariseReps computes the figures of vs (one value per repetition).
func SummariseReps(vs []float64) Reps {
	r := Reps{N: len(vs)}
	if len(vs) == 0 {
		r.Note = "no repetition"
		return r
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	r.Min, r.Max = s[0], s[len(s)-1]
	r.Median = median(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	r.Mean = sum / float64(len(s))
	if len(s) >= 2 {
		sd := stddev(s, r.Mean)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(s) - 1)}.Quantile(0.975)
		lo, hi := r.Mean-t*sd/math.Sqrt(float64(len(s))), r.Mean+t*sd/math.Sqrt(float64(len(s)))
		r.MeanLo, r.MeanHi = &lo, &hi
	}
	if k := medianCIRank(len(s)); k > 0 {
		lo, hi := s[k-1], s[len(s)-k]
		r.MedianLo, r.MedianHi = &lo, &hi
	} else {
		r.Note = "fewer than 6 repetitions: no 95 % interval for the median (min–max shown instead)"
	}
	if len(s) < 2 {
		r.Note = "one repetition: no spread, no interval"
	}
	return r
}

// medianCIRank is the largest k with P(Binomial(n, ½) < k) <= 2.5 %: the
// interval [x(k), x(n−k+1)] covers the median with at least 95 %. 0: none.
func medianCIRank(n int) int {
	b := distuv.Binomial{N: float64(n), P: 0.5}
	k := 0
	for j := 1; j <= n/2; j++ {
		if b.CDF(float64(j-1)) <= 0.025 {
			k = j
		}
	}
	return k
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func stddev(vs []float64, mean float64) float64 {
	if len(vs) < 2 {
		return 0
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(vs)-1))
}
