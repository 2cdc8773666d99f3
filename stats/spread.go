package stats

import (
	"sort"

	"github.com/faasbench/faasbench/hist"
)

// Spread sets the spread between repetitions of one percentile beside the
// uncertainty within each: each repetition's value; their coefficient of
// variation (sample standard deviation over mean); the median relative
// half-width of the repetitions' within-run order-statistic intervals; and
// BetweenOverWithin, the between-repetition CV over the within-run standard
// error that half-width implies (half-width / 1.96). Were the repetitions
// samples of one distribution, differing only by sampling noise, it would
// be about 1; well above 1, the runs differ by more than the within-run
// interval admits (placement, a warm cache, a neighbour), and only the
// interval across repetitions is to be trusted.
type Spread struct {
	Percentile        string    `json:"percentile"`
	PerRepetitionMs   []float64 `json:"per_repetition_ms"`
	BetweenCV         float64   `json:"between_cv"`
	WithinHalfWidth   float64   `json:"within_half_width"`
	BetweenOverWithin float64   `json:"between_over_within"`
}

// quantileNames are the names of quantiles.
var quantileNames = [4]string{"p50", "p90", "p99", "p99.9"}

// SpreadOf is the Spread of each reported percentile that every one of hs
// (one histogram of ns values per repetition, at least 2) has enough
// samples for; nil otherwise.
func SpreadOf(hs []*hist.Histogram) []Spread {
	if len(hs) < 2 {
		return nil
	}
	var out []Spread
	for i, q := range quantiles {
		s := Spread{Percentile: quantileNames[i]}
		var halves []float64
		for _, h := range hs {
			if h == nil || h.Count() < MinSamples(q) {
				s.PerRepetitionMs = nil
				break
			}
			v := ms(h.Quantile(q))
			s.PerRepetitionMs = append(s.PerRepetitionMs, v)
			if iv := WithinRun(h); iv != nil && *iv.at(i) != nil && v > 0 {
				in := *iv.at(i)
				halves = append(halves, (in.Hi-in.Lo)/2/v)
			}
		}
		if len(s.PerRepetitionMs) != len(hs) {
			continue
		}
		if m := mean(s.PerRepetitionMs); m > 0 {
			s.BetweenCV = stddev(s.PerRepetitionMs, m) / m
		}
		if len(halves) == len(hs) {
			sort.Float64s(halves)
			s.WithinHalfWidth = median(halves)
			if s.WithinHalfWidth > 0 {
				s.BetweenOverWithin = s.BetweenCV / (s.WithinHalfWidth / 1.959964)
			}
		}
		out = append(out, s)
	}
	return out
}
