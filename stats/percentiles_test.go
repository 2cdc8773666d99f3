package stats

import (
	"math"
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
)

func TestMinSamples(t *testing.T) {
	for q, want := range map[float64]int64{0.5: 20, 0.9: 100, 0.95: 200, 0.99: 1000, 0.999: 10000} {
		if got := MinSamples(q); got != want {
			t.Errorf("MinSamples(%v) = %d, want %d", q, got, want)
		}
	}
}

func TestOfWithholdsTailsOfSmallSamples(t *testing.T) {
	h := hist.New()
	for i := 1; i <= 150; i++ {
		h.Record(int64(i) * int64(time.Millisecond))
	}
	p := Of(h)
	if p.Count != 150 || p.P50 == nil || p.P90 == nil || p.P99 != nil || p.P999 != nil {
		t.Fatalf("count %d p50 %v p90 %v p99 %v p999 %v", p.Count, p.P50, p.P90, p.P99, p.P999)
	}
	if *p.P50 < 74.9 || *p.P50 > 75.1 || p.Max < 149.8 || p.Min < 0.99 {
		t.Errorf("p50 %v min %v max %v", *p.P50, p.Min, p.Max)
	}
	if e := Of(hist.New()); e.Count != 0 || e.P50 != nil {
		t.Errorf("empty: %+v", e)
	}
}

// Seed 000's Table 3: arithmetic, geometric and harmonic means.
func TestMeans(t *testing.T) {
	h := hist.New()
	for _, ms := range []int64{1, 2, 4} {
		h.Record(ms * 1_000_000)
	}
	p := Of(h)
	near := func(a, b float64) bool { return a > b*0.995 && a < b*1.005 }
	if !near(p.Mean, 7.0/3) || !near(p.GeoMean, 2) || !near(p.HarmMean, 3/(1+0.5+0.25)) {
		t.Errorf("means %v %v %v, want 2.333 2 1.714", p.Mean, p.GeoMean, p.HarmMean)
	}
	if !(p.HarmMean <= p.GeoMean && p.GeoMean <= p.Mean) || p.CV <= 0 {
		t.Errorf("HM <= GM <= AM broken or CV %v", p.CV)
	}
}

// The spread figures from the samples themselves: the standard deviation of 1, 2 and 4 ms (the histogram's, over
// n, as HdrHistogram computes it) and the CV, its ratio to the mean; a percentile appears at exactly its
// MinSamples count and not one sample before.
func TestSpreadFiguresAndTheFirstCountWithAPercentile(t *testing.T) {
	h := hist.New()
	for _, ms := range []int64{1, 2, 4} {
		h.Record(ms * 1_000_000)
	}
	p := Of(h)
	mean := 7.0 / 3
	std := math.Sqrt(((1-mean)*(1-mean) + (2-mean)*(2-mean) + (4-mean)*(4-mean)) / 3)
	if math.Abs(p.Std-std) > 0.005*std || math.Abs(p.CV-std/mean) > 0.01*std/mean {
		t.Errorf("std %v, CV %v; the samples' %v, %v", p.Std, p.CV, std, std/mean)
	}
	for _, q := range []float64{0.5, 0.9} {
		n := MinSamples(q)
		short, enough := hist.New(), hist.New()
		for i := int64(1); i <= n; i++ {
			enough.Record(i * 1_000_000)
			if i < n {
				short.Record(i * 1_000_000)
			}
		}
		if v, _ := Of(enough).At(q); v == nil {
			t.Errorf("p%v missing at %d samples", 100*q, n)
		}
		if v, _ := Of(short).At(q); v != nil {
			t.Errorf("p%v given at %d samples", 100*q, n-1)
		}
	}
}
