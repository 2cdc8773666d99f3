package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/faasbench/faasbench/hist"
)

// MethodBootstrapRepsWindows is the headline interval when every
// repetition kept its per-second latency buckets: a two-level bootstrap
// that draws the repetitions with replacement (their exact histograms) and
// then, within each one drawn, its seconds with replacement (a second is a
// block: the autocorrelation within it is kept), whose effect on each
// percentile is read from the seconds' log buckets (2^(1/4) wide,
// interpolated within a bucket) as a factor.
const MethodBootstrapRepsWindows = "bootstrap over repetitions, then over each one's seconds"

// Buckets are one repetition's per-second latency distributions in log
// buckets: bucket b of a second holds the latencies in
// (LowestNs·2^(b/PerOctave), LowestNs·2^((b+1)/PerOctave)] (bucket 0 from 0).
type Buckets struct {
	LowestNs  float64    `json:"lowest_ns"`
	PerOctave int        `json:"per_octave"`
	Seconds   [][]uint32 `json:"seconds"`
}

// UpperNs is bucket i's upper edge in ns.
func (b Buckets) UpperNs(i int) float64 {
	return b.LowestNs * math.Exp2(float64(i+1)/float64(b.PerOctave))
}

// sparse is one second's non-empty buckets.
type sparse struct {
	idx []int
	n   []float64
}

// twoLevelResamples is how many resamples the two-level bootstrap draws.
const twoLevelResamples = 2000

// AcrossRepsAndWindows is AcrossReps with a second level: hs are the
// repetitions' exact histograms (ns) and ws their per-second buckets, in
// the same order, all of one geometry. Each resample draws repetitions with
// replacement; each draw resamples that repetition's seconds with
// replacement, which moves each percentile of the repetition by a factor
// (the resampled seconds' percentile over all its seconds', from their
// buckets); the draws' exact histograms, each scaled by its factor, are
// pooled and the percentile read. So the first level is exact, and the
// second adds the within-run spread the buckets can show. nil when fewer
// than 2 repetitions, a repetition without 2 seconds, or geometries that
// differ: the caller then keeps the one-level bootstrap.
func AcrossRepsAndWindows(hs []*hist.Histogram, ws []Buckets, seed uint64) *Intervals {
	if len(hs) < 2 || len(ws) != len(hs) {
		return nil
	}
	geo := ws[0]
	reps := make([]repSeconds, len(ws))
	for r, w := range ws {
		if len(w.Seconds) < 2 || w.LowestNs != geo.LowestNs || w.PerOctave != geo.PerOctave || w.PerOctave <= 0 || hs[r] == nil {
			return nil
		}
		rs := repSeconds{cdf: newCDF(hs[r])}
		for _, s := range w.Seconds {
			var sp sparse
			for i, c := range s {
				if c > 0 {
					sp.idx, sp.n = append(sp.idx, i), append(sp.n, float64(c))
					rs.width = max(rs.width, i+1)
				}
			}
			rs.secs = append(rs.secs, sp)
		}
		if rs.width == 0 {
			return nil
		}
		rs.ref = geo.quantiles(rs.sum(nil, nil))
		reps[r] = rs
	}
	var total int64
	for _, r := range reps {
		total += r.cdf.n
	}
	if total == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x2e5eed))
	dist := make([][]float64, len(quantiles))
	draws := make([]draw, len(reps))
	var acc []float64
	for range twoLevelResamples {
		for d := range draws {
			r := &reps[rng.IntN(len(reps))]
			acc = r.sum(rng, acc)
			qs := geo.quantiles(acc)
			draws[d].cdf = &r.cdf
			for j := range quantiles {
				draws[d].f[j] = 1
				if r.ref[j] > 0 && qs[j] > 0 {
					draws[d].f[j] = qs[j] / r.ref[j]
				}
			}
		}
		for j, q := range quantiles {
			if v, ok := pooledQuantile(draws, j, q); ok {
				dist[j] = append(dist[j], v)
			}
		}
	}
	iv := &Intervals{}
	for j, q := range quantiles {
		if total < MinSamples(q) || len(dist[j]) < twoLevelResamples/2 {
			continue
		}
		sort.Float64s(dist[j])
		lo := SortedQuantile(dist[j], lowerTail)
		hi := SortedQuantile(dist[j], upperTail)
		*iv.at(j) = &Interval{Lo: ms(int64(lo)), Hi: ms(int64(math.Ceil(hi))), Method: MethodBootstrapRepsWindows}
	}
	if iv.empty() {
		return nil
	}
	return iv
}

