package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLiveCountsWhatTheRunCounts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	var live Live
	res, err := Closed{Concurrency: 3, Requests: 90, Live: &live}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	done, failed := live.Snapshot()
	if done != res.Total() || done != 90 || failed != 0 {
		t.Errorf("live %d done %d failed, result %d", done, failed, res.Total())
	}
	var live2 Live
	if _, err := (Closed{Concurrency: 2, Requests: 10, Live: &live2}).Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL + "?fail=1"}); err != nil {
		t.Fatal(err)
	}
	if done, failed := live2.Snapshot(); done != 10 || failed != 10 {
		t.Errorf("failing server: live %d done, %d failed; want 10 and 10", done, failed)
	}
	var none *Live
	if d, f := none.Snapshot(); d != 0 || f != 0 {
		t.Error("nil Live counted")
	}
}

// A Live read gives the run's own counts by class and, bucket by bucket,
// the latencies of its successful requests as its windows hold them.
func TestLiveViewIsTheRunsCountsAndBuckets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("n") == "3" {
			w.WriteHeader(503)
		}
	}))
	defer srv.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	var live Live
	res, err := Closed{Concurrency: 2, Requests: 60, Live: &live}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Closed{Concurrency: 1, Requests: 5, Live: &live}).Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL + "?n=3"}); err != nil {
		t.Fatal(err)
	}
	var v LiveView
	live.Read(&v)
	if v.Counts[ClassOK] != 60 || v.Counts[Class503] != 5 {
		t.Fatalf("counts %v", v.Counts)
	}
	if done, failed := live.Snapshot(); done != 65 || failed != 5 {
		t.Errorf("done %d failed %d", done, failed)
	}
	var fromWindows [windowBuckets]uint64
	for i := range res.Windows {
		for b, n := range res.Windows[i].buckets {
			fromWindows[b] += uint64(n)
		}
	}
	if v.OK != fromWindows {
		t.Errorf("live buckets differ from the windows' (all ok): %v vs %v", v.OK, fromWindows)
	}
	if WindowBucketUpperNs(0) != bucketUpperNs(0) || WindowBuckets != windowBuckets {
		t.Error("exported geometry")
	}
	var none *Live
	none.Read(&v)
	if v.Counts[ClassOK] != 0 {
		t.Error("nil Live read counts")
	}
}

// A view since an earlier one holds what came between; its quantile is the
// upper edge of the bucket that holds it.
func TestLiveViewSinceAndQuantile(t *testing.T) {
	var l Live
	var before, after LiveView
	for i := 0; i < 100; i++ {
		l.shard(i).count(&Sample{Class: ClassOK, Done: time.Millisecond}) // 1 ms
	}
	l.Read(&before)
	for i := 0; i < 90; i++ {
		l.shard(i).count(&Sample{Class: ClassOK, Done: 2 * time.Millisecond, Cold: i == 0, ColdKind: "process", GwQueueNs: 1500_000, GwSetupNs: -1}) // 2 ms
	}
	for i := 0; i < 10; i++ {
		l.shard(i).count(&Sample{Class: ClassOK, Done: 50 * time.Millisecond}) // 50 ms
		l.shard(i).count(&Sample{Class: Class5xx})
	}
	l.Read(&after)
	d := after.Since(before)
	if d.Counts[ClassOK] != 100 || d.Counts[Class5xx] != 10 || d.Cold != 1 {
		t.Fatalf("since: %d ok, %d 5xx, %d cold; want 100, 10, 1", d.Counts[ClassOK], d.Counts[Class5xx], d.Cold)
	}
	// The cold start with its phases: its latency, the wait at the gateway, no setup stamped.
	if c := d.ColdByKind["process"]; c != (ColdTimes{N: 1, LatencyNs: 2e6, Waited: 1, WaitNs: 1.5e6}) || len(d.ColdByKind) != 1 {
		t.Errorf("cold starts since: %+v", d.ColdByKind)
	}
	if len(before.ColdByKind) != 0 || len(after.Since(after).ColdByKind) != 0 {
		t.Errorf("cold starts before %v, none since itself %v", before.ColdByKind, after.Since(after).ColdByKind)
	}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0.5, bucketUpperNs(windowBucket(2_000_000))}, {0.9, bucketUpperNs(windowBucket(2_000_000))}, {0.91, bucketUpperNs(windowBucket(50_000_000))}} {
		if got := d.QuantileNs(c.q); got != c.want {
			t.Errorf("q %v: %d ns, want %d", c.q, got, c.want)
		}
	}
	if got := before.QuantileNs(0.99); got != bucketUpperNs(windowBucket(1_000_000)) {
		t.Errorf("before: p99 %d", got)
	}
	if got := (LiveView{}).QuantileNs(0.5); got != 0 {
		t.Errorf("empty: %d", got)
	}
}

// While an open loop goes, its live view says how many requests are in
// flight (never more than its bound) and, when the platform is slower than
// the rate, how many the schedule had due that are not sent yet, and how
// late the next is.
func TestLiveViewShowsInFlightAndTheScheduleBehind(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	var live Live
	done := make(chan error, 1)
	go func() {
		_, err := Open{Schedule: Limit{S: Constant{Rate: 200}, Duration: time.Second}, MaxInFlight: 2, Deadline: time.Second, Live: &live}.Run(context.Background(), cl, Target{URL: s.URL})
		done <- err
	}()
	time.Sleep(600 * time.Millisecond)
	var v LiveView
	live.Read(&v)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// 2 in flight at 20 ms: about 100 a second sent of 200 offered.
	if v.InFlight() < 0 || v.InFlight() > 2 || v.Sent == 0 {
		t.Errorf("in flight %d of %d sent: want at most the bound, 2", v.InFlight(), v.Sent)
	}
	if v.Behind < 30 || v.LagNs < int64(100*time.Millisecond) {
		t.Errorf("at 0.6 s: %d behind, next %v late; want about 60 and 300 ms", v.Behind, time.Duration(v.LagNs))
	}
	// Sent and behind make up what the schedule had due: about 120 at 0.6 s.
	if due := v.Sent + v.Behind; due < 100 || due > 145 {
		t.Errorf("at 0.6 s: %d sent and %d behind, %d in all; the schedule had about 120 due", v.Sent, v.Behind, due)
	}
	var end LiveView
	live.Read(&end)
	if end.InFlight() != 0 {
		t.Errorf("after the run: %d in flight", end.InFlight())
	}
	// A generator's view adds up with the others' (the largest lag).
	var sum Live
	sum.SetRemote(0, LiveView{Sent: 5, Behind: 2, LagNs: 7})
	sum.SetRemote(1, LiveView{Sent: 3, Behind: 1, LagNs: 9})
	var both LiveView
	sum.Read(&both)
	if both.Sent != 8 || both.Behind != 3 || both.LagNs != 9 || both.InFlight() != 8 {
		t.Errorf("merged %+v", both)
	}
}
