package load

import (
	"fmt"
	"time"

	"github.com/faasbench/faasbench/hist"
)

// Sample is what one request produced. Offsets are from the run's start on
// the generator's monotonic clock.
type Sample struct {
	Intended  time.Duration // when the schedule wanted it sent
	Sent      time.Duration // when it was actually sent
	FirstByte time.Duration // when the response headers arrived (0 if none)
	Done      time.Duration // when the body was read or the request failed
	Status    int
	Class     Class
	BytesOut  int64
	BytesIn   int64
	Attempt   int
	Instance  string
	Cold      bool
	ColdKind  string
	HandlerNs int64 // handler end - begin as the function reported, -1 if unknown
}

// Recorder aggregates samples for one worker. It is not safe for concurrent
// use; each worker owns one, and Merge combines them once the workers stop.
type Recorder struct {
	// Latency from the intended send time (corrected for coordinated
	// omission), one histogram per outcome class, allocated on first use.
	Latency [NumClasses]*hist.Histogram
	// Service is latency from the actual send (uncorrected), per class.
	Service [NumClasses]*hist.Histogram
	// Lag is actual minus intended send time (generator lag).
	Lag *hist.Histogram
	// Handler is the handler duration the function reported (successes).
	Handler *hist.Histogram
	// Overhead is client latency minus handler duration (successes): the
	// time spent outside the function (network, gateway, queueing).
	Overhead *hist.Histogram

	Counts     [NumClasses]int64
	BytesOut   int64
	BytesIn    int64
	ColdStarts int64
	ColdKinds  map[string]int64
	Instances  map[string]int64 // successful requests served per instance
	Windows    []Window
	FirstSent  time.Duration
	LastDone   time.Duration
	sent       int64
}

// NewRecorder returns a recorder with windows preallocated for about
// expected of run time (they grow if the run is longer).
func NewRecorder(expected time.Duration) *Recorder {
	n := windowIndex(expected) + 2
	return &Recorder{
		Lag:       hist.New(),
		Handler:   hist.New(),
		Overhead:  hist.New(),
		Instances: make(map[string]int64, 4),
		ColdKinds: make(map[string]int64, 2),
		Windows:   make([]Window, n),
		FirstSent: -1,
	}
}

func (r *Recorder) window(off time.Duration) *Window {
	i := windowIndex(off)
	for i >= len(r.Windows) {
		r.Windows = append(r.Windows, Window{})
	}
	return &r.Windows[i]
}

// Record adds one sample.
func (r *Recorder) Record(s *Sample) {
	c := s.Class
	lat := int64(s.Done - s.Intended)
	svc := int64(s.Done - s.Sent)
	if r.Latency[c] == nil {
		r.Latency[c] = hist.New()
		r.Service[c] = hist.New()
	}
	r.Latency[c].Record(lat)
	r.Service[c].Record(svc)
	r.Lag.Record(int64(s.Sent - s.Intended))
	r.Counts[c]++
	r.BytesOut += s.BytesOut
	r.BytesIn += s.BytesIn
	if r.FirstSent < 0 || s.Sent < r.FirstSent {
		r.FirstSent = s.Sent
	}
	if s.Done > r.LastDone {
		r.LastDone = s.Done
	}
	r.window(s.Sent).Sent++
	r.window(s.Done).record(c, lat)
	r.sent++
	if s.Cold {
		r.ColdStarts++
		if s.ColdKind != "" {
			r.ColdKinds[s.ColdKind]++
		}
	}
	if c == ClassOK {
		if s.Instance != "" {
			r.Instances[s.Instance]++
		}
		if s.HandlerNs >= 0 {
			r.Handler.Record(s.HandlerNs)
			if o := svc - s.HandlerNs; o > 0 {
				r.Overhead.Record(o)
			}
		}
	}
}

// Total is the number of recorded requests, all classes.
func (r *Recorder) Total() int64 {
	var n int64
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Merge adds other into r.
func (r *Recorder) Merge(o *Recorder) error {
	for c := range NumClasses {
		if o.Latency[c] == nil {
			continue
		}
		if r.Latency[c] == nil {
			r.Latency[c] = hist.New()
			r.Service[c] = hist.New()
		}
		if err := r.Latency[c].Merge(o.Latency[c]); err != nil {
			return fmt.Errorf("merge latency %s: %w", c, err)
		}
		if err := r.Service[c].Merge(o.Service[c]); err != nil {
			return fmt.Errorf("merge service %s: %w", c, err)
		}
	}
	for _, p := range []struct{ dst, src *hist.Histogram }{{r.Lag, o.Lag}, {r.Handler, o.Handler}, {r.Overhead, o.Overhead}} {
		if err := p.dst.Merge(p.src); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	for i := range r.Counts {
		r.Counts[i] += o.Counts[i]
	}
	r.BytesOut += o.BytesOut
	r.BytesIn += o.BytesIn
	r.ColdStarts += o.ColdStarts
	for k, v := range o.ColdKinds {
		r.ColdKinds[k] += v
	}
	for k, v := range o.Instances {
		r.Instances[k] += v
	}
	for len(r.Windows) < len(o.Windows) {
		r.Windows = append(r.Windows, Window{})
	}
	for i := range o.Windows {
		r.Windows[i].merge(&o.Windows[i])
	}
	if o.FirstSent >= 0 && (r.FirstSent < 0 || o.FirstSent < r.FirstSent) {
		r.FirstSent = o.FirstSent
	}
	if o.LastDone > r.LastDone {
		r.LastDone = o.LastDone
	}
	r.sent += o.sent
	return nil
}

// AllLatency merges the corrected latency of every class into one histogram.
func (r *Recorder) AllLatency() *hist.Histogram {
	h := hist.New()
	for _, l := range r.Latency {
		if l != nil {
			// Same range on both sides: cannot drop.
			_ = h.Merge(l)
		}
	}
	return h
}
