package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/faasbench/faasbench/hist"
)

// Interval is a 95 % confidence interval of one percentile, in ms, with the
// method that made it.
type Interval struct {
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Method string  `json:"method"`
}

// The methods of an Interval.
const (
	// MethodOrderStatistic is the within-run interval: the order statistics
	// whose ranks a Binomial(n, q) puts around the quantile. It assumes
	// independent samples, which a run's latencies are not (they are
	// autocorrelated): it is shown labelled, beside the headline.
	MethodOrderStatistic = "order-statistic (within the run; assumes independent samples)"
	// MethodBootstrapReps is the headline interval: the pooled percentile's
	// bootstrap over whole repetitions (each resample draws the
	// repetitions with replacement and pools their histograms), exact over
	// every resample for up to 7 repetitions, 2000 seeded resamples above.
	MethodBootstrapReps = "bootstrap over repetitions"
)

// Intervals are the intervals of the reported percentiles; a percentile
// without enough samples (MinSamples) or repetitions has none.
type Intervals struct {
	P50  *Interval `json:"p50,omitempty"`
	P90  *Interval `json:"p90,omitempty"`
	P99  *Interval `json:"p99,omitempty"`
	P999 *Interval `json:"p99_9,omitempty"`
}

// quantiles are the percentiles that get intervals, in Intervals' order.
var quantiles = [4]float64{0.5, 0.9, 0.99, 0.999}

func (iv *Intervals) at(i int) **Interval {
	return [4]**Interval{&iv.P50, &iv.P90, &iv.P99, &iv.P999}[i]
}

func (iv *Intervals) empty() bool {
	return iv.P50 == nil && iv.P90 == nil && iv.P99 == nil && iv.P999 == nil
}

// At is percentile q (0.5, 0.9, 0.99 or 0.999) of p and its interval, if
// any (nil: too few samples, or another q).
func (p Percentiles) At(q float64) (*float64, *Interval) {
	for i, x := range quantiles {
		if x != q {
			continue
		}
		v := [4]*float64{p.P50, p.P90, p.P99, p.P999}[i]
		if p.Intervals == nil {
			return v, nil
		}
		return v, *p.Intervals.at(i)
	}
	return nil, nil
}

// Confidence is the level of every interval here.
const Confidence = 0.95

// The bootstraps' interval ends: the points of the resample distribution with (1-Confidence)/2 below and
// above (2.5 % and 97.5 %), one definition for the one-level and the two-level bootstrap, held by the
// exact bootstrap's SciPy test (stats/scipy_bootstrap_test.go).
const (
	lowerTail = (1 - Confidence) / 2
	upperTail = 1 - (1-Confidence)/2
)

// OrderStatisticRanks are the 1-based ranks lo ≤ hi such that the order
// statistics [x(lo), x(hi)] of n independent samples cover their q-quantile
// with probability at least conf: with B ~ Binomial(n, q) the number of
// samples below the quantile, lo is the largest rank with P(B < lo) ≤ α/2
// and hi the smallest with P(B ≥ hi) ≤ α/2. ok is false when n is too small
// for either bound to exist.
func OrderStatisticRanks(n int64, q, conf float64) (lo, hi int64, ok bool) {
	if n < 1 || q <= 0 || q >= 1 {
		return 0, 0, false
	}
	a := (1 - conf) / 2
	b := distuv.Binomial{N: float64(n), P: q}
	cdf := func(k int64) float64 { // P(B ≤ k)
		if k < 0 {
			return 0
		}
		if k >= n {
			return 1
		}
		return b.CDF(float64(k))
	}
	// lo: the largest l in [1, n] with cdf(l-1) ≤ a (cdf grows with l).
	l, h := int64(0), n
	for l < h {
		m := l + (h-l+1)/2
		if cdf(m-1) <= a {
			l = m
		} else {
			h = m - 1
		}
	}
	lo = l
	// hi: the smallest u in [1, n] with cdf(u-1) ≥ 1-a, n+1 when none.
	l, h = 1, n+1
	for l < h {
		m := l + (h-l)/2
		if cdf(m-1) >= 1-a {
			h = m
		} else {
			l = m + 1
		}
	}
	hi = l
	if lo < 1 || hi > n {
		return 0, 0, false
	}
	return lo, hi, true
}

// WithinRun is the order-statistic interval of each reported percentile
// of h (ns values, ms out): the values at the two ranks. nil when no
// percentile has enough samples.
func WithinRun(h *hist.Histogram) *Intervals {
	if h == nil {
		return nil
	}
	n := h.Count()
	iv := &Intervals{}
	for i, q := range quantiles {
		if n < MinSamples(q) {
			continue
		}
		lo, hi, ok := OrderStatisticRanks(n, q, Confidence)
		if !ok {
			continue
		}
		*iv.at(i) = &Interval{Lo: ms(h.Quantile(float64(lo) / float64(n))), Hi: ms(h.Quantile(float64(hi) / float64(n))), Method: MethodOrderStatistic}
	}
	if iv.empty() {
		return nil
	}
	return iv
}

// exactReps is the most repetitions whose bootstrap is enumerated exactly
// (C(2·7−1, 7) = 1716 distinct resamples); above, bootstrapResamples.
const (
	exactReps          = 7
	bootstrapResamples = 2000
)

