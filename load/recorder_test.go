package load

import (
	"testing"
	"time"

	"github.com/faasbench/faasbench/hist"
)

// The first send and the last completion are the samples' own, whatever the first one's time (issue 61's
// sweep: a recorder that began at another first send passed).
func TestRecorderFirstSendAndLastCompletion(t *testing.T) {
	r := NewRecorder(0)
	if r.FirstSent >= 0 {
		t.Fatalf("an empty recorder's first send %s: want none (negative)", r.FirstSent)
	}
	for _, s := range []Sample{okSample(300*time.Millisecond, 400*time.Millisecond), okSample(100*time.Millisecond, 150*time.Millisecond), okSample(200*time.Millisecond, 900*time.Millisecond)} {
		r.Record(&s)
	}
	if r.FirstSent != 100*time.Millisecond || r.LastDone != 900*time.Millisecond {
		t.Errorf("first send %s, last completion %s: want 100 ms and 900 ms", r.FirstSent, r.LastDone)
	}
}

func okSample(sent, done time.Duration) Sample {
	return Sample{Intended: sent, Sent: sent, Done: done, Status: 200, Class: ClassOK, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1}
}

// Zero is a time like any other: a send at the run's start, a handler or gateway stamp of 0 ns are
// recorded; a request without a response has no status; the overhead is the service time less the
// handler's, kept only when positive (issue 61's sweep: each `>= 0` held as `> 0`).
func TestRecorderKeepsZeroTimesAndTheOverhead(t *testing.T) {
	r := NewRecorder(0)
	first := okSample(0, 10*time.Millisecond)
	first.HandlerNs, first.GwQueueNs, first.GwUpstreamNs, first.GwSetupNs = 0, 0, 0, 0
	r.Record(&first)
	later := okSample(5*time.Millisecond, 15*time.Millisecond)
	later.HandlerNs = 4_000_000 // 10 ms of service: 6 ms outside the handler
	r.Record(&later)
	same := okSample(6*time.Millisecond, 10*time.Millisecond)
	same.HandlerNs = 4_000_000 // all of its 4 ms in the handler: no overhead
	r.Record(&same)
	refused := Sample{Intended: 7 * time.Millisecond, Sent: 7 * time.Millisecond, Done: 8 * time.Millisecond, Class: ClassConnect, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1}
	r.Record(&refused)
	if r.FirstSent != 0 {
		t.Errorf("first send %s, want 0", r.FirstSent)
	}
	if r.Handler == nil || r.Handler.Count() != 3 || r.Handler.Min() > hist.Lowest {
		t.Errorf("handler times: %v, want 3 with a 0 (recorded at the histogram's lowest value)", r.Handler)
	}
	if r.Overhead == nil || r.Overhead.Count() != 2 {
		t.Fatalf("overheads: %v, want 2 (10 ms with a 0 handler, and 6 ms)", r.Overhead)
	}
	if lo, hi := r.Overhead.Min(), r.Overhead.Max(); lo < 5_990_000 || lo > 6_010_000 || hi < 9_990_000 || hi > 10_010_000 {
		t.Errorf("overheads from %d to %d ns, want 6 ms and 10 ms", lo, hi)
	}
	for name, h := range map[string]interface{ Count() int64 }{"queue": r.GwQueue, "upstream": r.GwUpstream, "setup": r.GwSetup} {
		if h == nil || h.Count() != 1 {
			t.Errorf("gateway %s: want the one stamp of 0", name)
		}
	}
	if _, ok := r.Statuses[0]; ok || r.Statuses[200] != 3 {
		t.Errorf("statuses %v: want 200 three times and no status 0", r.Statuses)
	}
}

// A merge keeps the earliest first send, 0 included, on either side; a closed-loop recorder merges into
// an empty one, which becomes closed.
func TestRecorderMergeKeepsTheEarliestSendAndTheLoop(t *testing.T) {
	at := func(sent time.Duration) *Recorder {
		r := NewRecorder(0)
		s := okSample(sent, sent+time.Millisecond)
		r.Record(&s)
		return r
	}
	for _, c := range []struct{ into, from, want time.Duration }{
		{5 * time.Millisecond, 0, 0},
		{0, 5 * time.Millisecond, 0},
		{5 * time.Millisecond, 3 * time.Millisecond, 3 * time.Millisecond},
	} {
		r := at(c.into)
		if err := r.Merge(at(c.from)); err != nil {
			t.Fatal(err)
		}
		if r.FirstSent != c.want {
			t.Errorf("%s merged with %s: first send %s, want %s", c.into, c.from, r.FirstSent, c.want)
		}
	}
	closed := at(time.Millisecond)
	closed.Closed = true
	empty := NewRecorder(0)
	if err := empty.Merge(closed); err != nil || !empty.Closed || empty.Total() != 1 {
		t.Errorf("a closed recorder into an empty one: %v, closed %v, %d requests", err, empty.Closed, empty.Total())
	}
	if err := at(time.Millisecond).Merge(closed); err == nil {
		t.Error("a closed-loop recorder merged into an open-loop one with requests")
	}
}

