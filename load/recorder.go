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
	// Phases is the reply's HeaderPhases value (nil: none); it may point
	// into the worker's buffer, valid until the sample is recorded.
	Phases []byte
	// GwSetupNs is the handler's start less the gateway's assignment
	// (gwSetup), -1 if unknown.
	GwSetupNs int64
	// GwQueueNs (assigned - arrive) and GwUpstreamNs (upstream - assigned)
	// from the gateway's stamps; -1 if unknown.
	GwQueueNs, GwUpstreamNs int64
}

// Recorder aggregates samples for one worker. It is not safe for concurrent
// use; each worker owns one, and Merge combines them once the workers stop.
// A histogram costs ~170 KB (1 µs..10 min at 3 digits), so every histogram
// and window is allocated on first use: a worker that never sends costs
// next to nothing, and a closed-loop worker keeps no lag or uncorrected
// histograms (there they would equal zero and the latency).
type Recorder struct {
	// Closed marks a recorder whose samples are sent when intended (closed
	// loop, batch): Service and Lag are then not kept.
	Closed bool
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
	// GwQueue and GwUpstream are the gateway's own times (successes, when
	// the gateway stamps its replies): waiting for an instance, and the
	// round trip to it (the handler inside).
	GwQueue, GwUpstream *hist.Histogram
	// GwSetup is the request's way from the gateway into the handler
	// (successes with both the gateway's and the handler's stamps).
	GwSetup *hist.Histogram
	// Phases are the times the function reported inside itself
	// (HeaderPhases), per name, for successes.
	Phases map[string]*hist.Histogram

	Counts [NumClasses]int64
	// Statuses counts the requests answered with each HTTP status (a
	// request without a response has none), allocated on first use.
	Statuses   map[int]int64
	BytesOut   int64
	BytesIn    int64
	ColdStarts int64
	ColdKinds  map[string]int64
	Instances  map[string]int64 // successful requests served per instance
	Windows    []Window
	FirstSent  time.Duration
	LastDone   time.Duration
	expected   int
	// records, when set, receives every sample (per-request records).
	records *recordBuffer
	// Windows[0] is second winBase of the run; older windows were handed to
	// store. late holds samples for seconds already handed over (rare).
	winBase int
	store   *windowStore
	late    map[int]*Window
	// live, when set, counts requests for a watcher (Live).
	live *liveShard
	// lean keeps no service, handler, overhead, gateway or phase
	// histograms (Open.Lean).
	lean bool
}

// NewRecorder returns an empty recorder; expected sizes the window slice's
// capacity on first use.
func NewRecorder(expected time.Duration) *Recorder {
	return &Recorder{
		Instances: make(map[string]int64, 1),
		ColdKinds: make(map[string]int64, 1),
		FirstSent: -1,
		expected:  windowIndex(expected) + 2,
	}
}

func orNew(h **hist.Histogram) *hist.Histogram {
	if *h == nil {
		*h = hist.New()
	}
	return *h
}

func (r *Recorder) window(off time.Duration) *Window {
	return r.windowAt(windowIndex(off))
}

// windowAt returns the window of second i of the run.
func (r *Recorder) windowAt(i int) *Window {
	if i < r.winBase {
		if r.late == nil {
			r.late = map[int]*Window{}
		}
		w, ok := r.late[i]
		if !ok {
			w = &Window{}
			r.late[i] = w
		}
		return w
	}
	j := i - r.winBase
	if r.Windows == nil {
		r.Windows = make([]Window, 0, min(max(r.expected, j+1), windowRetain+1))
	}
	if r.store != nil && j >= windowRetain {
		// Hand the oldest seconds over, keeping windowRetain-windowFlush.
		k := min(j-windowRetain+windowFlush, len(r.Windows))
		r.store.add(r.winBase, r.Windows[:k])
		n := copy(r.Windows, r.Windows[k:])
		clear(r.Windows[n:])
		r.Windows = r.Windows[:n]
		r.winBase += k
		j = i - r.winBase
	}
	for j >= len(r.Windows) {
		r.Windows = append(r.Windows, Window{})
	}
	return &r.Windows[j]
}

