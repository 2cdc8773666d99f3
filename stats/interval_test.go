package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

func TestOrderStatisticRanksMatchTheTables(t *testing.T) {
	// The distribution-free 95 % interval of the median of 100 samples is
	// [x(40), x(61)] (e.g. Conover, Practical Nonparametric Statistics).
	if lo, hi, ok := OrderStatisticRanks(100, 0.5, 0.95); !ok || lo != 40 || hi != 61 {
		t.Errorf("median of 100: ranks %d, %d (%v), want 40, 61", lo, hi, ok)
	}
	// Five samples cannot bound their median at 95 % (P(all above) = 1/32 > 2.5 %).
	if _, _, ok := OrderStatisticRanks(5, 0.5, 0.95); ok {
		t.Error("an interval for the median of 5")
	}
	// p99 needs enough samples above it: with 100, none bounds it from above.
	if _, _, ok := OrderStatisticRanks(100, 0.99, 0.95); ok {
		t.Error("an interval for p99 of 100 samples")
	}
	lo, hi, ok := OrderStatisticRanks(100000, 0.99, 0.95)
	if !ok || lo >= 99000 || hi <= 99000 || hi-lo > 200 {
		t.Errorf("p99 of 100000: ranks %d, %d", lo, hi)
	}
}

// The within-run interval covers the true quantile of independent samples
// at least as often as it says (95 %), and not far more: 400 runs of 2000
// exponential samples, p50 and p99, against the known quantiles.
func TestWithinRunIntervalCoversAtItsLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const mean = 10e6 // ns
	truth := map[int]float64{0: mean * math.Log(2) / 1e6, 2: -mean * math.Log(0.01) / 1e6}
	covered := map[int]int{}
	const runs = 400
	for range runs {
		h := hist.New()
		for range 2000 {
			h.Record(int64(rng.ExpFloat64() * mean))
		}
		iv := WithinRun(h)
		if iv == nil || iv.P50 == nil || iv.P99 == nil || iv.P999 != nil {
			t.Fatalf("intervals %+v: want p50, p90, p99 and no p99.9 at n = 2000", iv)
		}
		for i, want := range truth {
			x := *iv.at(i)
			if x.Method != MethodOrderStatistic {
				t.Fatalf("method %q", x.Method)
			}
			// the histogram's 3 significant digits widen each bound by < 0.1 %
			if x.Lo*0.999 <= want && want <= x.Hi*1.001 {
				covered[i]++
			}
		}
	}
	for i, n := range covered {
		if share := float64(n) / runs; share < 0.92 || share > 0.995 {
			t.Errorf("p%v: the interval covered the true quantile in %.1f %% of runs, want about 95 %%", quantiles[i]*100, share*100)
		}
	}
}

func constantHist(ms float64, n int) *hist.Histogram {
	h := hist.New()
	for range n {
		h.Record(int64(ms * 1e6))
	}
	return h
}

