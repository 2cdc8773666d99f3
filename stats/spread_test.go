package stats

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

// Three repetitions of one uniform latency scaled ×1, ×2, ×3: each p50 is
// 0.5, 1 and 1.5 ms, whose CV is 0.5; the within-run intervals of 10,000
// samples are narrow, so the repetitions differ far beyond them.
func TestSpreadOfScaledRepetitions(t *testing.T) {
	var hs []*hist.Histogram
	for k := int64(1); k <= 3; k++ {
		h := hist.New()
		for i := int64(1); i <= 10000; i++ {
			h.Record(k * i * 100) // 0.1 µs .. 1 ms, times k
		}
		hs = append(hs, h)
	}
	sp := SpreadOf(hs)
	if len(sp) != 4 || sp[0].Percentile != "p50" || sp[3].Percentile != "p99.9" {
		t.Fatalf("spread %+v: want p50, p90, p99 and p99.9", sp)
	}
	p50 := sp[0]
	for i, want := range []float64{0.5, 1, 1.5} {
		if math.Abs(p50.PerRepetitionMs[i]-want) > want*0.002 {
			t.Errorf("repetition %d p50 %.4f ms, want %.4f", i+1, p50.PerRepetitionMs[i], want)
		}
	}
	if math.Abs(p50.BetweenCV-0.5) > 0.002 {
		t.Errorf("between CV %.4f, want 0.5", p50.BetweenCV)
	}
	// The order-statistic interval of the median of 10,000: ranks 4902..5099,
	// a relative half-width of about 0.02.
	if p50.WithinHalfWidth < 0.015 || p50.WithinHalfWidth > 0.025 {
		t.Errorf("within half-width %.4f, want about 0.02", p50.WithinHalfWidth)
	}
	if p50.BetweenOverWithin < 30 {
		t.Errorf("between over within %.1f: repetitions this different must stand far above 1", p50.BetweenOverWithin)
	}
}

// Repetitions drawn from one distribution differ by sampling noise only:
// the ratio stays near 1 (over 200 simulated experiments of 5 repetitions,
// its median within [0.6, 1.4]). Samples are independent here, as the
// within-run interval assumes.
func TestSpreadOfOneDistributionIsNearOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var ratios []float64
	for range 200 {
		var hs []*hist.Histogram
		for range 5 {
			h := hist.New()
			for range 4000 {
				h.Record(int64(1e6 * rng.ExpFloat64()))
			}
			hs = append(hs, h)
		}
		ratios = append(ratios, SpreadOf(hs)[0].BetweenOverWithin)
	}
	sort.Float64s(ratios)
	if m := median(ratios); m < 0.6 || m > 1.4 {
		t.Errorf("median ratio %.2f over 200 experiments, want about 1", m)
	}
}

func TestSpreadNeedsTwoRepetitionsWithEnoughSamples(t *testing.T) {
	h := hist.New()
	for i := int64(1); i <= 50; i++ {
		h.Record(i * 1000)
	}
	if sp := SpreadOf([]*hist.Histogram{h}); sp != nil {
		t.Errorf("one repetition: %+v", sp)
	}
	sp := SpreadOf([]*hist.Histogram{h, h})
	if len(sp) != 1 || sp[0].Percentile != "p50" || sp[0].BetweenCV != 0 {
		t.Errorf("50 samples each: %+v, want p50 only (p90 needs 100), no spread", sp)
	}
}

// Repetitions with no spread within or between them: a zero half-width gives no ratio (0, never NaN).
func TestSpreadOfIdenticalConstantRepetitions(t *testing.T) {
	sp := SpreadOf([]*hist.Histogram{constantHist(5, 200), constantHist(5, 200)})
	if len(sp) == 0 {
		t.Fatal("no spread of two repetitions of 200")
	}
	for _, s := range sp {
		if s.BetweenCV != 0 || s.WithinHalfWidth != 0 || s.BetweenOverWithin != 0 {
			t.Errorf("%s: %+v, want zeros", s.Percentile, s)
		}
	}
}
