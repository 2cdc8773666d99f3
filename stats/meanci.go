package stats

import (
	"math/rand/v2"
	"slices"
)

// MethodBootstrapMean is the interval of a mean by Efron's percentile bootstrap: the 2.5 % and
// 97.5 % points (SortedQuantile: linear interpolation, NumPy's default) of the means of meanResamples seeded
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
	return &Interval{Lo: SortedQuantile(means, lowerTail), Hi: SortedQuantile(means, upperTail), Method: MethodBootstrapMean}
}