// Three repetitions of constant latency 10, 20 and 30 ms: every resample of
// whole repetitions is one of 10 multisets, and the pooled median is the
// middle one drawn. Drawing the first three times (probability 1/27, 3.7 %)
// gives 10 ms and the third three times 30 ms, so the exact bootstrap's
// 2.5 % and 97.5 % points are 10 and 30 ms.
func TestAcrossRepsIsTheExactBootstrap(t *testing.T) {
	hs := []*hist.Histogram{constantHist(10, 1000), constantHist(20, 1000), constantHist(30, 1000)}
	iv := AcrossReps(hs, 1)
	if iv == nil || iv.P50 == nil || iv.P99 == nil {
		t.Fatalf("intervals %+v", iv)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.05 }
	if !near(iv.P50.Lo, 10) || !near(iv.P50.Hi, 30) || iv.P50.Method != MethodBootstrapReps {
		t.Errorf("p50 interval %+v, want [10, 30] ms by the bootstrap over repetitions", iv.P50)
	}
	// The probabilities of the resamples add up to 1.
	var sum float64
	w := make([]int, 3)
	for a := 0; a <= 3; a++ {
		for b := 0; a+b <= 3; b++ {
			w[0], w[1], w[2] = a, b, 3-a-b
			sum += multinomial(w)
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("resample probabilities add up to %v", sum)
	}
	// Identical repetitions: no spread between them, a zero-width interval.
	same := AcrossReps([]*hist.Histogram{constantHist(5, 500), constantHist(5, 500)}, 1)
	if same == nil || same.P90 == nil || !near(same.P90.Lo, 5) || !near(same.P90.Hi, 5) {
		t.Errorf("identical repetitions: %+v", same)
	}
	if AcrossReps(hs[:1], 1) != nil {
		t.Error("an interval over one repetition")
	}
	// Too few pooled samples for p99.9: none for it.
	if iv.P999 != nil {
		t.Errorf("p99.9 from 3000 samples: %+v", iv.P999)
	}
}

// Above 7 repetitions the bootstrap is 2000 seeded resamples: the same seed
// gives the same interval, which brackets the pooled percentile.
func TestAcrossRepsMonteCarloIsSeededAndBracketsThePool(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var hs []*hist.Histogram
	pooled := hist.New()
	for r := range 10 {
		h := hist.New()
		for range 3000 {
			h.Record(int64((1 + 0.1*float64(r)) * rng.ExpFloat64() * 5e6))
		}
		hs = append(hs, h)
		if err := pooled.Merge(h); err != nil {
			t.Fatal(err)
		}
	}
	a, b := AcrossReps(hs, 42), AcrossReps(hs, 42)
	if a == nil || a.P99 == nil || *a.P99 != *b.P99 || *a.P50 != *b.P50 {
		t.Fatalf("seeded resamples differ: %+v vs %+v", a, b)
	}
	for i, q := range quantiles[:3] {
		x := *a.at(i)
		p := float64(pooled.Quantile(q)) / 1e6
		if x.Lo > p || p > x.Hi || x.Lo >= x.Hi {
			t.Errorf("p%v: interval [%v, %v] does not bracket the pooled %v", q*100, x.Lo, x.Hi, p)
		}
	}
}

// An interval is given for each percentile its samples can bound, and no Intervals at all when none can: 10
// samples bound no percentile (nil, within a run and across repetitions); 20 bound the median only.
func TestIntervalsOnlyWhereTheSamplesBoundThem(t *testing.T) {
	if iv := WithinRun(constantHist(3, 10)); iv != nil {
		t.Errorf("within a run, 10 samples: %+v, want none", iv)
	}
	if iv := AcrossReps([]*hist.Histogram{constantHist(3, 4), constantHist(4, 5)}, 1); iv != nil {
		t.Errorf("across repetitions, 9 samples pooled: %+v, want none", iv)
	}
	iv := WithinRun(constantHist(3, int(MinSamples(0.5))))
	if iv == nil || iv.P50 == nil || iv.P90 != nil || iv.P99 != nil || iv.P999 != nil {
		t.Fatalf("within a run, %d samples: %+v, want the median's interval only", MinSamples(0.5), iv)
	}
	// the histogram's 3 significant digits: within 0.1 %
	if math.Abs(iv.P50.Lo-3) > 0.003 || math.Abs(iv.P50.Hi-3) > 0.003 {
		t.Errorf("a constant 3 ms: the median's interval %+v, want [3, 3] ms", iv.P50)
	}
}

// At gives a reported percentile and its interval, nothing for a percentile that is not reported, and the
// value without an interval when the percentiles have none.
func TestPercentilesAt(t *testing.T) {
	h := hist.New()
	for i := int64(1); i <= 2000; i++ {
		h.Record(i * 1_000_000)
	}
	p := Of(h)
	p.Intervals = WithinRun(h)
	v, iv := p.At(0.9)
	if v == nil || iv == nil || *v != *p.P90 || iv != p.Intervals.P90 {
		t.Errorf("p90: %v, %+v; want %v and its interval", v, iv, *p.P90)
	}
	if v, iv := p.At(0.95); v != nil || iv != nil {
		t.Errorf("p95 has no interval here: %v, %+v", v, iv)
	}
	p.Intervals = nil
	if v, iv := p.At(0.5); v == nil || *v != *p.P50 || iv != nil {
		t.Errorf("p50 without intervals: %v, %+v", v, iv)
	}
}
