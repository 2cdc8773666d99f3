package load

import (
	"fmt"
	"time"

	"github.com/faasbench/faasbench/hist"
)

// WireVersion numbers the wire form of a result: a coordinator and a
// generator of different versions refuse each other (the classes are
// indexed by position).
const WireVersion = 1

// WireResult is a Result as a generator sends it to its coordinator:
// every histogram exact (HDR encoded), the per-second windows with their
// latency buckets, the counters. Nothing of the requests themselves.
type WireResult struct {
	Version     int                    `json:"version"`
	Closed      bool                   `json:"closed"`
	Latency     [NumClasses]*hist.Wire `json:"latency"`
	Service     [NumClasses]*hist.Wire `json:"service"`
	Lag         *hist.Wire             `json:"lag,omitempty"`
	Handler     *hist.Wire             `json:"handler,omitempty"`
	Overhead    *hist.Wire             `json:"overhead,omitempty"`
	GwQueue     *hist.Wire             `json:"gw_queue,omitempty"`
	GwUpstream  *hist.Wire             `json:"gw_upstream,omitempty"`
	GwSetup     *hist.Wire             `json:"gw_setup,omitempty"`
	Phases      map[string]*hist.Wire  `json:"phases,omitempty"`
	Counts      [NumClasses]int64      `json:"counts"`
	Statuses    map[int]int64          `json:"statuses,omitempty"`
	BytesOut    int64                  `json:"bytes_out"`
	BytesIn     int64                  `json:"bytes_in"`
	ColdStarts  int64                  `json:"cold_starts"`
	ColdKinds   map[string]int64       `json:"cold_kinds,omitempty"`
	Instances   map[string]int64       `json:"instances,omitempty"`
	Windows     []WireWindow           `json:"windows"`
	FirstSentNs int64                  `json:"first_sent_ns"`
	LastDoneNs  int64                  `json:"last_done_ns"`
	StartUnixNs int64                  `json:"start_unix_ns"`
	ElapsedNs   int64                  `json:"elapsed_ns"`
	Aborted     int64                  `json:"aborted"`
	CutAtEnd    int64                  `json:"cut_at_end,omitempty"`
	Unsolicited int64                  `json:"unsolicited"`
	Interrupted bool                   `json:"interrupted"`
	Workers     int                    `json:"workers"`
	OfferedRate float64                `json:"offered_rate"`
	SpanNs      int64                  `json:"schedule_span_ns"`
	Offered     []int64                `json:"offered_windows,omitempty"`
	Batch       *BatchFigures          `json:"batch,omitempty"`
	Behind      string                 `json:"behind,omitempty"`
}

// WireWindow is one second of a result.
type WireWindow struct {
	Counts   [NumClasses]int64     `json:"counts"`
	Sent     int64                 `json:"sent"`
	LatMaxNs int64                 `json:"lat_max_ns"`
	Buckets  [windowBuckets]uint32 `json:"buckets"`
}

// ToWire converts r for sending.
func (r *Result) ToWire() (*WireResult, error) {
	w := &WireResult{Version: WireVersion, Closed: r.Closed, Counts: r.Counts, BytesOut: r.BytesOut, BytesIn: r.BytesIn,
		ColdStarts: r.ColdStarts, ColdKinds: r.ColdKinds, Instances: r.Instances, Statuses: r.Statuses,
		FirstSentNs: int64(r.FirstSent), LastDoneNs: int64(r.LastDone), StartUnixNs: r.Start.UnixNano(),
		ElapsedNs: int64(r.Elapsed), Aborted: r.Aborted, CutAtEnd: r.CutAtEnd, Unsolicited: r.Unsolicited, Interrupted: r.Interrupted,
		Workers: r.Workers, OfferedRate: r.OfferedRate, SpanNs: int64(r.ScheduleSpan), Offered: r.OfferedWindows, Batch: r.Batch, Behind: r.Behind}
	var err error
	enc := func(h *hist.Histogram) *hist.Wire {
		if err != nil {
			return nil
		}
		var x *hist.Wire
		x, err = h.ToWire()
		return x
	}
	for c := range NumClasses {
		w.Latency[c], w.Service[c] = enc(r.Latency[c]), enc(r.Service[c])
	}
	w.Lag, w.Handler, w.Overhead = enc(r.Lag), enc(r.Handler), enc(r.Overhead)
	w.GwQueue, w.GwUpstream, w.GwSetup = enc(r.GwQueue), enc(r.GwUpstream), enc(r.GwSetup)
	for name, h := range r.Phases {
		if w.Phases == nil {
			w.Phases = map[string]*hist.Wire{}
		}
		w.Phases[name] = enc(h)
	}
	if err != nil {
		return nil, fmt.Errorf("result to wire: %w", err)
	}
	if r.winBase != 0 || len(r.late) != 0 {
		return nil, fmt.Errorf("result to wire: windows from second %d and %d late ones: not a merged result", r.winBase, len(r.late))
	}
	w.Windows = make([]WireWindow, len(r.Windows))
	for i, x := range r.Windows {
		w.Windows[i] = WireWindow{Counts: x.Counts, Sent: x.Sent, LatMaxNs: x.LatMaxNs, Buckets: x.buckets}
	}
	return w, nil
}

