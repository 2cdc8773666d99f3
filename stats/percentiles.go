// Package stats computes the figures faasbench reports.
package stats

import (
	"math"

	"github.com/faasbench/faasbench/hist"
)

// Percentiles summarises a latency histogram in milliseconds. A percentile
// pq is given only when there are at least 10/(1−q) samples (20 for p50,
// 100 for p90, 1000 for p99, 10000 for p99.9); otherwise it is null: a tail
// estimated from too few samples is noise, not a figure.
type Percentiles struct {
	Count int64    `json:"count"`
	Min   float64  `json:"min"`
	Mean  float64  `json:"mean"`
	Std   float64  `json:"std"`
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P95   *float64 `json:"p95"`
	P99   *float64 `json:"p99"`
	P999  *float64 `json:"p99_9"`
	Max   float64  `json:"max"`
	// GeoMean and HarmMean are the geometric and harmonic means (seed 000's
	// Table 3 gives all three); CV is Std / Mean.
	GeoMean  float64 `json:"geo_mean"`
	HarmMean float64 `json:"harm_mean"`
	CV       float64 `json:"cv"`
	// Clamped counts the values over the histogram's ceiling (hist.Highest,
	// 10 min) that were recorded at the ceiling: when it is not zero, Max and
	// the percentiles at or above the clamped share are lower bounds.
	Clamped int64 `json:"clamped,omitempty"`
	// Intervals are 95 % intervals of p50, p90, p99 and p99.9, each saying
	// its method: within a cell, the order-statistic one (WithinRun); for a
	// key pooled over repetitions, the bootstrap over them (AcrossReps).
	Intervals *Intervals `json:"intervals,omitempty"`
}

// MinSamples is the smallest count at which quantile q is reported.
func MinSamples(q float64) int64 { return int64(math.Ceil(10/(1-q) - 1e-9)) }

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// Of summarises h (values in ns) in ms.
func Of(h *hist.Histogram) Percentiles {
	p := Percentiles{Count: h.Count()}
	if p.Count == 0 {
		return p
	}
	p.Min, p.Max = ms(h.Min()), ms(h.Max())
	p.Clamped = h.Clamped()
	p.Mean, p.Std = h.Mean()/1e6, h.StdDev()/1e6
	q := func(x float64) *float64 {
		if p.Count < MinSamples(x) {
			return nil
		}
		v := ms(h.Quantile(x))
		return &v
	}
	p.P50, p.P90, p.P95, p.P99, p.P999 = q(0.5), q(0.9), q(0.95), q(0.99), q(0.999)
	var logSum, invSum float64
	h.Each(func(ns, c int64) {
		v := ms(ns)
		logSum += float64(c) * math.Log(v)
		invSum += float64(c) / v
	})
	p.GeoMean = math.Exp(logSum / float64(p.Count))
	p.HarmMean = float64(p.Count) / invSum
	if p.Mean > 0 {
		p.CV = p.Std / p.Mean
	}
	return p
}