// AcrossReps is the headline interval of each reported percentile of the
// repetitions pooled (hs: one histogram of ns values per repetition): the
// 2.5 % and 97.5 % points of the pooled percentile's bootstrap
// distribution over whole repetitions. nil with fewer than 2 repetitions;
// a percentile whose pooled count is under MinSamples has none. seed makes
// the Monte Carlo resamples (above exactReps repetitions) reproducible.
func AcrossReps(hs []*hist.Histogram, seed uint64) *Intervals {
	if len(hs) < 2 {
		return nil
	}
	p := newPool(hs)
	if p.total(nil) == 0 {
		return nil
	}
	// Each resample: how many times each repetition is drawn, and its
	// probability; the percentiles of the pool it makes.
	dist := make([][]weighted, len(quantiles))
	add := func(w []int, prob float64) {
		vs, ok := p.quantiles(w)
		for i := range quantiles {
			if ok[i] {
				dist[i] = append(dist[i], weighted{vs[i], prob})
			}
		}
	}
	r := len(hs)
	if r <= exactReps {
		w := make([]int, r)
		var walk func(i, left int)
		walk = func(i, left int) {
			if i == r-1 {
				w[i] = left
				add(w, multinomial(w))
				return
			}
			for k := 0; k <= left; k++ {
				w[i] = k
				walk(i+1, left-k)
			}
		}
		walk(0, r)
	} else {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		w := make([]int, r)
		for range bootstrapResamples {
			clear(w)
			for range r {
				w[rng.IntN(r)]++
			}
			add(w, 1.0/bootstrapResamples)
		}
	}
	pooled := p.total(nil)
	iv := &Intervals{}
	for i, q := range quantiles {
		if pooled < MinSamples(q) || len(dist[i]) == 0 {
			continue
		}
		lo, hi := weightedQuantile(dist[i], lowerTail), weightedQuantile(dist[i], upperTail)
		*iv.at(i) = &Interval{Lo: ms(int64(lo)), Hi: ms(int64(hi)), Method: MethodBootstrapReps}
	}
	if iv.empty() {
		return nil
	}
	return iv
}

// pool is the repetitions' histograms on one axis: the distinct values of
// them all, and each repetition's count at each.
type pool struct {
	values []int64
	counts [][]int64 // counts[v][rep]
	n      []int64   // each repetition's total
}

func newPool(hs []*hist.Histogram) *pool {
	at := map[int64][]int64{}
	p := &pool{n: make([]int64, len(hs))}
	for r, h := range hs {
		if h == nil {
			continue
		}
		// A band is reported by its upper bound, as Quantile does, so that
		// the intervals and the percentiles speak of the same values.
		h.EachBand(func(_, ns, c int64) {
			row, ok := at[ns]
			if !ok {
				row = make([]int64, len(hs))
				at[ns] = row
			}
			row[r] += c
			p.n[r] += c
		})
	}
	for v := range at {
		p.values = append(p.values, v)
	}
	sort.Slice(p.values, func(i, j int) bool { return p.values[i] < p.values[j] })
	p.counts = make([][]int64, len(p.values))
	for i, v := range p.values {
		p.counts[i] = at[v]
	}
	return p
}

// total is the pool's count with repetition r drawn w[r] times (nil: once each).
func (p *pool) total(w []int) int64 {
	var t int64
	for r, n := range p.n {
		t += n * weight(w, r)
	}
	return t
}

func weight(w []int, r int) int64 {
	if w == nil {
		return 1
	}
	return int64(w[r])
}

// quantiles are the reported percentiles of the pool drawn with weights w
// (the value at rank max(1, round(q·total)), as the histograms report).
func (p *pool) quantiles(w []int) ([len(quantiles)]float64, [len(quantiles)]bool) {
	var vs [len(quantiles)]float64
	var ok [len(quantiles)]bool
	total := p.total(w)
	if total == 0 {
		return vs, ok
	}
	var target [len(quantiles)]int64
	for i, q := range quantiles {
		target[i] = max(1, int64(math.Round(q*float64(total))))
	}
	var cum int64
	next := 0
	for v, row := range p.counts {
		for r, c := range row {
			cum += c * weight(w, r)
		}
		for next < len(quantiles) && cum >= target[next] {
			vs[next], ok[next] = float64(p.values[v]), true
			next++
		}
		if next == len(quantiles) {
			break
		}
	}
	return vs, ok
}

// multinomial is the probability of drawing each repetition w[r] times in
// len(w) draws with replacement: n! / ∏ w[r]! / n^n.
func multinomial(w []int) float64 {
	n := len(w)
	lp := lgamma(n+1) - float64(n)*math.Log(float64(n))
	for _, k := range w {
		lp -= lgamma(k + 1)
	}
	return math.Exp(lp)
}

func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

type weighted struct{ v, p float64 }

// weightedQuantile is the smallest value whose cumulative probability
// reaches q.
func weightedQuantile(ws []weighted, q float64) float64 {
	sort.Slice(ws, func(i, j int) bool { return ws[i].v < ws[j].v })
	var total float64
	for _, w := range ws {
		total += w.p
	}
	var cum float64
	for _, w := range ws {
		cum += w.p
		if cum >= q*total-1e-12 {
			return w.v
		}
	}
	return ws[len(ws)-1].v
}
