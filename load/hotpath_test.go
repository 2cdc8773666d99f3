package load

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/canned"
)

// cannedReply is what cannedServer answers: a function's reply with the
// headers the engine parses on every request (instance, cold flag, handler
// begin and end), so that the hot path measured below includes them.
const cannedReply = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n" +
	HeaderInstance + ": inst-1\r\n" + HeaderCold + ": 0\r\n" +
	HeaderHandlerBegin + ": 1000\r\n" + HeaderHandlerEnd + ": 2500\r\n\r\npong"

// cannedServer answers every GET on a connection with cannedReply, from a
// fixed buffer: it allocates nothing per request, so that the allocation
// count of the process is the client's.
func cannedServer(tb testing.TB) string {
	tb.Helper()
	return "http://" + loopbackServer(tb, func(c net.Conn) { canned.Serve(c, []byte(cannedReply)) }) + "/f"
}

// hotWorker is a worker on faasbench's own HTTP/1.1 client, warmed up (its
// connection open, its first window and histograms allocated).
func hotWorker(tb testing.TB) *worker {
	tb.Helper()
	ctx := context.Background()
	cl := NewClient(Options{})
	tb.Cleanup(cl.Close)
	w, err := newWorker(ctx, cl, &Target{URL: cannedServer(tb)}, time.Now(), time.Minute, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if w.fast == nil {
		tb.Fatal("an http:// target is not on faasbench's own client")
	}
	for range 100 {
		if !w.hit(-1, 1) {
			tb.Fatal("warm-up request interrupted")
		}
	}
	return w
}

// The hot path (send a request, read and parse the reply with its headers,
// record it into the worker's histograms and windows) allocates nothing once
// warm: the brief's rule, checked by count, not by timing.
func TestHotPathAllocatesNothing(t *testing.T) {
	w := hotWorker(t)
	before := w.rec.Counts[ClassOK]
	allocs := testing.AllocsPerRun(2000, func() { w.hit(-1, 1) })
	if allocs != 0 {
		t.Errorf("%.2f allocations per request, want 0", allocs)
	}
	if got := w.rec.Counts[ClassOK] - before; got != 2001 { // AllocsPerRun runs f once more to warm up
		t.Errorf("%d requests recorded as ok, want 2001", got)
	}
	if w.instance != "inst-1" || w.rec.Instances["inst-1"] != w.rec.Counts[ClassOK] {
		t.Errorf("instance %q seen %d times of %d", w.instance, w.rec.Instances["inst-1"], w.rec.Counts[ClassOK])
	}
	if h := w.rec.HandlerHist(); h.Count() != w.rec.Counts[ClassOK] || h.Quantile(0.5) < 1400 || h.Quantile(0.5) > 1600 {
		t.Errorf("handler times: %d recorded, p50 %d ns, want every request at 1500 ns", h.Count(), h.Quantile(0.5))
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	r := NewRecorder(time.Minute)
	s := Sample{Intended: time.Millisecond, Sent: time.Millisecond + 20*time.Microsecond, FirstByte: 2 * time.Millisecond,
		Done: 2*time.Millisecond + 10*time.Microsecond, Status: 200, Class: ClassOK, Instance: "i", HandlerNs: 1500,
		GwQueueNs: -1, GwUpstreamNs: -1}
	r.Record(&s) // allocates the histograms and the first window
	if allocs := testing.AllocsPerRun(1000, func() { r.Record(&s) }); allocs != 0 {
		t.Errorf("%.2f allocations per Record, want 0", allocs)
	}
	if r.Counts[ClassOK] != 1002 || r.LagHist().Count() != 1002 {
		t.Errorf("recorded %d, lag histogram %d, want 1002", r.Counts[ClassOK], r.LagHist().Count())
	}
}

// The pacer computes an offset per request: no schedule may allocate there.
func TestScheduleOffsetsAllocateNothing(t *testing.T) {
	for name, s := range benchSchedules(t) {
		var i int64
		if allocs := testing.AllocsPerRun(1000, func() {
			if _, ok := s.Offset(i); !ok {
				t.Fatalf("%s: no offset %d", name, i)
			}
			i += 37
		}); allocs != 0 {
			t.Errorf("%s: %.2f allocations per offset, want 0", name, allocs)
		}
	}
}

// BenchmarkRoundTrip is one closed-loop request on loopback through the
// whole hot path; it reports req/s beside ns/op and allocs/op. The figure
// includes the server's share of this process's CPU, so it is for comparing
// versions of the engine on one machine, not with wrk (bench/bench.py does
// that, with the server on its own CPU).
func BenchmarkRoundTrip(b *testing.B) {
	w := hotWorker(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.hit(-1, 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkRecord is the per-request bookkeeping alone: three histograms
// (corrected, uncorrected, lag) and the per-second window.
func BenchmarkRecord(b *testing.B) { benchRecord(b, NewRecorder(time.Minute)) }

// BenchmarkRecordLive is BenchmarkRecord with a Live watching (the progress
// line or the Prometheus exporter): its added cost per request.
func BenchmarkRecordLive(b *testing.B) {
	r := NewRecorder(time.Minute)
	var live Live
	r.live = live.shard(0)
	benchRecord(b, r)
}

func benchRecord(b *testing.B, r *Recorder) {
	s := Sample{Status: 200, Class: ClassOK, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1}
	b.ReportAllocs()
	for i := range b.N {
		// latencies spread over 100 µs..10 ms, offsets over the first minute
		off := time.Duration(i%60_000) * time.Millisecond
		s.Intended, s.Sent = off, off+time.Duration(i%50)*time.Microsecond
		s.Done = s.Sent + 100*time.Microsecond + time.Duration(i%9900)*time.Microsecond
		r.Record(&s)
	}
}

// BenchmarkScheduleOffset is the pacer's per-request cost of computing an
// intended send time, for each kind of schedule.
func BenchmarkScheduleOffset(b *testing.B) {
	for name, s := range benchSchedules(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				if off, ok := s.Offset(int64(i % 500_000)); !ok || off < 0 {
					b.Fatalf("offset %d: %v %v", i%500_000, off, ok)
				}
			}
		})
	}
}

// benchSchedules is one schedule of each kind, each with at least 500,000
// requests.
func benchSchedules(tb testing.TB) map[string]Schedule {
	tb.Helper()
	stages, err := NewStages([]Stage{{Duration: time.Minute, Rate: 10_000, Ramp: true}, {Duration: time.Minute, Rate: 10_000}})
	if err != nil {
		tb.Fatal(err)
	}
	poisson, err := NewPoisson(10_000, 1, 2*time.Minute, 0)
	if err != nil {
		tb.Fatal(err)
	}
	offsets := make(Offsets, 500_000)
	for i := range offsets {
		offsets[i] = time.Duration(i) * 100 * time.Microsecond
	}
	return map[string]Schedule{
		"constant": Constant{Rate: 10_000},
		"burst":    Burst{Size: 100, Every: 10 * time.Millisecond},
		"stages":   stages,
		"poisson":  poisson,
		"replay":   offsets,
		"limit":    Limit{S: Constant{Rate: 10_000}, Duration: time.Hour},
	}
}
