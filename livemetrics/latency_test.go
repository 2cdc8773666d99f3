package livemetrics

import (
	"math"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/faasbench/faasbench/load"
)

// The latency histogram carries both layouts: classic buckets at the
// octave edges, cumulative, and native ones whose counts (deltas over one
// span) are the engine's buckets', each in the native bucket that holds
// most of it: the native upper edge within one bucket of the engine's.
func TestLatencyHistogramHasClassicAndNativeBuckets(t *testing.T) {
	var v load.LiveView
	v.OK[39], v.OK[40], v.OK[42] = 5, 7, 1 // around 1 ms; bucket 41 empty
	var m dto.Metric
	if err := newLatencyMetric(v, []string{"r", "c", "f", "local"}).Write(&m); err != nil {
		t.Fatal(err)
	}
	h := m.Histogram
	if h.GetSampleCount() != 13 || len(m.Label) != 4 {
		t.Fatalf("count %d, %d labels", h.GetSampleCount(), len(m.Label))
	}
	// Classic: cumulative at the octaves.
	for _, b := range h.Bucket {
		want := uint64(0)
		for i, n := range v.OK {
			if float64(load.WindowBucketUpperNs(i))/1e9 <= b.GetUpperBound()*(1+1e-12) {
				want += n
			}
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("classic le=%g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	// Native: schema 2, one span from bucket 39's native index, deltas giving 5, 7, 0, 1.
	if h.GetSchema() != 2 || len(h.PositiveSpan) != 1 || h.PositiveSpan[0].GetLength() != 4 || h.PositiveSpan[0].GetOffset() != int32(nativeIndex[39]) {
		t.Fatalf("native layout: schema %d, spans %v", h.GetSchema(), h.PositiveSpan)
	}
	var counts []int64
	var c int64
	for _, d := range h.PositiveDelta {
		c += d
		counts = append(counts, c)
	}
	if len(counts) != 4 || counts[0] != 5 || counts[1] != 7 || counts[2] != 0 || counts[3] != 1 {
		t.Errorf("native counts %v, want [5 7 0 1]", counts)
	}
	for b := range nativeIndex {
		if b > 0 && nativeIndex[b] != nativeIndex[b-1]+1 {
			t.Fatalf("native indices not consecutive at %d: %d after %d", b, nativeIndex[b], nativeIndex[b-1])
		}
		upper := math.Exp2(float64(nativeIndex[b])/4) * 1e9 // ns
		engine := float64(load.WindowBucketUpperNs(b))
		if r := engine / upper; r < 1 || r > math.Exp2(0.25) {
			t.Errorf("bucket %d: engine edge %.0f ns, native %.0f ns: more than a bucket apart", b, engine, upper)
		}
	}
	// No observation: still native (an empty span), count 0.
	var empty dto.Metric
	_ = newLatencyMetric(load.LiveView{}, []string{"r", "c", "f", "local"}).Write(&empty)
	if empty.Histogram.GetSampleCount() != 0 || len(empty.Histogram.PositiveSpan) != 1 || empty.Histogram.Schema == nil {
		t.Errorf("empty: %v", empty.Histogram)
	}
}