// repSeconds is one repetition: its exact distribution, its seconds, and
// the percentiles of all its seconds' buckets together.
type repSeconds struct {
	cdf   cdf
	secs  []sparse
	width int
	ref   [len(quantiles)]float64
}

// sum adds the repetition's seconds into acc (reset to its width): all of
// them once with a nil rng, else as many drawn with replacement.
func (r *repSeconds) sum(rng *rand.Rand, acc []float64) []float64 {
	if cap(acc) < r.width {
		acc = make([]float64, r.width)
	}
	acc = acc[:r.width]
	clear(acc)
	for k := range r.secs {
		s := r.secs[k]
		if rng != nil {
			s = r.secs[rng.IntN(len(r.secs))]
		}
		for m, i := range s.idx {
			acc[i] += s.n[m]
		}
	}
	return acc
}

// draw is one repetition drawn into a resample, with the factor its
// seconds' resample moved each percentile by.
type draw struct {
	cdf *cdf
	f   [len(quantiles)]float64
}

// cdf is an exact histogram's distinct values (band upper bounds, as its
// Quantile reports them) and the counts up to each.
type cdf struct {
	values []float64
	cum    []int64
	n      int64
}

func newCDF(h *hist.Histogram) cdf {
	var c cdf
	h.EachBand(func(_, ns, n int64) {
		if k := len(c.values); k > 0 && c.values[k-1] == float64(ns) {
			c.cum[k-1] += n
		} else {
			c.values, c.cum = append(c.values, float64(ns)), append(c.cum, c.n+n)
		}
		c.n += n
	})
	return c
}

// below is how many values are at most x.
func (c *cdf) below(x float64) int64 {
	i := sort.SearchFloat64s(c.values, x)
	if i < len(c.values) && c.values[i] == x {
		return c.cum[i]
	}
	if i == 0 {
		return 0
	}
	return c.cum[i-1]
}

// pooledQuantile is percentile j (quantile q) of the draws' histograms
// pooled, each scaled by its factor: the least value with at least
// q·total at or below it, found by bisection on a log scale.
func pooledQuantile(draws []draw, j int, q float64) (float64, bool) {
	var total int64
	lo, hi := math.Inf(1), 0.0
	for _, d := range draws {
		if d.cdf.n == 0 {
			continue
		}
		total += d.cdf.n
		lo = math.Min(lo, d.cdf.values[0]*d.f[j])
		hi = math.Max(hi, d.cdf.values[len(d.cdf.values)-1]*d.f[j])
	}
	if total == 0 || !(lo > 0) {
		return 0, false
	}
	target := max(1, int64(math.Round(q*float64(total))))
	count := func(x float64) int64 {
		var n int64
		for _, d := range draws {
			n += d.cdf.below(x / d.f[j])
		}
		return n
	}
	if count(lo) >= target {
		return lo, true
	}
	for range 60 {
		mid := math.Sqrt(lo * hi)
		if count(mid) >= target {
			hi = mid
		} else {
			lo = mid
		}
		if hi/lo < 1+1e-6 {
			break
		}
	}
	return hi, true
}

// quantiles are the reported percentiles of bucket counts, interpolated
// log-linearly within the bucket that holds each (0 when empty).
func (b Buckets) quantiles(counts []float64) [len(quantiles)]float64 {
	var out [len(quantiles)]float64
	var total float64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return out
	}
	j := 0
	var cum float64
	for i, c := range counts {
		if c == 0 {
			continue
		}
		for j < len(quantiles) && cum+c >= quantiles[j]*total {
			frac := (quantiles[j]*total - cum) / c
			lo := b.LowestNs
			if i > 0 {
				lo = b.UpperNs(i - 1)
			}
			out[j] = lo * math.Pow(b.UpperNs(i)/lo, frac)
			j++
		}
		cum += c
	}
	return out
}

// SortedQuantile is the q-quantile (0..1) of sorted xs, not empty (linear
// between ranks).
func SortedQuantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// NearestRank is the q-quantile (0..1) of sorted xs by nearest rank: the
// smallest value with at least a share q of xs at or below it (0 when empty).
func NearestRank(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}
