package stats

import (
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