// Record adds one sample.
func (r *Recorder) Record(s *Sample) {
	if r.records != nil {
		r.records.add(s)
	}
	if r.live != nil {
		r.live.count(s)
	}
	c := s.Class
	lat := int64(s.Done - s.Intended)
	svc := int64(s.Done - s.Sent)
	orNew(&r.Latency[c]).Record(lat)
	if !r.Closed {
		if !r.lean {
			orNew(&r.Service[c]).Record(svc)
		}
		orNew(&r.Lag).Record(int64(s.Sent - s.Intended))
	}
	r.Counts[c]++
	if s.Status > 0 {
		if r.Statuses == nil {
			r.Statuses = make(map[int]int64, 2)
		}
		r.Statuses[s.Status]++ // an existing key: no allocation
	}
	r.BytesOut += s.BytesOut
	r.BytesIn += s.BytesIn
	if r.FirstSent < 0 || s.Sent < r.FirstSent {
		r.FirstSent = s.Sent
	}
	if s.Done > r.LastDone {
		r.LastDone = s.Done
	}
	if c != ClassGeneratorLag { // a request dropped for lag never went on the wire
		r.window(s.Sent).Sent++
	}
	r.window(s.Done).record(c, lat)
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
		if r.lean {
			return
		}
		if s.HandlerNs >= 0 {
			orNew(&r.Handler).Record(s.HandlerNs)
			if o := svc - s.HandlerNs; o > 0 {
				orNew(&r.Overhead).Record(o)
			}
		}
		if s.GwQueueNs >= 0 && s.GwUpstreamNs >= 0 {
			orNew(&r.GwQueue).Record(s.GwQueueNs)
			orNew(&r.GwUpstream).Record(s.GwUpstreamNs)
			if s.GwSetupNs >= 0 {
				orNew(&r.GwSetup).Record(s.GwSetupNs)
			}
		}
		if len(s.Phases) > 0 {
			r.recordPhases(s.Phases)
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
	if o.Closed && !r.Closed && r.Total() == 0 {
		r.Closed = true
	}
	if o.Closed != r.Closed {
		return fmt.Errorf("merge: a closed-loop recorder and an open-loop one")
	}
	for c := range NumClasses {
		if err := mergeInto(&r.Latency[c], o.Latency[c]); err != nil {
			return fmt.Errorf("merge latency %s: %w", c, err)
		}
		if err := mergeInto(&r.Service[c], o.Service[c]); err != nil {
			return fmt.Errorf("merge service %s: %w", c, err)
		}
	}
	for _, p := range []struct {
		dst **hist.Histogram
		src *hist.Histogram
	}{{&r.Lag, o.Lag}, {&r.Handler, o.Handler}, {&r.Overhead, o.Overhead}, {&r.GwQueue, o.GwQueue}, {&r.GwUpstream, o.GwUpstream}, {&r.GwSetup, o.GwSetup}} {
		if err := mergeInto(p.dst, p.src); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	for name, h := range o.Phases {
		if r.Phases == nil {
			r.Phases = map[string]*hist.Histogram{}
		}
		dst := r.Phases[name]
		if err := mergeInto(&dst, h); err != nil {
			return fmt.Errorf("merge phase %s: %w", name, err)
		}
		r.Phases[name] = dst
	}
	for i := range r.Counts {
		r.Counts[i] += o.Counts[i]
	}
	for st, n := range o.Statuses {
		if r.Statuses == nil {
			r.Statuses = make(map[int]int64, len(o.Statuses))
		}
		r.Statuses[st] += n
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
	for i := range o.Windows {
		r.windowAt(o.winBase + i).merge(&o.Windows[i])
	}
	for i, w := range o.late {
		r.windowAt(i).merge(w)
	}
	if o.FirstSent >= 0 && (r.FirstSent < 0 || o.FirstSent < r.FirstSent) {
		r.FirstSent = o.FirstSent
	}
	if o.LastDone > r.LastDone {
		r.LastDone = o.LastDone
	}
	return nil
}

func mergeInto(dst **hist.Histogram, src *hist.Histogram) error {
	if src == nil {
		return nil
	}
	return orNew(dst).Merge(src)
}

// AllLatency merges the corrected latency of every class into one histogram.
func (r *Recorder) AllLatency() *hist.Histogram { return mergeAll(r.Latency[:]) }

// AllService merges the uncorrected latency of every class (in a closed
// loop it is the latency).
func (r *Recorder) AllService() *hist.Histogram {
	if r.Closed {
		return r.AllLatency()
	}
	return mergeAll(r.Service[:])
}

// ServiceOf is the uncorrected latency of class c (nil if none).
func (r *Recorder) ServiceOf(c Class) *hist.Histogram {
	if r.Closed {
		return r.Latency[c]
	}
	return r.Service[c]
}

// LagHist is the generator lag (empty in a closed loop, where it is zero).
func (r *Recorder) LagHist() *hist.Histogram { return orNew(&r.Lag) }

// HandlerHist is the handler time the function reported (maybe empty).
func (r *Recorder) HandlerHist() *hist.Histogram { return orNew(&r.Handler) }

// OverheadHist is client latency minus handler time (maybe empty).
func (r *Recorder) OverheadHist() *hist.Histogram { return orNew(&r.Overhead) }

func mergeAll(hs []*hist.Histogram) *hist.Histogram {
	h := hist.New()
	for _, l := range hs {
		if l != nil {
			// Same range on both sides: cannot drop.
			_ = h.Merge(l)
		}
	}
	return h
}

// Sent is the number of requests sent (all but the generator-lag drops).
func (r *Recorder) Sent() int64 { return r.Total() - r.Counts[ClassGeneratorLag] }

// neverSent records what Record records of a request never sent, given up
// at now (a worker's dropLate), without a Sample, into a recorder that
// holds nothing else: the requests a schedule far beyond the generator
// still had at its deadline are counted this way, millions of them (issue
// 60: one by one through Record they took 1.7 s of a 2 s run's end).
// neverSentDone completes the figures Record would have: for such a
// request the generator lag is its latency and its service time 0. A run
// with per-request records or live counts goes through Record instead.
func (r *Recorder) neverSent(intended, now time.Duration) {
	lat := int64(now - intended)
	orNew(&r.Latency[ClassGeneratorLag]).Record(lat)
	r.Counts[ClassGeneratorLag]++
	if r.FirstSent < 0 || now < r.FirstSent {
		r.FirstSent = now
	}
	if now > r.LastDone {
		r.LastDone = now
	}
	r.window(now).record(ClassGeneratorLag, lat)
}

// neverSentDone: see neverSent.
func (r *Recorder) neverSentDone() error {
	h := r.Latency[ClassGeneratorLag]
	if h == nil || r.Closed {
		return nil
	}
	if !r.lean {
		orNew(&r.Service[ClassGeneratorLag]).RecordN(0, h.Count())
	}
	return orNew(&r.Lag).Merge(h)
}
