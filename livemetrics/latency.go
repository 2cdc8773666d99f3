package livemetrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/faasbench/faasbench/load"
)

// nativeSchema is the native histograms' resolution: 2^2 = 4 buckets an
// octave, as the load engine's per-second buckets have.
const nativeSchema = 2

// octaves are the classic histogram's upper bounds: every 2^k µs of the
// windows' buckets (exact edges of theirs: WindowPerOctave buckets each).
var octaves = func() []int {
	var out []int
	for b := load.WindowPerOctave - 1; b < load.WindowBuckets-1; b += load.WindowPerOctave {
		out = append(out, b)
	}
	return out
}()

// nativeIndex is, for each of the engine's buckets, the native bucket
// (schema 2, in seconds) that holds its geometric middle. Both have four
// buckets an octave, but the engine's start at 1 µs, not at a power of
// two: each of its buckets overlaps two native ones (about 73 % and 27 %),
// and is counted whole in the one that holds most of it. A quantile read
// from the native histogram is thus within one bucket (about 19 %) of the
// engine's.
var nativeIndex = func() [load.WindowBuckets]int {
	var out [load.WindowBuckets]int
	for b := range out {
		mid := bucketMiddle(b)
		// Native bucket i holds (2^((i-1)/4), 2^(i/4)].
		out[b] = int(math.Ceil(math.Log2(mid) * (1 << nativeSchema)))
	}
	return out
}()

// bucketMiddle is the geometric middle of the engine's bucket b, in seconds.
func bucketMiddle(b int) float64 {
	return float64(load.WindowLowestNs) * math.Exp2((float64(b)+0.5)/load.WindowPerOctave) / 1e9
}

// latencyMetric is the current cell's successful latencies as one
// histogram with both layouts: classic buckets at the octave edges (what a
// text scrape reads) and native buckets (what a protobuf scrape or the
// remote writer reads, as Prometheus' native histograms).
type latencyMetric struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	ok     [load.WindowBuckets]uint64
}

func newLatencyMetric(v load.LiveView, labelValues []string) latencyMetric {
	return latencyMetric{desc: descCellLat, labels: prometheus.MakeLabelPairs(descCellLat, labelValues), ok: v.OK}
}

func (m latencyMetric) Desc() *prometheus.Desc { return m.desc }

// Write fills out with both layouts. The sum is estimated at each bucket's
// geometric middle (the engine keeps no sum).
func (m latencyMetric) Write(out *dto.Metric) error {
	h := &dto.Histogram{Schema: proto.Int32(nativeSchema), ZeroThreshold: proto.Float64(0), ZeroCount: proto.Uint64(0)}
	var cum, count uint64
	var sum float64
	next := 0
	first, last := -1, -1
	for b, n := range m.ok {
		cum += n
		count += n
		sum += float64(n) * bucketMiddle(b)
		if next < len(octaves) && b == octaves[next] {
			h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(float64(load.WindowBucketUpperNs(b)) / 1e9), CumulativeCount: proto.Uint64(cum)})
			next++
		}
		if n > 0 {
			if first < 0 {
				first = b
			}
			last = b
		}
	}
	h.SampleCount, h.SampleSum = proto.Uint64(count), proto.Float64(sum)
	if first < 0 {
		// No observation: an empty span says the histogram is native (as client_golang does).
		h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(0)}}
	} else {
		// The engine's buckets map to consecutive native ones: one span, counts as deltas.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(int32(nativeIndex[first])), Length: proto.Uint32(uint32(last - first + 1))}}
		var prev int64
		for b := first; b <= last; b++ {
			h.PositiveDelta = append(h.PositiveDelta, int64(m.ok[b])-prev)
			prev = int64(m.ok[b])
		}
	}
	out.Label, out.Histogram = m.labels, h
	return nil
}
