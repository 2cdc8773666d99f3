package stats

import (
	"math/rand/v2"
	"slices"
)

// MethodBootstrapMean is the interval of a mean by Efron's percentile bootstrap: the 2.5 % and
// 97.5 % points (linear interpolation, NumPy's default) of the means of meanResamples seeded
// resamples with replacement, as SciPy's bootstrap(method="percentile") makes it.
const MethodBootstrapMean = "percentile bootstrap of the mean"

// MinMeanSamples is the fewest values MeanInterval gives an interval for: below it a resample has
// too few distinct values for its percentiles to mean anything.
const MinMeanSamples = 10

// meanResamples is how many resamples MeanInterval draws.
const meanResamples = 2000

// MeanInterval is the 95 % interval of the mean of vs (MethodBootstrapMean), reproducible for a
// seed; nil with fewer than MinMeanSamples values.
func MeanInterval(vs []float64, seed uint64) *Interval {
	n := len(vs)
	if n < MinMeanSamples {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d65616e))
	means := make([]float64, meanResamples)
	for b := range means {
		var sum float64
		for range n {
			sum += vs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	return &Interval{Lo: linearQuantile(means, lowerTail), Hi: linearQuantile(means, upperTail), Method: MethodBootstrapMean}
}

// linearQuantile is the q-quantile of sorted values by linear interpolation between the closest
// ranks (NumPy's percentile, method "linear").
func linearQuantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
