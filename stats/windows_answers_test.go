package stats

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

// Known answers for the two-level bootstrap's parts (issue 61), each against a definition computed
// another way in the test: a bucket's edges, the log-linear percentile inside a bucket, an exact
// histogram's count at or below a value (a scan of every recorded value), and the pooled percentile of
// scaled histograms (the sorted list of every scaled value).

// ramp is n latencies from `from` ns, `step` ns apart.
func ramp(n int, from, step int64) []int64 {
	xs := make([]int64, 0, n)
	for i := range n {
		xs = append(xs, from+int64(i)*step)
	}
	return xs
}

// identical is n repetitions, each of the same seconds.
func identical(n int, seconds [][]int64) ([]*hist.Histogram, []Buckets) {
	var hs []*hist.Histogram
	var ws []Buckets
	for range n {
		h, b := repetition(seconds)
		hs, ws = append(hs, h), append(ws, b)
	}
	return hs, ws
}

func TestBucketEdgesAndTheirLogLinearPercentiles(t *testing.T) {
	b := Buckets{LowestNs: 1000, PerOctave: 4}
	for i, want := range []float64{1000 * math.Pow(2, 0.25), 1000 * math.Sqrt2, 1000 * math.Pow(2, 0.75), 2000} {
		if got := b.UpperNs(i); math.Abs(got-want) > 1e-9 {
			t.Errorf("bucket %d's upper edge %v, want %v", i, got, want)
		}
	}
	// Eight latencies: four in bucket 1, four in bucket 3. The q-quantile is the value at q·8 of the
	// count, log-linear within its bucket: p50 at the top of bucket 1, p90 0.8 of the way (in log) through
	// bucket 3, p99 0.98, p99.9 0.998.
	got := b.quantiles([]float64{0, 4, 0, 4})
	want := [4]float64{1000 * math.Pow(2, 0.5), 1000 * math.Pow(2, 0.75+0.8/4), 1000 * math.Pow(2, 0.75+0.98/4), 1000 * math.Pow(2, 0.75+0.998/4)}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-6*want[j] {
			t.Errorf("quantile %v: %v, want %v", quantiles[j], got[j], want[j])
		}
	}
	// Bucket 0 starts at the lowest value itself (it holds (0, lowest·2^(1/4)]): half-way through it in
	// log is lowest·2^(1/8).
	if got := b.quantiles([]float64{2}); math.Abs(got[0]-1000*math.Pow(2, 0.125)) > 1e-6 {
		t.Errorf("p50 of bucket 0 %v, want %v", got[0], 1000*math.Pow(2, 0.125))
	}
	if got := b.quantiles([]float64{0, 0}); got != [4]float64{} {
		t.Errorf("no counts: %v, want zeros", got)
	}
}

// recorded returns a histogram of xs and every value as the histogram reports it (its band's upper
// bound), one per recorded latency.
func recorded(xs []int64) (*hist.Histogram, []float64) {
	h := hist.New()
	for _, x := range xs {
		h.Record(x)
	}
	var all []float64
	h.EachBand(func(_, to, n int64) {
		for range n {
			all = append(all, float64(to))
		}
	})
	return h, all
}

func TestCDFCountsAtOrBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]int64, 500)
	for i := range xs {
		xs[i] = 1000 + rng.Int64N(50_000_000)
	}
	h, all := recorded(xs)
	c := newCDF(h)
	if c.n != int64(len(all)) {
		t.Fatalf("cdf of %d values, want %d", c.n, len(all))
	}
	probes := append([]float64{0, all[0] - 1, all[0], all[len(all)-1], all[len(all)-1] + 1}, all[17], all[250]+0.5, all[499])
	for _, x := range probes {
		var want int64
		for _, v := range all {
			if v <= x {
				want++
			}
		}
		if got := c.below(x); got != want {
			t.Errorf("below(%v) = %d, want %d", x, got, want)
		}
	}
}

// The pooled percentile of draws, each scaled by its factor, is the target-th smallest scaled value,
// target = max(1, round(q·total)), found by bisection to a millionth.
func TestPooledQuantileOfScaledDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var draws []draw
	var hs [][]float64
	for d, factor := range []float64{1, 0.8, 1.3} {
		xs := make([]int64, 200+100*d)
		for i := range xs {
			xs[i] = 5000 + rng.Int64N(20_000_000)
		}
		h, all := recorded(xs)
		c := newCDF(h)
		dr := draw{cdf: &c}
		for j := range dr.f {
			dr.f[j] = factor
		}
		draws = append(draws, dr)
		scaled := make([]float64, len(all))
		for i, v := range all {
			scaled[i] = v * factor
		}
		hs = append(hs, scaled)
	}
	var pooled []float64
	for _, s := range hs {
		pooled = append(pooled, s...)
	}
	sort.Float64s(pooled)
	for j, q := range quantiles {
		target := max(1, int(math.Round(q*float64(len(pooled)))))
		want := pooled[target-1]
		got, ok := pooledQuantile(draws, j, q)
		if !ok || math.Abs(got-want) > 2e-6*want {
			t.Errorf("q %v: %v %v, want %v (the %d-th of %d)", q, got, ok, want, target, len(pooled))
		}
	}
	// The least value itself when the target is the first.
	one := []draw{draws[0]}
	if got, ok := pooledQuantile(one, 0, 0.001); !ok || got != one[0].cdf.values[0] {
		t.Errorf("q 0.001 of 200: %v %v, want the least value %v", got, ok, one[0].cdf.values[0])
	}
	if _, ok := pooledQuantile([]draw{{cdf: &cdf{}}}, 0, 0.5); ok {
		t.Error("no values: a percentile given")
	}
}