// MaxWireWindows bounds the seconds a wire result may hold (a day).
const MaxWireWindows = 86400

// FromWire rebuilds the Result a generator sent, checking what it can: the
// version, the histograms' range, counts that are not negative.
func (w *WireResult) FromWire() (*Result, error) {
	if w.Version != WireVersion {
		return nil, fmt.Errorf("result of wire version %d, want %d", w.Version, WireVersion)
	}
	if len(w.Windows) > MaxWireWindows || len(w.Offered) > MaxWireWindows {
		return nil, fmt.Errorf("result of %d seconds: more than %d", max(len(w.Windows), len(w.Offered)), MaxWireWindows)
	}
	r := &Result{Recorder: NewRecorder(0), Start: time.Unix(0, w.StartUnixNs), Elapsed: time.Duration(w.ElapsedNs),
		Aborted: w.Aborted, CutAtEnd: w.CutAtEnd, Unsolicited: w.Unsolicited, Interrupted: w.Interrupted, Workers: w.Workers,
		OfferedRate: w.OfferedRate, ScheduleSpan: time.Duration(w.SpanNs), OfferedWindows: w.Offered, Batch: w.Batch, Behind: w.Behind}
	r.Closed, r.Counts, r.BytesOut, r.BytesIn, r.ColdStarts = w.Closed, w.Counts, w.BytesOut, w.BytesIn, w.ColdStarts
	r.FirstSent, r.LastDone = time.Duration(w.FirstSentNs), time.Duration(w.LastDoneNs)
	for _, n := range w.Counts {
		if n < 0 {
			return nil, fmt.Errorf("result with a negative count %d", n)
		}
	}
	if len(w.Statuses) > 500 {
		return nil, fmt.Errorf("result with %d HTTP statuses: more than 500", len(w.Statuses))
	}
	for st, n := range w.Statuses {
		if st < 100 || st > 599 || n < 0 {
			return nil, fmt.Errorf("result with %d requests of HTTP status %d", n, st)
		}
		if r.Statuses == nil {
			r.Statuses = make(map[int]int64, len(w.Statuses))
		}
		r.Statuses[st] = n
	}
	for k, v := range w.ColdKinds {
		r.ColdKinds[k] = v
	}
	for k, v := range w.Instances {
		r.Instances[k] = v
	}
	var err error
	dec := func(x *hist.Wire) *hist.Histogram {
		if err != nil {
			return nil
		}
		var h *hist.Histogram
		h, err = hist.FromWire(x)
		return h
	}
	for c := range NumClasses {
		r.Latency[c], r.Service[c] = dec(w.Latency[c]), dec(w.Service[c])
	}
	r.Lag, r.Handler, r.Overhead = dec(w.Lag), dec(w.Handler), dec(w.Overhead)
	r.GwQueue, r.GwUpstream, r.GwSetup = dec(w.GwQueue), dec(w.GwUpstream), dec(w.GwSetup)
	if len(w.Phases) > maxPhases {
		return nil, fmt.Errorf("result with %d phases: more than %d", len(w.Phases), maxPhases)
	}
	for name, x := range w.Phases {
		if r.Phases == nil {
			r.Phases = map[string]*hist.Histogram{}
		}
		r.Phases[name] = dec(x)
	}
	if err != nil {
		return nil, fmt.Errorf("result from wire: %w", err)
	}
	r.Windows = make([]Window, len(w.Windows))
	for i, x := range w.Windows {
		r.Windows[i] = Window{Counts: x.Counts, Sent: x.Sent, LatMaxNs: x.LatMaxNs, buckets: x.Buckets}
	}
	return r, nil
}
