package hist

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestRecordAndQuantiles(t *testing.T) {
	h := New()
	for i := 1; i <= 1000; i++ {
		h.Record(int64(i) * int64(time.Millisecond))
	}
	if got := h.Count(); got != 1000 {
		t.Fatalf("count = %d, want 1000", got)
	}
	checks := []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.9, 900 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, 1000 * time.Millisecond}}
	for _, c := range checks {
		got := time.Duration(h.Quantile(c.q))
		// 3 significant digits: within 0.1 %.
		if diff := got - c.want; diff < -c.want/1000 || diff > c.want/1000 {
			t.Errorf("q%.2f = %v, want %v ±0.1%%", c.q, got, c.want)
		}
	}
	if d := h.Min() - int64(time.Millisecond); d < -int64(time.Millisecond)/1000 || d > 0 {
		t.Errorf("min = %d, want 1 ms within 0.1%%", h.Min())
	}
}

func TestClampedValuesAreCountedNotDropped(t *testing.T) {
	h := New()
	h.Record(5)                             // below 1 µs
	h.Record(int64(20 * time.Minute))       // above 10 min
	h.Record(int64(250 * time.Microsecond)) // in range
	if h.Count() != 3 || h.Clamped() != 1 {
		t.Fatalf("count=%d clamped=%d, want 3 and 1", h.Count(), h.Clamped())
	}
	if got := h.Max(); got < int64(9*time.Minute) {
		t.Errorf("max = %v, want near 10 min", time.Duration(got))
	}
}

func TestEmptyHistogram(t *testing.T) {
	h := New()
	if h.Quantile(0.99) != 0 || h.Min() != 0 || h.Max() != 0 || h.CDF(5) != nil {
		t.Fatal("empty histogram should report zeros and no CDF")
	}
}

// TestMergeConservesCounts is the metamorphic property: splitting a stream
// of values over k histograms and merging them gives the same histogram as
// recording the stream into one.
func TestMergeConservesCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		k := 1 + r.IntN(16)
		parts := make([]*Histogram, k)
		for i := range parts {
			parts[i] = New()
		}
		whole := New()
		n := r.IntN(5000)
		for i := 0; i < n; i++ {
			v := int64(r.ExpFloat64() * float64(time.Millisecond))
			whole.Record(v)
			parts[r.IntN(k)].Record(v)
		}
		merged := New()
		for _, p := range parts {
			if err := merged.Merge(p); err != nil {
				t.Fatal(err)
			}
		}
		if merged.Count() != whole.Count() || merged.Clamped() != whole.Clamped() {
			t.Fatalf("trial %d: merged count %d clamped %d, whole %d %d", trial, merged.Count(), merged.Clamped(), whole.Count(), whole.Clamped())
		}
		for _, q := range []float64{0.5, 0.9, 0.99, 1} {
			if merged.Quantile(q) != whole.Quantile(q) {
				t.Fatalf("trial %d: q%v merged %d whole %d", trial, q, merged.Quantile(q), whole.Quantile(q))
			}
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	h := New()
	for i := 0; i < 100; i++ {
		h.Record(int64(i+1) * 1000)
	}
	b, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Count() != 100 || d.Quantile(0.5) != h.Quantile(0.5) {
		t.Fatalf("decoded count %d p50 %d, want 100 and %d", d.Count(), d.Quantile(0.5), h.Quantile(0.5))
	}
	if _, err := Decode([]byte("not a histogram")); err == nil {
		t.Fatal("decoding garbage should fail")
	}
}

// A merge keeps the clamped count of what it merges (values over the range
// are counted as clamped, never lost from the count a report prints).
func TestMergeKeepsTheClampedCount(t *testing.T) {
	a, b := New(), New()
	a.RecordDuration(time.Millisecond)
	b.RecordDuration(time.Hour) // over 10 min: clamped
	b.RecordDuration(2 * time.Hour)
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if a.Count() != 3 || a.Clamped() != 2 {
		t.Fatalf("merged count %d clamped %d, want 3 and 2", a.Count(), a.Clamped())
	}
}