// Throughput is successes over the elapsed time, and 0 (never a division by zero) when no time elapsed;
// a load with no worker merges to an empty result.
func TestThroughputOfNoElapsedTimeAndAMergeOfNoWorker(t *testing.T) {
	res := &Result{Recorder: NewRecorder(0), Elapsed: 2 * time.Second}
	res.Counts[ClassOK], res.Counts[Class503] = 10, 4
	if got := res.Throughput(); got != 5 {
		t.Errorf("10 successes in 2 s: %v/s, want 5", got)
	}
	res.Elapsed = 0
	if got := res.Throughput(); got != 0 {
		t.Errorf("no elapsed time: %v/s, want 0", got)
	}
	empty, err := mergeWorkers(nil, time.Now(), false)
	if err != nil || empty.Total() != 0 || empty.Closed || empty.Elapsed != 0 {
		t.Errorf("no worker: %+v %v", empty, err)
	}
}

// The workers' result holds every second: those the workers handed over to the run's store during a long
// run (past windowRetain seconds) and those they kept; its span runs from the first send, 0 included, to
// the last completion.
func TestMergeWorkersTakesTheStoredSecondsAndTheSpan(t *testing.T) {
	store := &windowStore{}
	a, b := NewRecorder(time.Minute), NewRecorder(time.Minute)
	a.store, b.store = store, store
	const seconds = 3 * windowRetain
	for s := range seconds {
		for _, r := range []*Recorder{a, b} {
			off := time.Duration(s) * time.Second
			smp := okSample(off, off+time.Millisecond)
			r.Record(&smp)
		}
	}
	if len(store.w) == 0 {
		t.Fatal("no second handed over: the run is too short for the test")
	}
	res, err := mergeWorkers([]*worker{{rec: a}, {rec: b, aborted: 3}}, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Windows) != seconds || res.Total() != 2*seconds || res.Aborted != 3 || res.Workers != 2 {
		t.Fatalf("%d windows, %d requests, %d aborted, %d workers; want %d, %d, 3, 2", len(res.Windows), res.Total(), res.Aborted, res.Workers, seconds, 2*seconds)
	}
	for s, w := range res.Windows {
		if w.Completed() != 2 || w.Sent != 2 {
			t.Fatalf("second %d: completed %d, sent %d; want 2 and 2", s, w.Completed(), w.Sent)
		}
	}
	if want := time.Duration(seconds-1)*time.Second + time.Millisecond; res.Elapsed != want {
		t.Errorf("elapsed %s, want %s (first send at 0)", res.Elapsed, want)
	}
	// A later first send: the span is from it.
	c := NewRecorder(0)
	for _, at := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond} {
		smp := okSample(at, at+600*time.Millisecond)
		c.Record(&smp)
	}
	res, err = mergeWorkers([]*worker{{rec: c}}, time.Now(), true)
	if err != nil || res.Elapsed != 900*time.Millisecond || !res.Interrupted {
		t.Errorf("elapsed %s, interrupted %v, %v; want 900 ms, interrupted", res.Elapsed, res.Interrupted, err)
	}
}

// The never-sent requests a cut schedule still had are recorded in bulk
// (neverSent, neverSentDone) with the figures Record gives the same
// requests one by one as a worker's dropLate makes them.
func TestNeverSentInBulkIsWhatRecordGives(t *testing.T) {
	for _, lean := range []bool{false, true} {
		one, bulk := NewRecorder(time.Second), NewRecorder(time.Second)
		one.lean, bulk.lean = lean, lean
		now := 2100 * time.Millisecond
		for i := range 5000 {
			off := time.Duration(i) * 400 * time.Microsecond
			s := Sample{Intended: off, Sent: now, Done: now, Class: ClassGeneratorLag, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1}
			one.Record(&s)
			bulk.neverSent(off, now)
		}
		if err := bulk.neverSentDone(); err != nil {
			t.Fatal(err)
		}
		enc := func(h *hist.Histogram) string {
			if h == nil {
				return "none"
			}
			b, err := h.Encode()
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		if enc(one.Latency[ClassGeneratorLag]) != enc(bulk.Latency[ClassGeneratorLag]) || enc(one.Lag) != enc(bulk.Lag) ||
			enc(one.Service[ClassGeneratorLag]) != enc(bulk.Service[ClassGeneratorLag]) {
			t.Errorf("lean %v: the latency, lag or service histograms differ", lean)
		}
		if one.Counts != bulk.Counts || one.FirstSent != bulk.FirstSent || one.LastDone != bulk.LastDone {
			t.Errorf("lean %v: counts %v / %v, first %v / %v, last %v / %v", lean, one.Counts, bulk.Counts, one.FirstSent, bulk.FirstSent, one.LastDone, bulk.LastDone)
		}
		if w1, w2 := one.window(now), bulk.window(now); *w1 != *w2 {
			t.Errorf("lean %v: windows %+v / %+v", lean, *w1, *w2)
		}
	}
}
