package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

// exactQuantile is the nearest-rank order statistic of sorted samples: the
// smallest sample with at least q·n samples at or below it. It shares no code
// with hist or stats: the answer the reported figures are held to.
func exactQuantile(sorted []int64, q float64) int64 {
	k := int(math.Ceil(q * float64(len(sorted))))
	k = max(k, 1)
	return sorted[k-1]
}

// Every percentile a report prints, against exact order statistics of the
// same samples: a histogram keeps 3 significant digits, so each figure is the
// exact one within 0.2 % (its bucket's width, and a neighbouring rank's). The
// samples are chosen so that the percentiles differ by far more than that:
// reporting one percentile as another, or a rank off by a tenth of the tail,
// fails.
func TestPercentilesAgainstExactOrderStatistics(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 2026))
	sets := map[string][]int64{}
	// Log-normal, median 10 ms: a service's usual shape.
	var ln []int64
	for range 200_000 {
		ln = append(ln, int64(10e6*math.Exp(0.8*r.NormFloat64())))
	}
	sets["lognormal"] = ln
	// Two modes, 93 % near 1 ms and 7 % near 100 ms (a cold start's share):
	// p90 lies in the first mode, p95 and p99 in the second.
	var bi []int64
	for i := range 100_000 {
		base := 1e6
		if i%100 < 7 {
			base = 100e6
		}
		bi = append(bi, int64(base*(1+0.2*r.Float64())))
	}
	sets["bimodal"] = bi
	for name, xs := range sets {
		h := hist.New()
		var sum float64
		for _, x := range xs {
			h.Record(x)
			sum += float64(x)
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		p := Of(h)
		if p.Count != int64(len(xs)) {
			t.Fatalf("%s: count %d, want %d", name, p.Count, len(xs))
		}
		for _, c := range []struct {
			name string
			got  *float64
			q    float64
		}{{"p50", p.P50, 0.5}, {"p90", p.P90, 0.9}, {"p95", p.P95, 0.95}, {"p99", p.P99, 0.99}, {"p99.9", p.P999, 0.999}} {
			want := float64(exactQuantile(sorted, c.q)) / 1e6
			if c.got == nil {
				t.Errorf("%s: %s withheld with %d samples", name, c.name, len(xs))
				continue
			}
			if rel := math.Abs(*c.got-want) / want; rel > 0.002 {
				t.Errorf("%s: %s = %.4f ms, exact order statistic %.4f ms (%.2f %% off)", name, c.name, *c.got, want, 100*rel)
			}
		}
		wantMean := sum / float64(len(xs)) / 1e6
		if rel := math.Abs(p.Mean-wantMean) / wantMean; rel > 0.002 {
			t.Errorf("%s: mean %.4f ms, exact %.4f ms", name, p.Mean, wantMean)
		}
		if rel := math.Abs(p.Min-float64(sorted[0])/1e6) / (float64(sorted[0]) / 1e6); rel > 0.002 {
			t.Errorf("%s: min %.4f ms, exact %.4f ms", name, p.Min, float64(sorted[0])/1e6)
		}
		if rel := math.Abs(p.Max-float64(sorted[len(sorted)-1])/1e6) / (float64(sorted[len(sorted)-1]) / 1e6); rel > 0.002 {
			t.Errorf("%s: max %.4f ms, exact %.4f ms", name, p.Max, float64(sorted[len(sorted)-1])/1e6)
		}
	}
	// The bimodal set's p90 and p95 sit in different modes: a figure swapped
	// between them is off by about a hundred times.
	bs := slices.Clone(bi)
	slices.Sort(bs)
	if exactQuantile(bs, 0.95) < 50*exactQuantile(bs, 0.9) {
		t.Fatalf("the bimodal samples do not separate p90 and p95: %d %d", exactQuantile(bs, 0.9), exactQuantile(bs, 0.95))
	}
}
