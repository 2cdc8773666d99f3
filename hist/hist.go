// Package hist wraps HDR histograms for latency recording: a fixed range
// (1 µs to 10 min, 3 significant digits, values in nanoseconds), merges that
// report what they could not keep, and the percentiles faasbench prints.
package hist

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// Lowest is the smallest value the histogram tells apart, in ns (1 µs).
	Lowest = int64(time.Microsecond)
	// Highest is the largest value the histogram tracks, in ns (10 min).
	Highest = int64(10 * time.Minute)
	// SigFigs is the number of significant decimal digits kept.
	SigFigs = 3
)

// Histogram is a latency histogram in nanoseconds. It is not safe for
// concurrent use: each load worker owns its own and they are merged at the end.
type Histogram struct {
	h *hdr.Histogram
	// clamped counts values above Highest that were recorded at Highest
	// instead of being dropped.
	clamped int64
}

// New returns an empty histogram with the faasbench range.
func New() *Histogram {
	return &Histogram{h: hdr.New(Lowest, Highest, SigFigs)}
}

// Record adds one value in ns. Values below 1 µs (the resolution) count as
// 1 µs. Values above 10 min count as 10 min and are counted in Clamped, so
// nothing is lost silently.
func (h *Histogram) Record(ns int64) {
	if ns < Lowest {
		ns = Lowest
	} else if ns > Highest {
		ns = Highest
		h.clamped++
	}
	// In range by construction, so RecordValue cannot fail.
	_ = h.h.RecordValue(ns)
}

// RecordN adds n values of ns (Record's rules, n times, at once).
func (h *Histogram) RecordN(ns, n int64) {
	if n <= 0 {
		return
	}
	if ns < Lowest {
		ns = Lowest
	} else if ns > Highest {
		ns = Highest
		h.clamped += n
	}
	_ = h.h.RecordValues(ns, n)
}

// RecordDuration adds one duration.
func (h *Histogram) RecordDuration(d time.Duration) { h.Record(int64(d)) }

// Merge adds every count of other into h. It returns an error if any count
// could not be kept (it never can with two faasbench histograms, which share
// one range, but a histogram decoded from a file may have another).
func (h *Histogram) Merge(other *Histogram) error {
	if other == nil {
		return nil
	}
	h.clamped += other.clamped
	if dropped := h.h.Merge(other.h); dropped != 0 {
		return fmt.Errorf("hist: merge dropped %d of %d values outside the range", dropped, other.Count())
	}
	return nil
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Clamped is the number of values recorded at a range bound.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Quantile returns the value at quantile q (0..1) in ns; 0 when empty.
func (h *Histogram) Quantile(q float64) int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.h.ValueAtQuantile(q * 100)
}

// Min returns the smallest recorded value in ns (0 when empty).
func (h *Histogram) Min() int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.h.Min()
}

// Max returns the largest recorded value in ns (0 when empty).
func (h *Histogram) Max() int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.h.Max()
}

// Mean returns the mean in ns (0 when empty).
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// StdDev returns the standard deviation in ns.
func (h *Histogram) StdDev() float64 { return h.h.StdDev() }

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram {
	return &Histogram{h: h.h.Clone(), clamped: h.clamped}
}

// Bucket is one step of a cumulative distribution: Fraction of values are
// at most ValueNs.
type Bucket struct {
	ValueNs  int64
	Fraction float64
}

// CDF returns the cumulative distribution with ticks per half distance as in
// HdrHistogram's percentile output (5 is a good default).
func (h *Histogram) CDF(ticks int32) []Bucket {
	if h.Count() == 0 {
		return nil
	}
	br := h.h.CumulativeDistributionWithTicks(ticks)
	out := make([]Bucket, 0, len(br))
	for _, b := range br {
		out = append(out, Bucket{ValueNs: b.ValueAt, Fraction: b.Quantile / 100})
	}
	return out
}

// Encode returns the compressed V2 encoding (base64 of it is what .hlog lines hold).
func (h *Histogram) Encode() ([]byte, error) {
	b, err := h.h.EncodeV2()
	if err != nil {
		return nil, fmt.Errorf("hist: encode: %w", err)
	}
	return b, nil
}

// Decode parses what Encode wrote.
func Decode(b []byte) (*Histogram, error) {
	h, err := hdr.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("hist: decode: %w", err)
	}
	return &Histogram{h: h}, nil
}

// Each calls fn for every recorded value band (a value representative of
// the band, in ns, and its count), lowest first.
func (h *Histogram) Each(fn func(ns, count int64)) {
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			fn((b.From+b.To)/2, b.Count)
		}
	}
}

// EachBand calls fn for every recorded value band with its bounds in ns and
// its count, lowest first: Quantile reports a band by its upper bound.
func (h *Histogram) EachBand(fn func(from, to, count int64)) {
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			fn(b.From, b.To, b.Count)
		}
	}
}

// Wire is a histogram as one process sends it to another: the compressed
// V2 encoding and the count of values clamped at Highest (which the
// encoding does not carry).
type Wire struct {
	HDR     []byte `json:"hdr"`
	Clamped int64  `json:"clamped,omitempty"`
}

// ToWire encodes h (nil: nil).
func (h *Histogram) ToWire() (*Wire, error) {
	if h == nil {
		return nil, nil
	}
	b, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return &Wire{HDR: b, Clamped: h.clamped}, nil
}

// FromWire decodes what ToWire made (nil: nil), checking that it has
// faasbench's range, so that it merges with the histograms made here.
func FromWire(w *Wire) (*Histogram, error) {
	if w == nil {
		return nil, nil
	}
	h, err := Decode(w.HDR)
	if err != nil {
		return nil, err
	}
	if h.h.LowestTrackableValue() != Lowest || h.h.HighestTrackableValue() != Highest || h.h.SignificantFigures() != SigFigs {
		return nil, fmt.Errorf("hist: a histogram of range %d..%d ns at %d digits, want %d..%d at %d",
			h.h.LowestTrackableValue(), h.h.HighestTrackableValue(), h.h.SignificantFigures(), Lowest, Highest, SigFigs)
	}
	if w.Clamped < 0 {
		return nil, fmt.Errorf("hist: %d values clamped", w.Clamped)
	}
	h.clamped = w.Clamped
	return h, nil
}