// Identical repetitions of identical seconds: every resample is the run itself, so each interval
// closes on the exact percentile of the pooled histogram (its band's upper bound).
func TestTwoLevelOfIdenticalRepetitionsIsTheExactPercentile(t *testing.T) {
	sec := ramp(1000, 2_000_000, 1000)
	hs, ws := identical(3, [][]int64{sec, sec})
	iv := AcrossRepsAndWindows(hs, ws, 1)
	if iv == nil || iv.P50 == nil || iv.P99 == nil {
		t.Fatalf("intervals %+v", iv)
	}
	_, all := recorded(append(append([]int64{}, sec...), sec...))
	for _, c := range []struct {
		q  float64
		iv *Interval
	}{{0.5, iv.P50}, {0.9, iv.P90}, {0.99, iv.P99}} {
		// Pooled over three draws of 2000: the round(q·6000)-th value, the same as the round(q·2000)-th
		// of one (each value three times).
		want := all[max(1, int(math.Round(c.q*2000)))-1] / 1e6
		if math.Abs(c.iv.Lo-want) > 0.002 || math.Abs(c.iv.Hi-want) > 0.002 || c.iv.Method != MethodBootstrapRepsWindows {
			t.Errorf("p%v: [%v, %v] %s, want [%v, %v]", 100*c.q, c.iv.Lo, c.iv.Hi, c.iv.Method, want, want)
		}
	}
	// 6000 values: fewer than MinSamples(0.999) = 10000, so no p99.9 interval.
	if iv.P999 != nil {
		t.Errorf("p99.9 from 6000 values: %+v", iv.P999)
	}
}

// Two repetitions are enough; a geometry of no buckets per octave, or a repetition whose seconds hold
// nothing, gives no interval (issue 61's sweep of windows.go).
func TestTwoLevelNeedsTwoRepetitionsAndBuckets(t *testing.T) {
	sec := ramp(200, 1_000_000, 10_000)
	h1, b1 := repetition([][]int64{sec, sec})
	h2, b2 := repetition([][]int64{sec, sec})
	if iv := AcrossRepsAndWindows([]*hist.Histogram{h1, h2}, []Buckets{b1, b2}, 1); iv == nil || iv.P50 == nil {
		t.Errorf("two repetitions: %+v, want a p50 interval", iv)
	}
	flat := b2
	flat.PerOctave = 0
	if iv := AcrossRepsAndWindows([]*hist.Histogram{h1, h2}, []Buckets{flat, flat}, 1); iv != nil {
		t.Errorf("no buckets per octave: %+v, want none", iv)
	}
	empty := Buckets{LowestNs: 1000, PerOctave: 4, Seconds: [][]uint32{make([]uint32, 120), make([]uint32, 120)}}
	if iv := AcrossRepsAndWindows([]*hist.Histogram{h1, h2}, []Buckets{b1, empty}, 1); iv != nil {
		t.Errorf("a repetition whose seconds hold nothing: %+v, want none", iv)
	}
}

// A second with no completion drawn alone leaves its repetition as it is (a factor of 1): identical
// repetitions of one busy and one empty second still close on the exact percentile.
func TestTwoLevelEmptySecondsMoveNothing(t *testing.T) {
	sec := ramp(1000, 2_000_000, 1000)
	hs, ws := identical(3, [][]int64{sec, nil})
	iv := AcrossRepsAndWindows(hs, ws, 7)
	if iv == nil || iv.P50 == nil {
		t.Fatalf("intervals %+v, want p50", iv)
	}
	_, all := recorded(sec)
	want := all[499] / 1e6
	if math.Abs(iv.P50.Lo-want) > 0.002 || math.Abs(iv.P50.Hi-want) > 0.002 {
		t.Errorf("p50 [%v, %v], want [%v, %v]", iv.P50.Lo, iv.P50.Hi, want, want)
	}
}

// A percentile's interval is given from exactly MinSamples(q) values (p99 from 1000), not fewer; the pooled
// percentile's search starts at the least scaled value, a factor under 1 included.
func TestTwoLevelFloorAndTheLeastScaledValue(t *testing.T) {
	sec := ramp(250, 1_000_000, 10_000)
	hs, ws := identical(2, [][]int64{sec, sec})
	if iv := AcrossRepsAndWindows(hs, ws, 1); iv == nil || iv.P99 == nil || iv.P999 != nil {
		t.Errorf("1000 values: %+v, want a p99 interval and no p99.9", iv)
	}
	h, all := recorded(sec)
	c := newCDF(h)
	d := draw{cdf: &c}
	for j := range d.f {
		d.f[j] = 0.8
	}
	if got, ok := pooledQuantile([]draw{d}, 0, 0.001); !ok || math.Abs(got-0.8*all[0]) > 1e-6*all[0] {
		t.Errorf("the least of 250 values scaled by 0.8: %v %v, want %v", got, ok, 0.8*all[0])
	}
}