// The range's ends: 10 min itself is in range (not clamped), a value below 1 µs counts as 1 µs; Each and
// EachBand name only the bands that hold values.
func TestRangeEndsAndBands(t *testing.T) {
	h := New()
	h.Record(Highest)
	h.Record(10)
	low := New()
	low.Record(Lowest)
	if h.Clamped() != 0 || h.Count() != 2 || h.Min() != low.Min() {
		t.Errorf("10 min and 10 ns: clamped %d, count %d, min %d; want 0, 2, %d (as 1 µs)", h.Clamped(), h.Count(), h.Min(), low.Min())
	}
	bands, each := 0, 0
	h.EachBand(func(from, to, count int64) {
		bands++
		if count == 0 || from > to {
			t.Errorf("band [%d, %d] with %d values", from, to, count)
		}
	})
	h.Each(func(ns, count int64) { each++ })
	if bands != 2 || each != 2 {
		t.Errorf("%d bands and %d values named, want the 2 that hold a value", bands, each)
	}
}

// A histogram goes from one process to another with its clamped count, and one of another range is refused
// (it would not merge with faasbench's).
func TestWireKeepsTheClampedCountAndRefusesAnotherRange(t *testing.T) {
	if w, err := (*Histogram)(nil).ToWire(); w != nil || err != nil {
		t.Errorf("nil to the wire: %v, %v", w, err)
	}
	if h, err := FromWire(nil); h != nil || err != nil {
		t.Errorf("nil from the wire: %v, %v", h, err)
	}
	h := New()
	h.Record(5_000_000)
	h.Record(Highest + 1)
	w, err := h.ToWire()
	if err != nil || w.Clamped != 1 {
		t.Fatalf("to the wire: %+v, %v", w, err)
	}
	back, err := FromWire(w)
	if err != nil || back.Count() != 2 || back.Clamped() != 1 || back.Quantile(0.5) != h.Quantile(0.5) {
		t.Fatalf("from the wire: %v, %v", back, err)
	}
	other, _ := hdr.New(1, 1000, 2).EncodeV2()
	if _, err := FromWire(&Wire{HDR: other}); err == nil || !strings.Contains(err.Error(), "range 1..1000 ns at 2 digits") {
		t.Errorf("a histogram of another range: %v", err)
	}
	if plain, err := FromWire(&Wire{HDR: w.HDR}); err != nil || plain.Clamped() != 0 {
		t.Errorf("none clamped: %v, %v", plain, err)
	}
	if _, err := FromWire(&Wire{HDR: w.HDR, Clamped: -1}); err == nil {
		t.Error("a negative clamped count taken")
	}
}

// CDF: fractions from 0 to 1 (HdrHistogram's percentiles over 100), values rising; none for no values.
func TestCDFIsAFractionOfValues(t *testing.T) {
	if New().CDF(5) != nil {
		t.Error("a CDF of no values")
	}
	h := New()
	for i := int64(1); i <= 1000; i++ {
		h.Record(i * 1_000_000)
	}
	cdf := h.CDF(5)
	if len(cdf) < 10 || cdf[len(cdf)-1].Fraction != 1 {
		t.Fatalf("CDF %+v: want buckets ending at fraction 1", cdf)
	}
	for i, b := range cdf {
		if b.Fraction < 0 || b.Fraction > 1 || (i > 0 && (b.Fraction < cdf[i-1].Fraction || b.ValueNs < cdf[i-1].ValueNs)) {
			t.Fatalf("bucket %d: %+v after %+v", i, b, cdf[max(i-1, 0)])
		}
		// Half the values are at most 500 ms.
		if b.ValueNs <= 499_000_000 && b.Fraction > 0.5 {
			t.Errorf("%d ns at fraction %v: over half the values below 500 ms", b.ValueNs, b.Fraction)
		}
	}
}

func TestRecordNIsNRecords(t *testing.T) {
	for _, v := range []int64{0, 5, Lowest, 123456789, Highest + 1} {
		one, n := New(), New()
		for range 3 {
			one.Record(v)
		}
		n.RecordN(v, 3)
		n.RecordN(v, 0)
		a, _ := one.Encode()
		b, _ := n.Encode()
		if string(a) != string(b) || one.Clamped() != n.Clamped() || n.Count() != 3 {
			t.Errorf("%d: RecordN(3) gave %d values, clamped %d; three Records %d, clamped %d", v, n.Count(), n.Clamped(), one.Count(), one.Clamped())
		}
	}
}
